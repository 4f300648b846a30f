// Package wiring lists every area once (their group declarations live in the
// areas, see shared/platform/registry) and pairs each declared group with its
// builder, for the local gateway (make run) and the tests that derive the
// template's routes and policies and the OpenAPI paths from the
// declarations. The builders live in their areas, one per function, named
// Build<Function> (orders.BuildGateOrders builds GateOrdersFunction:
// TestBuildersAreNamedForTheirFunction); they are paired with their groups
// here, in typed tables per kind of function. A Lambda main imports only its
// own area, so it links only what it serves.
package wiring

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/console/merchants"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/customers"
	"github.com/paygate/paygate/shared/pay/direct"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/processornotices"
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/pay/walletpay"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
)

// Areas lists every area; adding an area is one line here.
func Areas() []registry.Area {
	return []registry.Area{health.Area, merchants.Area, catalog.Area, prepaid.Area, orders.Area, checkout.Area, webhooks.Area, wallet.Area, transactions.Area, splits.Area, balance.Area, customers.Area, beneficiaries.Area, invoices.Area, links.Area, disputes.Area, direct.Area, walletpay.Area, dashboard.Area, processornotices.Area}
}

// The builders by function logical id, one table per kind of function, so
// a builder of the wrong kind does not compile; Check holds that every
// declared group has exactly one, in the table of its kind. The tables live
// here, not in the areas, because a table there would make every function
// of an area link every builder of that area.
var (
	httpBuilders = map[string]app.HTTPBuilder{
		health.HealthGroup.Function:               BuildHealth,
		merchants.MerchantsGroup.Function:         merchants.BuildMerchants,
		catalog.CatalogGroup.Function:             catalog.BuildGateCatalog,
		prepaid.BalanceGroup.Function:             prepaid.BuildGateBalance,
		orders.OrdersGroup.Function:               orders.BuildGateOrders,
		checkout.SessionsGroup.Function:           checkout.BuildCheckoutSessions,
		checkout.PaymentsGroup.Function:           checkout.BuildCheckoutPayments,
		checkout.ClientGroup.Function:             checkout.BuildCheckoutClient,
		checkout.TestHelpersGroup.Function:        checkout.BuildCheckoutTestHelpers,
		webhooks.EndpointsGroup.Function:          webhooks.BuildWebhookEndpoints,
		webhooks.EventsGroup.Function:             webhooks.BuildEvents,
		wallet.WalletGroup.Function:               wallet.BuildWallet,
		transactions.TransactionsGroup.Function:   transactions.BuildTransactions,
		transactions.ModificationsGroup.Function:  transactions.BuildCheckoutModifications,
		splits.SplitRequestsGroup.Function:        splits.BuildSplitRequests,
		balance.BalanceGroup.Function:             balance.BuildMerchantBalance,
		disputes.DisputesGroup.Function:           disputes.BuildDisputes,
		customers.CustomersGroup.Function:         customers.BuildCustomers,
		direct.PaymentsGroup.Function:             direct.BuildDirectPayments,
		walletpay.SessionsGroup.Function:          walletpay.BuildWalletSessions,
		links.APIGroup.Function:                   links.BuildPaymentLinks,
		links.PageGroup.Function:                  links.BuildHostedPage,
		beneficiaries.BeneficiariesGroup.Function: beneficiaries.BuildBeneficiaries,
		invoices.InvoicesGroup.Function:           invoices.BuildInvoices,
		dashboard.DashboardGroup.Function:         dashboard.BuildDashboard,
		processornotices.NoticesGroup.Function:    processornotices.BuildProcessorNotices,
	}
	sqsBuilders = map[string]app.SQSBuilder{
		orders.FulfilmentGroup.Function:           orders.BuildGateFulfilment,
		webhooks.SenderGroup.Function:             webhooks.BuildWebhookSender,
		wallet.ConfirmationsGroup.Function:        wallet.BuildWalletConfirmations,
		balance.PayoutsGroup.Function:             balance.BuildPayoutsSender,
		beneficiaries.PaymentOrdersGroup.Function: beneficiaries.BuildPaymentOrdersSender,
	}
	taskBuilders = map[string]TaskBuilder{
		orders.ReconcilerGroup.Function:    orders.BuildGateOrderReconciler,
		checkout.ExpirerGroup.Function:     checkout.BuildCheckoutSessionExpirer,
		wallet.ExpirerGroup.Function:       wallet.BuildWalletExpirer,
		transactions.ExpirerGroup.Function: transactions.BuildAuthorizationExpirer,
		balance.SettlementGroup.Function:   beneficiaries.BuildSettlement,
		disputes.SweeperGroup.Function:     disputes.BuildDisputeSweeper,
		links.ExpirerGroup.Function:        links.BuildPaymentLinkExpirer,
		invoices.ExpiryGroup.Function:      invoices.BuildInvoiceExpiry,
	}
	streamBuilders = map[string]app.StreamBuilder{
		webhooks.PublisherGroup.Function: webhooks.BuildWebhookPublisher,
	}
)

// BuildHealth builds the HealthFunction's routes for the local gateway and
// the tests. It is the one builder outside an area: its Lambda main wires
// the routes without package app, so the health package must not import app
// (the binary links no store).
func BuildHealth(*app.Deps) (httpapi.Group, error) { return health.Group(), nil }

// TaskBuilder builds a scheduled function's task.
type TaskBuilder = func(*app.Deps) (func(context.Context) error, error)

// HTTP lists every HTTP function group's builder, in declaration order.
func HTTP() []app.HTTPBuilder {
	var out []app.HTTPBuilder
	for _, g := range registry.Groups(Areas()) {
		if b, ok := httpBuilders[g.Function]; ok && g.Kind() == "http" {
			out = append(out, b)
		}
	}
	return out
}

// SQS lists every queue consumer by logical function id and queue.
func SQS() []Consumer {
	var out []Consumer
	for _, g := range registry.Groups(Areas()) {
		if b, ok := sqsBuilders[g.Function]; ok && g.Kind() == "sqs" {
			out = append(out, Consumer{Function: g.Function, Queue: g.Consumes, Timeout: g.FunctionTimeout(), Build: b})
		}
	}
	return out
}

// Periodic lists the scheduled functions (a Schedule event in template.yaml),
// for the local gateway to run every Every.
func Periodic() []Task {
	var out []Task
	for _, g := range registry.Groups(Areas()) {
		if b, ok := taskBuilders[g.Function]; ok && g.Kind() == "schedule" {
			out = append(out, Task{Function: g.Function, Every: g.Every, Build: b})
		}
	}
	return out
}

// Streams lists every stream consumer by logical function id and the table
// whose stream it consumes, for the local gateway to feed from the embedded
// change feed.
func Streams() []StreamConsumer {
	var out []StreamConsumer
	for _, g := range registry.Groups(Areas()) {
		if b, ok := streamBuilders[g.Function]; ok && g.Kind() == "stream" {
			out = append(out, StreamConsumer{Function: g.Function, Table: g.Streams, Timeout: g.FunctionTimeout(), Build: b})
		}
	}
	return out
}

// Check reports declarations that break the registry's rules and groups
// whose builder is missing or of another kind than the group.
func Check() []error {
	errs := registry.Check(Areas())
	tables := map[string]map[string]bool{"http": keys(httpBuilders), "sqs": keys(sqsBuilders),
		"schedule": keys(taskBuilders), "stream": keys(streamBuilders)}
	declared := map[string]bool{}
	for _, g := range registry.Groups(Areas()) {
		declared[g.Function] = true
		if !tables[g.Kind()][g.Function] {
			errs = append(errs, fmt.Errorf("%s: no %s builder in wiring", g.Function, g.Kind()))
		}
	}
	for kind, fns := range tables {
		for fn := range fns {
			if !declared[fn] {
				errs = append(errs, fmt.Errorf("wiring builds %s (%s), which no area declares", fn, kind))
			}
		}
	}
	return errs
}

func keys[B any](m map[string]B) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// Task is a scheduled function.
type Task struct {
	Function string // logical id in template.yaml
	Every    time.Duration
	Build    TaskBuilder
}

// Consumer is a queue consumer function.
type Consumer struct {
	Function string        // logical id in template.yaml
	Queue    string        // logical queue name
	Timeout  time.Duration // the function's (registry.Group.FunctionTimeout)
	Build    app.SQSBuilder
}

// StreamConsumer is a stream consumer function.
type StreamConsumer struct {
	Function string        // logical id in template.yaml
	Table    string        // logical streamed table
	Timeout  time.Duration // the function's (registry.Group.FunctionTimeout)
	Build    app.StreamBuilder
}
