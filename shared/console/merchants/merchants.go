// Package merchants serves the calling account's merchant details (spec
// §4.5, Merchants).
package merchants

import (
	"time"

	"github.com/paygate/paygate/shared/platform/accounts"
)

// Kind is the resource kind for version changes.
const Kind = "merchant"

// Details is the merchant details resource.
type Details struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	MerchantAccount string            `json:"merchant_account"`
	Livemode        bool              `json:"livemode"`
	Country         string            `json:"country,omitempty"`
	Email           string            `json:"email,omitempty"`
	DefaultVersion  string            `json:"default_version"`
	CreatedAt       time.Time         `json:"created_at"`
	Metadata        map[string]string `json:"metadata"`
}

// FromAccount is the public view of an account.
func FromAccount(a *accounts.Account) Details {
	md := a.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return Details{
		ID: a.ID, Name: a.Name, MerchantAccount: a.MerchantAccount, Livemode: a.Mode == accounts.Live,
		Country: a.Country, Email: a.Email, DefaultVersion: a.DefaultVersion, CreatedAt: a.CreatedAt, Metadata: md,
	}
}
