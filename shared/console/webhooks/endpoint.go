package webhooks

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"
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
// the sender reads them to sign. They are stored sealed (shared/domain/secretbox:
// a KMS data key in AWS, a key file locally), never logged: an endpoint read
// from the store holds them sealed (or in clear, from a record of before
// sealing, which its next write seals), and only the sender opens them
// (Service.Opened), so no other function needs the key.
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
	// Format is how deliveries are shaped: "" (FormatPaygate) or
	// FormatAdyen, whose Secret is the HMAC key in hex. Fixed at creation.
	Format string `json:"format,omitempty"`
	Secret string `json:"secret"`
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

// Subscribed reports whether the endpoint takes events of type t now. An
// Adyen-format endpoint takes only the types Adyen has a code for, "*"
// included.
func (e *Endpoint) Subscribed(t string) bool {
	if e.Disabled || (e.Format == FormatAdyen && !adyennotify.Delivers(t)) {
		return false
	}
	return slices.Contains(e.EnabledEvents, Wildcard) || slices.Contains(e.EnabledEvents, t)
}

// Formats of deliveries.
const (
	// FormatPaygate: this service's envelope ({id, type, created, data}),
	// signed in the Paygate-Signature header.
	FormatPaygate = "paygate"
	// FormatAdyen: Adyen's NotificationRequest, each item HMAC-signed
	// (package adyennotify), done only when answered "[accepted]".
	FormatAdyen = adyennotify.Format
)

// format is e's format by name ("" is the default, FormatPaygate).
func (e *Endpoint) format() string {
	if e.Format == "" {
		return FormatPaygate
	}
	return e.Format
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
	Format         string            `json:"format"`
	Livemode       bool              `json:"livemode"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
}

// WithSecret is the answer of create and roll-secret: the view and the
// secret (an Adyen-format endpoint's hmac_key instead), shown this once.
type WithSecret struct {
	View
	Secret  string `json:"secret,omitempty"`
	HMACKey string `json:"hmac_key,omitempty"`
}

// Shown is the secret the answer shows, whatever its name.
func (w *WithSecret) Shown() string {
	if w.HMACKey != "" {
		return w.HMACKey
	}
	return w.Secret
}

// withSecret is e's view with its current secret under the name its format
// gives it.
func (e *Endpoint) withSecret() *WithSecret {
	if e.Format == FormatAdyen {
		return &WithSecret{View: e.View(), HMACKey: e.Secret}
	}
	return &WithSecret{View: e.View(), Secret: e.Secret}
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
		Disabled: e.Disabled, DisabledReason: optional(e.DisabledReason), Format: e.format(), Livemode: e.Livemode,
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
