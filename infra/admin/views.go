package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
)

// keyView is what the CLI shows of a key: never the hash (auth.Key carries
// it), and the secret only in the response of the command that created it.
type keyView struct {
	ID             string     `json:"id"`
	AccountID      string     `json:"account_id"`
	Kind           string     `json:"kind"`
	Mode           string     `json:"mode"`
	Prefix         string     `json:"prefix"`
	Name           string     `json:"name,omitempty"`
	AllowedOrigins []string   `json:"allowed_origins,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	RevokedAt      *time.Time `json:"revoked_at,omitempty"`
}

func viewKey(k *auth.Key) keyView {
	return keyView{
		ID: k.ID, AccountID: k.AccountID, Kind: string(k.Kind), Mode: string(k.Mode), Prefix: k.Prefix,
		Name: k.Name, AllowedOrigins: k.AllowedOrigins, CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt,
	}
}

func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func writeAccount(w io.Writer, a *accounts.Account) {
	fmt.Fprintf(w, "account %s\n", a.ID)
	rows := [][2]string{
		{"name", a.Name}, {"mode", string(a.Mode)}, {"merchant account", a.MerchantAccount},
		{"country", a.Country}, {"email", a.Email}, {"default version", a.DefaultVersion},
		{"created", stamp(&a.CreatedAt)},
	}
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(w, "  %-17s %s\n", r[0]+":", r[1])
		}
	}
}

// writeSecret shows a new key's secret, the one time it is ever shown.
func writeSecret(w io.Writer, k *auth.Key, secret string) {
	fmt.Fprintf(w, "new %s key %s", k.Kind, k.ID)
	if len(k.AllowedOrigins) > 0 {
		fmt.Fprintf(w, " (origins: %s)", strings.Join(k.AllowedOrigins, ", "))
	}
	fmt.Fprintf(w, "\n  secret: %s\n  shown only now: only its hash is stored. Keep it safe.\n", secret)
}
