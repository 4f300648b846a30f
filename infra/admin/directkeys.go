package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/cse/localkeys"
)

func init() {
	register(command{Name: "direct-keys list", Summary: "list the direct-payment card keys (active ones, the current first)", Flags: directKeysList})
	register(command{Name: "direct-keys rotate", Summary: "make a new card key current at once; the old ones decrypt until --grace ends", Flags: directKeysRotate})
}

// cardKeyView is a key as the CLI prints it (never a private half: there
// is none to print).
type cardKeyView struct {
	KID       string     `json:"kid"`
	Backend   string     `json:"backend"`
	Ref       string     `json:"ref"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// keyring is the card keyring of the store: KMS keys on DynamoDB (a
// deployed stack; kmsEndpoint overrides KMS's, for moto), key files under
// the data directory on the embedded store (make run's).
func (e *env) keyring(ctx context.Context, kmsEndpoint string) (*cse.Keyring, error) {
	d, err := e.Deps(ctx)
	if err != nil {
		return nil, err
	}
	if e.Store == "embedded" {
		return cse.NewKeyring(d.Store, localkeys.New(localkeys.Dir(e.DataDir)), nil), nil
	}
	cfg, err := e.awsConfig(ctx, kmsEndpoint)
	if err != nil {
		return nil, err
	}
	client := kms.NewFromConfig(cfg, func(o *kms.Options) {
		if kmsEndpoint != "" {
			o.BaseEndpoint = aws.String(kmsEndpoint)
		}
	})
	return cse.NewKeyring(d.Store, kmskeys.New(client), nil), nil
}

func printCardKeys(e *env, keys []cse.Key) error {
	views := make([]cardKeyView, 0, len(keys))
	for _, k := range keys {
		views = append(views, cardKeyView{KID: k.KID, Backend: k.Backend, Ref: k.Ref, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt})
	}
	return e.print(struct {
		Keys []cardKeyView `json:"keys"`
	}{views}, func(w io.Writer) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KID\tBACKEND\tCREATED\tEXPIRES\tREF")
		for _, v := range views {
			exp := "current"
			if v.ExpiresAt != nil {
				exp = v.ExpiresAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.KID, v.Backend, v.CreatedAt.UTC().Format(time.RFC3339), exp, v.Ref)
		}
		tw.Flush()
	})
}

func directKeysList(fs *flag.FlagSet) action {
	return func(ctx context.Context, e *env) error {
		r, err := e.keyring(ctx, "")
		if err != nil {
			return err
		}
		keys, err := r.Active(ctx)
		if err != nil {
			return err
		}
		return printCardKeys(e, keys)
	}
}

func directKeysRotate(fs *flag.FlagSet) action {
	grace := fs.Duration("grace", 7*24*time.Hour, "how long the keys it replaces still decrypt (cards encrypted just before the rotation, pending wallet tokens)")
	adopt := fs.String("adopt", "", "register this existing KMS key (the stack's DirectCardKeyArn output) instead of creating one: a stack's first key")
	kmsEndpoint := fs.String("kms-endpoint", "", "KMS endpoint (moto, for tests); empty means AWS")
	return func(ctx context.Context, e *env) error {
		if *grace < 0 {
			return usagef("--grace must not be negative")
		}
		if *adopt != "" && e.Store != "dynamodb" {
			return usagef("--adopt registers a KMS key: it needs --store dynamodb")
		}
		r, err := e.keyring(ctx, *kmsEndpoint)
		if err != nil {
			return err
		}
		if *adopt != "" {
			_, err = r.Adopt(ctx, *adopt, *grace)
		} else {
			_, err = r.Rotate(ctx, *grace)
		}
		if err != nil {
			return err
		}
		keys, err := r.Active(ctx)
		if err != nil {
			return err
		}
		return printCardKeys(e, keys)
	}
}
