package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// ledgerCheckEntries is how many entries the ledger check row reads.
const ledgerCheckEntries = 100_000

// ledgerCheckTarget bounds the check's time over ledgerCheckEntries: the
// admin command is run by hand or on a schedule, over one account's
// partition at a time, so seconds are fine; minutes would not be.
const ledgerCheckTarget = 5 * time.Second

// ledgerRows times the ledger check (shared/domain/ledger Check: every entry of
// the account read and summed, every balance compared) over n entries of one
// account on the embedded store.
func ledgerRows(ctx context.Context, n int) ([]row, error) {
	dir, err := os.MkdirTemp("", "paygate-ledger-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	acct := ids.New()
	now := time.Now()
	written := 0
	for written < n {
		// 90 captures settled at once: 90 entries and their one balance
		// (available; the processor keeps no counter), within one
		// transaction's 100 items.
		var b ledger.Batch
		for i := 0; i < 90 && written < n; i++ {
			b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "EUR",
				Source: ledger.Source{Type: ledger.SourceTransaction, ID: ids.New()}, Amount: int64(100 + written%900)}, now)
			written++
		}
		ops, err := b.Ops(now)
		if err != nil {
			return nil, err
		}
		if err := st.Write(ctx, ops...); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	r, err := ledger.Check(ctx, st, acct)
	took := time.Since(start)
	if err != nil {
		return nil, err
	}
	ok := r.OK() && r.Entries == written && took < ledgerCheckTarget
	return []row{{name: fmt.Sprintf("ledger check over %d entries (one account, embedded store)", r.Entries),
		value:  fmt.Sprintf("%s (%.1f µs per entry), no difference: %t", took.Round(time.Millisecond), float64(took.Microseconds())/float64(r.Entries), r.OK()),
		target: "< " + ledgerCheckTarget.String(), ok: verdict(ok)}}, nil
}
