package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func init() {
	register(command{Name: "catalog load", Summary: "replace an account's Gate catalog with a catalog file (e.g. infra/democatalog/demo.json)", Flags: catalogLoad})
	register(command{Name: "deposits post", Summary: "post a deposit: credit the balance once per --ref", Flags: depositsPost})
	register(command{Name: "balance show", Summary: "show an account's Gate balances", Flags: balanceShow})
}

func catalogLoad(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	file := fs.String("file", "", "catalog JSON file (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"file", *file}); err != nil {
			return err
		}
		b, err := os.ReadFile(*file)
		if err != nil {
			return err
		}
		f, err := catalog.ParseFile(b)
		if err != nil {
			return fmt.Errorf("%s: %s", *file, apierr.As(err).Message)
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		res, err := catalog.NewRepo(d.Store).Sync(ctx, *id, f)
		if err != nil {
			return err
		}
		out := struct {
			catalog.LoadResult
			Products   int `json:"products"`
			Categories int `json:"categories"`
		}{res, len(f.Products), len(f.Categories)}
		return e.print(out, func(w io.Writer) {
			fmt.Fprintf(w, "catalog of %s: %d products, %d categories (%d written, %d unchanged, %d deleted)\n",
				*id, out.Products, out.Categories, res.Written, res.Unchanged, res.Deleted)
		})
	}
}

func depositsPost(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	cur := fs.String("currency", "", "ISO 4217 code, e.g. USD (required)")
	amount := fs.String("amount", "", "decimal amount in major units, e.g. 100.00 (required)")
	ref := fs.String("ref", "", "the bank or operator reference; posting it again credits nothing (required)")
	method := fs.String("method", string(prepaid.MethodBankWire), "bank_wire or manual")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"currency", *cur}, [2]string{"amount", *amount}, [2]string{"ref", *ref}); err != nil {
			return err
		}
		c, err := money.ParseCurrencyField("currency", *cur)
		if err != nil {
			return usagef("--currency: %s", apierr.As(err).Message)
		}
		minor, err := money.ParseDecimalField("amount", *amount, c)
		if err != nil {
			return usagef("--amount: %s", apierr.As(err).Message)
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		dep, created, err := prepaid.New(d.Store, d.Clock).PostDeposit(ctx, *id, prepaid.Deposit{
			Currency: c.Code(), Amount: minor, Method: prepaid.Method(*method), ExternalRef: *ref,
		})
		if err != nil {
			return err
		}
		out := struct {
			Deposit prepaid.View `json:"deposit"`
			Created bool         `json:"created"`
		}{dep.View(), created}
		if err := e.print(out, func(w io.Writer) {
			v := dep.View()
			verb := "posted"
			if !created {
				verb = "already posted (nothing credited)"
			}
			fmt.Fprintf(w, "deposit %s %s: %s %s, ref %s, %s\n", v.ID, verb, v.Amount, v.CurrencyCode, v.ExternalRef, v.Method)
		}); err != nil {
			return err
		}
		if !created && (dep.Currency != c.Code() || dep.Amount != minor) {
			return fmt.Errorf("ref %s was posted before with %s %s, not %s %s", *ref, dep.View().Amount, dep.Currency, *amount, c.Code())
		}
		return nil
	}
}

func balanceShow(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, e *env) error {
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		bs, err := prepaid.New(d.Store, d.Clock).Balances(ctx, *id)
		if err != nil {
			return err
		}
		rows := make([]prepaid.BalanceRow, len(bs))
		for i, b := range bs {
			rows[i] = b.Row()
		}
		return e.print(rows, func(w io.Writer) {
			if len(rows) == 0 {
				fmt.Fprintln(w, "no balances")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CURRENCY\tAVAILABLE\tUPDATED")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.CurrencyCode, r.Available, r.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"))
			}
			tw.Flush()
		})
	}
}
