// Command processor-notices is the ProcessorNoticesFunction Lambda: the card
// processors' notifications (Adyen's, at /webhooks/adyen/{connector_id}) about
// the payments their connectors made.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/processornotices"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(processornotices.BuildProcessorNotices, awsapp.Open, app.WithSecretBox(kmsapp.OpenSecretBox))
}
