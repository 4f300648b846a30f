package awsapp

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// clientOver is the SDK's HTTP client over rt (app.Config.Transport: the
// local gateway's fault injection).
func clientOver(rt http.RoundTripper) aws.HTTPClient { return &http.Client{Transport: rt} }
