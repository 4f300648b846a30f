package walletpay

import (
	"context"
	"fmt"
	"strings"

	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/connect"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildWalletSessions builds the WalletSessionsFunction: the test wallets
// behind test keys, and the live wallet configuration from its SecureString
// parameter when WALLET_SECRETS_PARAM names one. It seals decoded cards to
// the direct payment keys with a sealer keyring (public halves only: no KMS
// client is linked).
func BuildWalletSessions(d *app.Deps) (httpapi.Group, error) {
	getenv := d.Config.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var live LiveSource
	if name := getenv(SecretsParamVar); name != "" {
		if d.Parameters == nil {
			return httpapi.Group{}, fmt.Errorf("%s needs AWS (STORE=dynamodb)", SecretsParamVar)
		}
		read := d.Parameters.String(name)
		live = Refreshing(func(ctx context.Context) (string, error) {
			v, err := read(ctx)
			if err != nil && strings.Contains(err.Error(), "ParameterNotFound") {
				return "", ErrLiveNotConfigured // no parameter: no live wallets
			}
			return v, err
		}, nil, d.Clock)
	}
	tokens := wallettokens.NewSealingTokens(d.Store, d.Clock)
	return New(Config{Store: d.Store, Tokens: tokens, Live: live, Test: connect.TestWallets(), Clock: d.Clock, Log: d.Log}).Group(), nil
}
