package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paygate/paygate/shared/platform/auth"
)

func init() {
	register(command{Name: "keys create", Summary: "create a secret or client key (the secret is shown once)", Flags: keysCreate})
	register(command{Name: "keys list", Summary: "list an account's keys (never their secrets)", Flags: keysList})
	register(command{Name: "keys roll", Summary: "replace a key, keeping the old one valid until an expiry", Flags: keysRoll})
	register(command{Name: "keys revoke", Summary: "disable a key at once", Flags: keysRevoke})
}

// origins collects a repeated --origin flag.
type origins []string

func (o *origins) String() string     { return strings.Join(*o, ",") }
func (o *origins) Set(v string) error { *o = append(*o, v); return nil }

type newKeyOut struct {
	Key    keyView `json:"key"`
	Secret string  `json:"secret"`
}

func keysCreate(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	kind := fs.String("kind", "secret", "secret (server calls) or client (browser components)")
	name := fs.String("name", "", "a label for people")
	var allowed origins
	fs.Var(&allowed, "origin", "allowed origin of a client key, e.g. https://shop.example (repeatable; required for client keys)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}); err != nil {
			return err
		}
		k := auth.KeyKind(*kind)
		switch {
		case k != auth.Secret && k != auth.Client:
			return usagef("--kind must be secret or client, not %q", *kind)
		case k == auth.Client && len(allowed) == 0:
			return usagef("a client key needs at least one --origin")
		case k == auth.Secret && len(allowed) > 0:
			return usagef("--origin applies to client keys only")
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		var key *auth.Key
		var secret string
		err = e.audited(ctx, *id, "api_key.create", "", strings.TrimSpace(string(k)+" key "+*name), func(ctx context.Context) (string, error) {
			key, secret, err = d.Keys.Create(ctx, *id, auth.NewKey{Kind: k, Name: *name, AllowedOrigins: allowed})
			if err != nil {
				return "", err
			}
			return key.ID, nil
		})
		if err != nil {
			return err
		}
		return e.print(newKeyOut{viewKey(key), secret}, func(w io.Writer) { writeSecret(w, key, secret) })
	}
}

func keysList(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, e *env) error {
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		keys, err := d.Keys.List(ctx, *id)
		if err != nil {
			return err
		}
		views := make([]keyView, 0, len(keys))
		for _, k := range keys {
			views = append(views, viewKey(k))
		}
		return e.print(struct {
			Keys []keyView `json:"keys"`
		}{views}, func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tPREFIX\tNAME\tCREATED\tEXPIRES\tREVOKED")
			for _, k := range views {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Kind, k.Prefix, or(k.Name, "-"),
					stamp(&k.CreatedAt), stamp(k.ExpiresAt), stamp(k.RevokedAt))
			}
			_ = tw.Flush()
		})
	}
}

func keysRoll(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	keyID := fs.String("key", "", "id of the key to replace (required)")
	in := fs.Duration("expires-in", 0, "keep the old key valid this long, e.g. 24h (default: it stops at once)")
	at := fs.String("expires-at", "", "keep the old key valid until this RFC 3339 time")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"key", *keyID}); err != nil {
			return err
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		exp := d.Clock().Add(*in)
		if *at != "" {
			if *in != 0 {
				return usagef("give --expires-in or --expires-at, not both")
			}
			if exp, err = time.Parse(time.RFC3339, *at); err != nil {
				return usagef("--expires-at must be an RFC 3339 time like 2025-01-31T12:00:00Z")
			}
		}
		var key *auth.Key
		var secret string
		err = e.audited(ctx, *id, "api_key.roll", *keyID, "the old key expires at "+exp.UTC().Format(time.RFC3339), func(ctx context.Context) (string, error) {
			key, secret, err = d.Keys.Roll(ctx, *id, *keyID, exp)
			return "", err
		})
		if err != nil {
			return err
		}
		old, err := findKey(ctx, e, *id, *keyID)
		if err != nil {
			return err
		}
		out := struct {
			newKeyOut
			Old keyView `json:"old_key"`
		}{newKeyOut{viewKey(key), secret}, viewKey(old)}
		return e.print(out, func(w io.Writer) {
			writeSecret(w, key, secret)
			fmt.Fprintf(w, "old key %s expires at %s\n", old.ID, stamp(old.ExpiresAt))
		})
	}
}

func keysRevoke(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	keyID := fs.String("key", "", "key id (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"key", *keyID}); err != nil {
			return err
		}
		d, err := e.Deps(ctx)
		if err != nil {
			return err
		}
		var k *auth.Key
		err = e.audited(ctx, *id, "api_key.revoke", *keyID, "", func(ctx context.Context) (string, error) {
			k, err = d.Keys.Revoke(ctx, *id, *keyID)
			return "", err
		})
		if err != nil {
			return err
		}
		return e.print(struct {
			Key keyView `json:"key"`
		}{viewKey(k)}, func(w io.Writer) {
			fmt.Fprintf(w, "key %s revoked at %s\n", k.ID, stamp(k.RevokedAt))
		})
	}
}

// findKey reads one key's record through the account's listing.
func findKey(ctx context.Context, e *env, accountID, keyID string) (*auth.Key, error) {
	d, err := e.Deps(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := d.Keys.List(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == keyID {
			return k, nil
		}
	}
	return nil, fmt.Errorf("key %s not found on account %s", keyID, accountID)
}
