package walletpay

import (
	"context"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
)

// SecretsParamVar names the environment variable holding the SecureString
// parameter of the live wallet configuration (LiveSecrets as JSON):
// /paygate/<env>/wallet-secrets in infra/stacks/wallet.yaml.
const SecretsParamVar = "WALLET_SECRETS_PARAM"

// LiveSecrets is the parameter's JSON. Each key and certificate is PEM.
type LiveSecrets struct {
	AppleMerchantIdentity *struct {
		Certificate string `json:"certificate"`
		PrivateKey  string `json:"private_key"`
	} `json:"apple_merchant_identity,omitempty"`
	// AppleProcessing are the payment processing certificates and keys,
	// the current one and any still receiving tokens during a rotation.
	AppleProcessing []struct {
		Certificate string `json:"certificate"`
		PrivateKey  string `json:"private_key"`
	} `json:"apple_processing,omitempty"`
	GoogleMerchantID    string   `json:"google_merchant_id,omitempty"`
	GoogleRecipientKeys []string `json:"google_recipient_keys,omitempty"`
}

// ParseLive reads the live configuration; gw tunes the Apple gateway client
// (nil: the system's roots and dialer).
func ParseLive(raw string, gw *applepay.GatewayOptions) (*Live, error) {
	var s LiveSecrets
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, fmt.Errorf("walletpay: live secrets: %w", err)
	}
	l := &Live{GoogleMerchantID: s.GoogleMerchantID}
	if s.AppleMerchantIdentity != nil {
		id, err := applepay.NewIdentity([]byte(s.AppleMerchantIdentity.Certificate), []byte(s.AppleMerchantIdentity.PrivateKey))
		if err != nil {
			return nil, err
		}
		opts := applepay.GatewayOptions{}
		if gw != nil {
			opts = *gw
		}
		l.AppleIdentity, l.AppleGateway = &id, applepay.NewGateway(id, opts)
	}
	for i, p := range s.AppleProcessing {
		k, err := applepay.NewProcessingKey([]byte(p.Certificate), []byte(p.PrivateKey))
		if err != nil {
			return nil, fmt.Errorf("walletpay: apple_processing[%d]: %w", i, err)
		}
		l.AppleKeys = append(l.AppleKeys, k)
	}
	for i, p := range s.GoogleRecipientKeys {
		k, err := ecPrivate([]byte(p))
		if err != nil {
			return nil, fmt.Errorf("walletpay: google_recipient_keys[%d]: %w", i, err)
		}
		l.GoogleRecipientKeys = append(l.GoogleRecipientKeys, k)
	}
	return l, nil
}

func ecPrivate(p []byte) (*ecdh.PrivateKey, error) {
	b, _ := pem.Decode(p)
	if b == nil {
		return nil, errors.New("no PEM block")
	}
	var k any
	var err error
	if k, err = x509.ParsePKCS8PrivateKey(b.Bytes); err != nil {
		if k, err = x509.ParseECPrivateKey(b.Bytes); err != nil {
			return nil, err
		}
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("not an EC key")
	}
	return ec.ECDH()
}

// ErrLiveNotConfigured is a live configuration that does not exist (no
// parameter: the platform takes no live wallet payments).
var ErrLiveNotConfigured = errors.New("walletpay: live wallets are not configured")

// RefreshEvery is how often the live configuration is read again, so a
// rotated key or certificate is used without a deployment.
const RefreshEvery = 10 * time.Minute

// Refreshing is a LiveSource over read (one GetParameter): read on first
// use, then again every RefreshEvery; a failed refresh keeps the last good
// configuration.
func Refreshing(read func(context.Context) (string, error), gw *applepay.GatewayOptions, clock func() time.Time) LiveSource {
	if clock == nil {
		clock = time.Now
	}
	var mu sync.Mutex
	var cur *Live
	var at time.Time
	return func(ctx context.Context) (*Live, error) {
		mu.Lock()
		defer mu.Unlock()
		if cur != nil && clock().Sub(at) < RefreshEvery {
			return cur, nil
		}
		raw, err := read(ctx)
		if errors.Is(err, ErrLiveNotConfigured) {
			return nil, err
		}
		if err == nil {
			var l *Live
			if l, err = ParseLive(raw, gw); err == nil {
				cur, at = l, clock()
				return cur, nil
			}
		}
		if cur != nil {
			return cur, nil
		}
		return nil, err
	}
}
