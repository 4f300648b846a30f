package webhooks

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"
)

// KindEndpoint is the resource kind of webhook endpoints (version changes).
const KindEndpoint = "webhook_endpoint"

// MaxEndpoints is how many endpoints one account may hold (both modes
// together): each event fans out to every subscribed endpoint, so the bound
// is also the fan-out's.
const MaxEndpoints = 16

// Limits of an endpoint's fields.
const (
	MaxDescriptionLen = 500
	MaxEnabledEvents  = 64 // more than the catalogue; each entry must be known
	DefaultExpireOld  = 24 * time.Hour
	MaxExpireOld      = 7 * 24 * time.Hour
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// Endpoint is a stored endpoint. Secret and PrevSecret never leave the
// service through the API after the answer that created them (create, roll);
// the sender reads them to sign. They are stored as they are, in the accounts
// table (encrypted at rest by DynamoDB's server-side encryption), never
// logged: an envelope key would need the SSM key in every function that
// reads endpoints, which the delivery pipeline can add when it decides how
// the sender gets its keys.
type Endpoint struct {
	ID             string            `json:"id"`
	AccountID      string            `json:"account_id"`
	URL            string            `json:"url"`
	EnabledEvents  []string          `json:"enabled_events"`
	APIVersion     string            `json:"api_version,omitempty"` // "": the account's default at delivery
	Description    string            `json:"description,omitempty"`
	Metadata       map[string]string `json:"metadata"`
	Disabled       bool              `json:"disabled"`
	DisabledReason string            `json:"disabled_reason,omitempty"` // set by the pipeline when it gives up
	// FailingSince is the first failed attempt after the last success (the
	// sender keeps it); failing for the schedule's MaxAge disables the endpoint.
	FailingSince *time.Time `json:"failing_since,omitempty"`
	Livemode     bool       `json:"livemode"`
	Secret       string     `json:"secret"`
	// PrevSecret keeps signing beside Secret until PrevExpiresAt (a roll).
	PrevSecret    string     `json:"prev_secret,omitempty"`
	PrevExpiresAt *time.Time `json:"prev_expires_at,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`

	version int64
}

// SigningSecrets are the secrets a delivery at now is signed with: the
// current one first, then the rolled-out one while it has not expired (the
// header then carries two v1=).
func (e *Endpoint) SigningSecrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PrevSecret != "" && e.PrevExpiresAt != nil && now.Before(*e.PrevExpiresAt) {
		out = append(out, e.PrevSecret)
	}
	return out
}

// Subscribed reports whether the endpoint takes events of type t now.
func (e *Endpoint) Subscribed(t string) bool {
	return !e.Disabled && (slices.Contains(e.EnabledEvents, Wildcard) || slices.Contains(e.EnabledEvents, t))
}

// View is the public form of an endpoint: no secret.
type View struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	URL            string            `json:"url"`
	EnabledEvents  []string          `json:"enabled_events"`
	APIVersion     *string           `json:"api_version"`
	Description    *string           `json:"description"`
	Metadata       map[string]string `json:"metadata"`
	Disabled       bool              `json:"disabled"`
	DisabledReason *string           `json:"disabled_reason"`
	Livemode       bool              `json:"livemode"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
}

// WithSecret is the answer of create and roll-secret: the view and the
// secret, shown this once.
type WithSecret struct {
	View
	Secret string `json:"secret"`
}

// Deleted is the answer of a delete.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// View renders e for the API.
func (e *Endpoint) View() View {
	md := e.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return View{
		ID: e.ID, Object: "webhook_endpoint", URL: e.URL, EnabledEvents: slices.Clone(e.EnabledEvents),
		APIVersion: optional(e.APIVersion), Description: optional(e.Description), Metadata: md,
		Disabled: e.Disabled, DisabledReason: optional(e.DisabledReason), Livemode: e.Livemode,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt,
	}
}

// newSecret is whsec_ and 32 random bytes in hex: 256 bits for the HMAC key
// (the whole string is the key, prefix included). Hex, not base64url: no
// "_" or "-" inside, so the string selects whole on a double click.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return SecretPrefix + hex.EncodeToString(b)
}
