// Package walletpaywire builds the wallet sessions function: Apple Pay and
// Google Pay sessions and decodes, with the sandbox's wallets (paytokens)
// behind test keys. It seals decoded cards to the direct
// payment keys with a sealer keyring (public halves only: no KMS client is
// linked), and reads the live wallet configuration from its SecureString
// parameter when WALLET_SECRETS_PARAM names one.
package walletpaywire

import (
	"context"
	"fmt"
	"strings"

	"github.com/paygate/paygate/shared/platform/wiring/connect"

	"github.com/paygate/paygate/shared/pay/direct"
	"github.com/paygate/paygate/shared/pay/direct/cse"
	"github.com/paygate/paygate/shared/pay/walletpay"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// WalletSessions builds the WalletSessionsFunction.
func WalletSessions(d *app.Deps) (httpapi.Group, error) {
	getenv := d.Config.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var live walletpay.LiveSource
	if name := getenv(walletpay.SecretsParamVar); name != "" {
		if d.Parameters == nil {
			return httpapi.Group{}, fmt.Errorf("%s needs AWS (STORE=dynamodb)", walletpay.SecretsParamVar)
		}
		read := d.Parameters.String(name)
		live = walletpay.Refreshing(func(ctx context.Context) (string, error) {
			v, err := read(ctx)
			if err != nil && strings.Contains(err.Error(), "ParameterNotFound") {
				return "", walletpay.ErrLiveNotConfigured // no parameter: no live wallets
			}
			return v, err
		}, nil, d.Clock)
	}
	tokens := direct.NewTokens(d.Store, cse.NewSealer(d.Store, d.Clock))
	svc := walletpay.New(walletpay.Config{Store: d.Store, Tokens: tokens, Live: live, Test: connect.TestWallets(), Clock: d.Clock, Log: d.Log})
	return svc.Group(), nil
}
