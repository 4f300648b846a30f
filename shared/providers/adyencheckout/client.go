// Package adyencheckout is a card connector: an adapter of the card
// processor port (domain/cards) that speaks Adyen's Checkout API v71 over
// HTTPS. It makes this service a gateway in front of an Adyen merchant
// account: authorisations, 3-D Secure steps, captures, cancels and refunds
// go to Adyen, each with an Idempotency-Key derived from our own
// operation's, so our retries are Adyen's retries.
package adyencheckout

import (
	"net/http"
	"time"
)

// Config is one connector's connection.
type Config struct {
	// ID is the connector's id (logs, metrics); Account the account it
	// serves (it scopes the idempotency keys).
	ID, Account string
	// URL is the Checkout API's base, version included, without a
	// trailing slash: https://checkout-test.adyen.com/v71, or a local
	// gateway's http://127.0.0.1:8081/v2 playing Adyen.
	URL             string
	MerchantAccount string
	APIKey          string // sent as X-API-Key; never logged
	// EncryptionKey is the provider's client-side encryption public key (a
	// JWK, as JSON): card fields go to the provider encrypted to it. Empty:
	// they go as raw fields (a PCI-approved merchant account, or a test
	// environment that takes them).
	EncryptionKey string
	// Timeout bounds each call (0: DefaultTimeout); Client is the HTTP
	// client (nil: a new one).
	Timeout time.Duration
	Client  *http.Client
}

// DefaultTimeout bounds one call to the provider: well inside API
// Gateway's 30 s, with room for our own store writes after it.
const DefaultTimeout = 8 * time.Second
