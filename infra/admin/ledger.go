package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/paygate/paygate/shared/domain/ledger"
)

func init() {
	register(command{Name: "ledger check", Summary: "re-derive every balance of the merchant ledger from its entries and report each difference (exit 1 when any)", Flags: ledgerCheck})
	register(command{Name: "ledger settle", Summary: "run the settlement now: make available the captured funds whose settlement delay passed", Flags: ledgerSettle})
}

// errDifferences makes a check that found differences exit 1.
var errDifferences = errors.New("the ledger check found differences")

func ledgerCheck(fs *flag.FlagSet) action {
	id := fs.String("account", "", "one account's books (default: every account that has books)")
	return func(ctx context.Context, e *env) error {
		var (
			r   ledger.Report
			err error
		)
		if *id != "" {
			d, derr := e.accountDeps(ctx, *id)
			if derr != nil {
				return derr
			}
			r, err = ledger.Check(ctx, d.Store, *id)
		} else {
			d, derr := e.Deps(ctx)
			if derr != nil {
				return derr
			}
			r, err = ledger.CheckAll(ctx, d.Store)
		}
		if err != nil {
			return err
		}
		if err := e.print(r, func(w io.Writer) { fmt.Fprintln(w, r.String()) }); err != nil {
			return err
		}
		if !r.OK() {
			return errDifferences
		}
		return nil
	}
}

func ledgerSettle(fs *flag.FlagSet) action {
	return func(ctx context.Context, e *env) error {
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		n, err := ledger.Settle(ctx, d.Store, d.Clock())
		if err != nil {
			return err
		}
		return e.print(map[string]int{"settled": n}, func(w io.Writer) { fmt.Fprintf(w, "settled %d captures\n", n) })
	}
}
