package ledger

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Difference is a balance whose stored counter is not the sum of the
// postings of the entries.
type Difference struct {
	AccountID string  `json:"account_id"`
	Currency  string  `json:"currency"`
	Account   Account `json:"account"`
	Stored    int64   `json:"stored"`
	Derived   int64   `json:"derived"`
}

func (d Difference) String() string {
	return fmt.Sprintf("%s %s %s: stored %d, entries sum to %d", d.AccountID, d.Currency, d.Account, d.Stored, d.Derived)
}

// Report is what Check found.
type Report struct {
	Accounts    int          `json:"accounts"`
	Entries     int          `json:"entries"`
	Balances    int          `json:"balances"`
	Differences []Difference `json:"differences"`
	// Broken lists entries that break the rules of the books (unbalanced,
	// unknown account, ...): "<account> <entry id>: <why>".
	Broken []string `json:"broken"`
	// Negative lists balances on the wrong side of zero: a merchant-side
	// balance below it, or owed above it.
	Negative []Difference `json:"negative"`
	// External is what the entries of the external accounts sum to, per
	// account checked and currency (Derived; Stored is always 0: they keep
	// no counter): the money that came in (processor, bank: negative) and
	// went out (paid_out) through each.
	External []Difference `json:"external,omitempty"`
}

// OK reports whether the books are consistent.
func (r Report) OK() bool {
	return len(r.Differences) == 0 && len(r.Broken) == 0 && len(r.Negative) == 0
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d accounts, %d entries, %d balances", r.Accounts, r.Entries, r.Balances)
	if r.OK() {
		b.WriteString(": no difference")
		return b.String()
	}
	for _, d := range r.Differences {
		b.WriteString("\n  difference: " + d.String())
	}
	for _, d := range r.Negative {
		b.WriteString("\n  negative: " + d.String())
	}
	for _, s := range r.Broken {
		b.WriteString("\n  broken entry: " + s)
	}
	return b.String()
}

// Check re-derives every balance of the account's books from its entries
// (and the aggregates from the beneficiary postings) and compares it with
// the stored counter: a difference, an entry that does not balance, a
// merchant-side balance below zero or an owed balance above it is reported.
// The external accounts keep no counter (External): their derived totals
// are in Report.External.
// It reads the account's entries and balances whole (two partitions, paged,
// and the partition of every beneficiary the entries name).
func Check(ctx context.Context, st store.Store, accountID string) (Report, error) {
	var r Report
	err := check(ctx, st, accountID, &r)
	return r, err
}

type balKey struct {
	currency string
	account  Account
}

func check(ctx context.Context, st store.Store, accountID string, r *Report) error {
	derived := map[balKey]int64{}
	err := eachEntry(ctx, st, accountID, func(e Entry) error {
		r.Entries++
		if err := e.Validate(); err != nil {
			r.Broken = append(r.Broken, accountID+" "+e.ID+": "+err.Error())
		}
		if e.AccountID != accountID {
			r.Broken = append(r.Broken, accountID+" "+e.ID+": filed under another account ("+e.AccountID+")")
		}
		for _, p := range e.Postings {
			derived[balKey{e.Currency, p.Account}] += p.Amount
			if agg, ok := p.Account.aggregate(); ok {
				derived[balKey{e.Currency, agg}] += p.Amount
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	stored, err := Balances(ctx, st, accountID)
	if err != nil {
		return err
	}
	// The beneficiaries' balances: the partition of every beneficiary the
	// entries name.
	bens := map[string]bool{}
	for k := range derived {
		if id, _, ok := k.account.BeneficiaryID(); ok {
			bens[id] = true
		}
	}
	ids := make([]string, 0, len(bens))
	for id := range bens {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		bs, err := BeneficiaryBalances(ctx, st, accountID, id)
		if err != nil {
			return err
		}
		stored = append(stored, bs...)
	}
	r.Accounts++
	r.Balances += len(stored)
	seen := map[balKey]bool{}
	for _, b := range stored {
		k := balKey{b.Currency, b.Account}
		seen[k] = true
		if b.Amount != derived[k] {
			r.Differences = append(r.Differences, Difference{accountID, b.Currency, b.Account, b.Amount, derived[k]})
		}
		if !b.Account.MayBeNegative() && b.Amount < 0 || b.Account == Owed && b.Amount > 0 {
			r.Negative = append(r.Negative, Difference{accountID, b.Currency, b.Account, b.Amount, derived[k]})
		}
	}
	var missing []balKey
	for k, v := range derived {
		if !seen[k] && v != 0 && !k.account.External() {
			missing = append(missing, k)
		}
	}
	sortBalKeys(missing)
	for _, k := range missing {
		r.Differences = append(r.Differences, Difference{accountID, k.currency, k.account, 0, derived[k]})
	}
	var external []balKey
	for k := range derived {
		if k.account.External() {
			external = append(external, k)
		}
	}
	sortBalKeys(external)
	for _, k := range external {
		r.External = append(r.External, Difference{accountID, k.currency, k.account, 0, derived[k]})
	}
	return nil
}

// sortBalKeys orders balances by currency, then account, so reports read
// the same on every run.
func sortBalKeys(ks []balKey) {
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].currency != ks[j].currency {
			return ks[i].currency < ks[j].currency
		}
		return ks[i].account < ks[j].account
	})
}

// CheckAll checks the books of every account: the accounts index
// (shared/platform/accounts), and the ledger's own marks, which books written before
// that index have (mlacct#<shard>; no longer written). No Scan.
func CheckAll(ctx context.Context, st store.Store) (Report, error) {
	var r Report
	seen := map[string]bool{}
	visit := func(id string) error {
		if seen[id] {
			return nil
		}
		seen[id] = true
		return check(ctx, st, id, &r)
	}
	if err := accounts.EachID(ctx, st, visit); err != nil {
		return r, err
	}
	for shard := 0; shard < dueindex.Shards; shard++ {
		q := store.Query{Table: store.TableLedger, PK: accountPK(shard), Limit: store.MaxQueryLimit}
		for {
			page, err := st.Query(ctx, q)
			if err != nil {
				return r, apierr.Wrap("ledger.CheckAll", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				if err := visit(it.SK); err != nil {
					return r, err
				}
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	return r, nil
}
