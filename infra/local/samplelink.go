package main

import (
	"context"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/listing"
)

// The banner ends with a payment link of the sandbox account, so a person
// can open it and pay with a test card at once. Restarts reuse the link
// while it is active and still at this address (PORT may change), else make
// a new one.

// sampleLinkRef is the order reference of make run's sample links.
const sampleLinkRef = "make-run-sample"

// sampleLinkExpiry is how long a new sample link lasts.
const sampleLinkExpiry = 7 * 24 * time.Hour

func ensureSampleLink(ctx context.Context, d *app.Deps, accountID, baseURL string) (string, error) {
	svc := links.New(links.Config{Store: d.Store, Accounts: d.Accounts, Clock: d.Clock, Log: d.Log})
	recent, _, err := svc.ByOrderReference(ctx, accountID, sampleLinkRef, listing.Params{Limit: 1})
	if err != nil {
		return "", err
	}
	if len(recent) == 1 && recent[0].Status == links.StatusActive && strings.HasPrefix(recent[0].URL, baseURL+"/") {
		return recent[0].URL, nil
	}
	a, err := d.Accounts.Get(ctx, accountID)
	if err != nil {
		return "", err
	}
	now := d.Clock()
	l, err := svc.Create(ctx, links.Caller{AccountID: accountID, MerchantAccount: a.MerchantAccount, TestMode: true, Now: now, BaseURL: baseURL},
		links.CreateRequest{Amount: &money.Amount{Value: 2500, Currency: "USD"}, Description: "Sample order: a gift card (make run)",
			OrderReference: links.Str(sampleLinkRef), ExpiresAt: links.Str(now.Add(sampleLinkExpiry).UTC().Format(time.RFC3339))})
	if err != nil {
		return "", err
	}
	return l.URL, nil
}
