package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/accounts"
)

func init() {
	register(command{Name: "events backfill-expiry", Summary: "give the event records written without an expiry (before the event log set one) the expiry they should have: created + 30 days; idempotent, bounded, resumable", Flags: eventsBackfill})
}

// backfillResult is what a run did, per account and in all.
type backfillResult struct {
	Accounts int    `json:"accounts"`
	Read     int    `json:"read"`
	Fixed    int    `json:"fixed"`
	Account  string `json:"next_account,omitempty"` // where a run cut short by --limit stopped
	Cursor   string `json:"next_cursor,omitempty"`  // and the cursor in that account's log
}

func eventsBackfill(fs *flag.FlagSet) action {
	id := fs.String("account", "", "one account's log (default: every account)")
	cursor := fs.String("cursor", "", "with --account: go on from this cursor (what a run cut short printed)")
	limit := fs.Int("limit", 10000, "read at most this many records in this run (a run cut short prints where to go on)")
	return func(ctx context.Context, e *env) error {
		if *limit < 1 {
			return usagef("--limit must be at least 1")
		}
		if *cursor != "" && *id == "" {
			return usagef("--cursor goes with --account")
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		var res backfillResult
		one := func(account, from string) error {
			res.Accounts++
			for {
				b, err := eventlog.BackfillExpiry(ctx, d.Store, account, from, *limit-res.Read)
				res.Read += b.Read
				res.Fixed += b.Fixed
				if err != nil {
					return err
				}
				if b.Next == "" {
					return nil
				}
				if res.Read >= *limit {
					res.Account, res.Cursor = account, b.Next
					return errStop
				}
				from = b.Next
			}
		}
		if *id != "" {
			err = one(*id, *cursor)
		} else {
			err = accounts.EachID(ctx, d.Store, func(a string) error { return one(a, "") })
		}
		if err != nil && err != errStop {
			return err
		}
		return e.print(res, func(w io.Writer) {
			fmt.Fprintf(w, "%d records read in %d accounts, %d given their expiry\n", res.Read, res.Accounts, res.Fixed)
			if res.Cursor != "" {
				fmt.Fprintf(w, "stopped at --limit: go on with --account %s --cursor %s (then run again without them for the accounts after it)\n", res.Account, res.Cursor)
			}
		})
	}
}

// errStop ends the walk over the accounts when the run reached --limit.
var errStop = fmt.Errorf("backfill: limit reached")
