package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/paygate/paygate/shared/aws/kmsdatakeys"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// The card connectors of an account: the remote card processor (a
// provider's live or test environment) each mode's payments go to. The
// keys are read from environment variables named on the command line, so
// they are in no shell history or process list, and are never printed.
func init() {
	register(command{Name: "connectors set", Summary: "make a connector an account's card processor for a mode (replaces the mode's connector; prints its id)", Flags: connectorsSet})
	register(command{Name: "connectors list", Summary: "list an account's connectors, current and past (never their keys)", Flags: connectorsList})
	register(command{Name: "connectors remove", Summary: "take a connector out of service (its payments are still captured and refunded through it)", Flags: connectorsRemove})
}

// connectorView is a connector as the CLI prints it: no key.
type connectorView struct {
	ID              string     `json:"id"`
	Kind            string     `json:"kind"`
	Mode            string     `json:"mode"`
	URL             string     `json:"url"`
	MerchantAccount string     `json:"merchant_account"`
	EncryptionKey   bool       `json:"encryption_key"`
	CreatedAt       time.Time  `json:"created_at"`
	RemovedAt       *time.Time `json:"removed_at,omitempty"`
	ReplacedBy      string     `json:"replaced_by,omitempty"`
}

func viewOf(c connectors.Connector) connectorView {
	return connectorView{ID: c.ID, Kind: c.Kind, Mode: c.Mode, URL: c.URL, MerchantAccount: c.MerchantAccount,
		EncryptionKey: c.EncryptionKey != "", CreatedAt: c.CreatedAt, RemovedAt: c.RemovedAt, ReplacedBy: c.ReplacedBy}
}

// secretBox is the box that seals the connectors' keys as the functions
// open them: the data directory's key file on the embedded store (make
// run's); on DynamoDB the KMS key kmsKey names (the stack's
// alias/paygate-<env>-secretbox), or, against a local endpoint without
// one, the data directory's key file (STORE=dynamodb make run's).
func (e *env) secretBox(ctx context.Context, kmsKey, kmsEndpoint string) (secretbox.Box, error) {
	if e.Store == "embedded" || (kmsKey == "" && e.Endpoint != "") {
		if err := os.MkdirAll(e.DataDir, 0o700); err != nil {
			return nil, err
		}
		return secretbox.New(filekeys.New(filekeys.Dir(e.DataDir)), nil), nil
	}
	if kmsKey == "" {
		return nil, usagef("--kms-key (or $SECRETBOX_KMS_KEY) is required on a deployed stack: alias/paygate-<environment>-secretbox")
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
	return secretbox.New(kmsdatakeys.New(client, kmsKey), nil), nil
}

// connectorsRepo is the connectors of --account's store, which must exist.
func (e *env) connectorsRepo(ctx context.Context, account, kmsKey, kmsEndpoint string) (*connectors.Repo, error) {
	d, err := e.accountDeps(ctx, account)
	if err != nil {
		return nil, err
	}
	box, err := e.secretBox(ctx, kmsKey, kmsEndpoint)
	if err != nil {
		return nil, err
	}
	return connectors.NewRepo(d.Store, box, d.Clock), nil
}

func kmsFlags(fs *flag.FlagSet) (key, endpoint *string) {
	key = fs.String("kms-key", "", "the secret box's KMS key on a deployed stack, alias/paygate-<environment>-secretbox ($SECRETBOX_KMS_KEY)")
	endpoint = fs.String("kms-endpoint", "", "KMS endpoint (moto, for tests); empty means AWS")
	return key, endpoint
}

// usageOf turns an invalid configuration into a usage error, naming the
// flag.
func usageOf(err error) error {
	if e := apierr.As(err); e != nil && e.Kind == apierr.Invalid {
		flagName := strings.ReplaceAll(e.Param, "_", "-")
		switch e.Param {
		case "api_key", "hmac_key":
			flagName += "-env"
		case "encryption_key":
			flagName += "-file"
		}
		if flagName != "" {
			return usagef("--%s: %s", flagName, e.Message)
		}
		return usagef("%s", e.Message)
	}
	return err
}

func connectorsSet(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	kind := fs.String("kind", connectors.KindAdyen, "the provider: adyen")
	mode := fs.String("mode", "", "test or live: the keys whose payments it serves (required)")
	url := fs.String("url", "", "the provider's API base, version included: https://checkout-test.adyen.com/v71 (http only on a loopback host) (required)")
	merchant := fs.String("merchant-account", "", "the merchant account at the provider (required)")
	apiKeyEnv := fs.String("api-key-env", "", "the environment variable holding the provider's API key (required; never printed)")
	hmacKeyEnv := fs.String("hmac-key-env", "", "the environment variable holding the notifications' HMAC key, hex (required; never printed)")
	encKeyFile := fs.String("encryption-key-file", "", "a file holding the provider's client-side encryption public key, a JWK (JSON)")
	kmsKey, kmsEndpoint := kmsFlags(fs)
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"mode", *mode}, [2]string{"url", *url},
			[2]string{"merchant-account", *merchant}, [2]string{"api-key-env", *apiKeyEnv}, [2]string{"hmac-key-env", *hmacKeyEnv}); err != nil {
			return err
		}
		apiKey, hmacKey := e.Getenv(*apiKeyEnv), e.Getenv(*hmacKeyEnv)
		if strings.TrimSpace(apiKey) == "" {
			return usagef("--api-key-env: the environment variable %s is not set or empty", *apiKeyEnv)
		}
		if strings.TrimSpace(hmacKey) == "" {
			return usagef("--hmac-key-env: the environment variable %s is not set or empty", *hmacKeyEnv)
		}
		if _, err := hex.DecodeString(hmacKey); err != nil {
			return usagef("--hmac-key-env: the HMAC key in %s must be hex, as the provider shows it", *hmacKeyEnv)
		}
		c := connectors.Connector{Account: *id, Kind: *kind, Mode: *mode, URL: *url, MerchantAccount: *merchant}
		if *encKeyFile != "" {
			b, err := os.ReadFile(filepath.Clean(*encKeyFile))
			if err != nil {
				return usagef("--encryption-key-file: %v", err)
			}
			c.EncryptionKey = strings.TrimSpace(string(b))
		}
		repo, err := e.connectorsRepo(ctx, *id, or(*kmsKey, e.Getenv("SECRETBOX_KMS_KEY")), *kmsEndpoint)
		if err != nil {
			return err
		}
		var made connectors.Connector
		err = e.audited(ctx, *id, "connector.set", "", c.Kind+" "+c.Mode+" connector, "+c.MerchantAccount+" at "+c.URL, func(ctx context.Context) (string, error) {
			made, err = repo.Set(ctx, c, connectors.Keys{APIKey: apiKey, HMACKey: hmacKey})
			return made.ID, err
		})
		if err != nil {
			return usageOf(err)
		}
		return e.print(struct {
			Connector connectorView `json:"connector"`
		}{viewOf(made)}, func(w io.Writer) { fmt.Fprintln(w, made.ID) })
	}
}

func connectorsList(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	return func(ctx context.Context, e *env) error {
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		// Listing opens no key: the box is never asked.
		cs, err := connectors.NewRepo(d.Store, nil, d.Clock).List(ctx, *id)
		if err != nil {
			return err
		}
		views := make([]connectorView, 0, len(cs))
		for _, c := range cs {
			views = append(views, viewOf(c))
		}
		return e.print(struct {
			Connectors []connectorView `json:"connectors"`
		}{views}, func(w io.Writer) {
			if len(views) == 0 {
				fmt.Fprintln(w, "no connectors")
				return
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tMODE\tURL\tMERCHANT ACCOUNT\tCREATED\tREMOVED")
			for _, v := range views {
				removed := "-"
				if v.RemovedAt != nil {
					removed = v.RemovedAt.UTC().Format(time.RFC3339)
					if v.ReplacedBy != "" {
						removed += " (replaced by " + v.ReplacedBy + ")"
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.Kind, v.Mode, v.URL, v.MerchantAccount,
					v.CreatedAt.UTC().Format(time.RFC3339), removed)
			}
			tw.Flush()
		})
	}
}

func connectorsRemove(fs *flag.FlagSet) action {
	id := fs.String("account", "", "account id (required)")
	conn := fs.String("id", "", "the connector's id, conn_... (required)")
	return func(ctx context.Context, e *env) error {
		if err := required([2]string{"account", *id}, [2]string{"id", *conn}); err != nil {
			return err
		}
		d, err := e.accountDeps(ctx, *id)
		if err != nil {
			return err
		}
		repo := connectors.NewRepo(d.Store, nil, d.Clock)
		if _, err := repo.Get(ctx, *id, *conn); err != nil {
			if apierr.Is(err, apierr.NotFound) {
				return fmt.Errorf("account %s has no connector %s", *id, *conn)
			}
			return err
		}
		var removed connectors.Connector
		err = e.audited(ctx, *id, "connector.remove", *conn, "", func(ctx context.Context) (string, error) {
			removed, err = repo.Remove(ctx, *id, *conn)
			return "", err
		})
		if err != nil {
			return err
		}
		return e.print(struct {
			Connector connectorView `json:"connector"`
		}{viewOf(removed)}, func(w io.Writer) {
			fmt.Fprintf(w, "removed %s (%s %s): new %s payments of the account get no connector until the next set\n",
				removed.ID, removed.Kind, removed.Mode, removed.Mode)
		})
	}
}
