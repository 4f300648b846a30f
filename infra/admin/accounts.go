package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
)

func init() {
	register(command{Name: "accounts create", Summary: "create an account and its first secret key", Flags: accountsCreate})
	register(command{Name: "accounts show", Summary: "show an account", Flags: accountsShow})
	register(command{Name: "accounts set-version", Summary: "set an account's default API version (and its keys')", Flags: accountsSetVersion})
	register(command{Name: "accounts pair", Summary: "link a live account and a test account (the dashboard's test/live switch)", Flags: accountsPair})
}

func accountsCreate(fs *flag.FlagSet) action {
	name := fs.String("name", "", "account name (required)")
	mode := fs.String("mode", "test", "test or live")
	merchant := fs.String("merchant-account", "", "checkout merchantAccount; derived from the name when empty")
	country := fs.String("country", "", "ISO country code, e.g. KZ")
	email := fs.String("email", "", "contact email")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"name", *name}); err != nil {
			return err
		}
		if m := accounts.Mode(*mode); !m.Valid() {
			return usagef("--mode must be test or live, not %q", *mode)
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		a, err := d.Accounts.Create(ctx, accounts.NewAccount{
			Name: *name, Mode: accounts.Mode(*mode), MerchantAccount: *merchant, Country: *country, Email: *email,
		})
		if err != nil {
			return err
		}
		var k *auth.Key
		var secret string
		err = e.audited(ctx, a.ID, "api_key.create", "", "the account's first secret key, with the account", func(ctx context.Context) (string, error) {
			k, secret, err = d.Keys.Create(ctx, a.ID, auth.NewKey{Kind: auth.Secret, Name: "default"})
			if err != nil {
				return "", err
			}
			return k.ID, nil
		})
		if err != nil {
			return fmt.Errorf("account %s created, but its key was not: %w", a.ID, err)
		}
		out := struct {
			Account *accounts.Account `json:"account"`
			Key     keyView           `json:"key"`
			Secret  string            `json:"secret"`
		}{a, viewKey(k), secret}
		return e.print(out, func(w io.Writer) {
			writeAccount(w, a)
			writeSecret(w, k, secret)
		})
	}
}

func accountsShow(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}); err != nil {
			return err
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		a, err := d.Accounts.Get(ctx, *id)
		if err != nil {
			return err
		}
		return e.print(struct {
			Account *accounts.Account `json:"account"`
		}{a}, func(w io.Writer) { writeAccount(w, a) })
	}
}

func accountsSetVersion(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	v := fs.String("version", "", "API version, e.g. 2023-09-01 (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"version", *v}); err != nil {
			return err
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		err = e.audited(ctx, *id, "account.default_version", "", *v+" (the account's keys too)", func(ctx context.Context) (string, error) {
			return "", d.Keys.SetDefaultVersion(ctx, *id, *v)
		})
		if err != nil {
			return err
		}
		a, err := d.Accounts.Get(ctx, *id)
		if err != nil {
			return err
		}
		return e.print(struct {
			Account *accounts.Account `json:"account"`
		}{a}, func(w io.Writer) {
			fmt.Fprintf(w, "account %s now defaults to API version %s (its keys too)\n", a.ID, a.DefaultVersion)
		})
	}
}

func accountsPair(fs *flag.FlagSet) action {
	live := fs.String("live", "", "the live account's id (required)")
	test := fs.String("test", "", "the test account's id (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"live", *live}, [2]string{"test", *test}); err != nil {
			return err
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		l, t, err := d.Accounts.Pair(ctx, *live, *test)
		if err != nil {
			return err
		}
		return e.print(struct {
			Live *accounts.Account `json:"live"`
			Test *accounts.Account `json:"test"`
		}{l, t}, func(w io.Writer) {
			fmt.Fprintf(w, "live account %s and test account %s are paired: a dashboard user of one may switch to the other once given a role there (users role)\n", l.ID, t.ID)
		})
	}
}
