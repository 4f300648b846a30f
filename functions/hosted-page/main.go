// Command hosted-page is the HostedPageFunction Lambda: the hosted payment
// page at a link's url and the calls its Drop-in makes to pay the link, the
// Drop-in's versioned files, and the sandbox 3-D Secure challenge screen.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() {
	app.StartHTTP(links.BuildHostedPage, awsapp.Open, app.WithCardKeys(kmsapp.Open), app.WithSecretBox(kmsapp.OpenSecretBox))
}
