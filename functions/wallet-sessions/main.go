// Command wallet-sessions is the WalletSessionsFunction Lambda: Apple Pay
// merchant sessions and Google Pay payment data requests, and the decoding
// of their tokens into single-use payment tokens.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/pay/walletpay"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(walletpay.BuildWalletSessions, awsapp.Open) }
