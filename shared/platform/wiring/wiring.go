// Package wiring lists every area once (their group declarations live in the
// areas, see shared/platform/registry) and pairs each declared group with its builder,
// for the local gateway (make run) and the tests that derive the template's
// routes and policies and the OpenAPI paths from the declarations. The
// builders live per area (platformwire, gatewire, checkoutwire, ...): a Lambda main
// imports only its own area's package, so it links only what it serves.
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
	"github.com/paygate/paygate/shared/pay/splits"
	pay "github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/pay/walletpay"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring/balancewire"
	"github.com/paygate/paygate/shared/platform/wiring/beneficiarywire"
	"github.com/paygate/paygate/shared/platform/wiring/checkoutwire"
	"github.com/paygate/paygate/shared/platform/wiring/customerwire"
	"github.com/paygate/paygate/shared/platform/wiring/dashwire"
	"github.com/paygate/paygate/shared/platform/wiring/directwire"
	"github.com/paygate/paygate/shared/platform/wiring/disputewire"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
	"github.com/paygate/paygate/shared/platform/wiring/invoicewire"
	"github.com/paygate/paygate/shared/platform/wiring/linkwire"
	"github.com/paygate/paygate/shared/platform/wiring/paywire"
	"github.com/paygate/paygate/shared/platform/wiring/platformwire"
	"github.com/paygate/paygate/shared/platform/wiring/walletpaywire"
	"github.com/paygate/paygate/shared/platform/wiring/walletwire"
	"github.com/paygate/paygate/shared/platform/wiring/webhookwire"
)

// Areas lists every area; adding an area is one line here.
func Areas() []registry.Area {
	return []registry.Area{health.Area, merchants.Area, catalog.Area, prepaid.Area, orders.Area, checkout.Area, webhooks.Area, wallet.Area, pay.Area, splits.Area, balance.Area, customers.Area, beneficiaries.Area, invoices.Area, links.Area, disputes.Area, direct.Area, walletpay.Area, dashboard.Area}
}

// builders are the builders by function logical id: exactly one per declared
// group, of the group's kind (Check). The map lives here, not in the per-area
// wire packages, because a map there would make every function of an area
// link every builder of that area.
var builders = map[string]any{
	health.HealthGroup.Function:               app.HTTPBuilder(platformwire.Health),
	merchants.MerchantsGroup.Function:         app.HTTPBuilder(platformwire.Merchants),
	catalog.CatalogGroup.Function:             app.HTTPBuilder(gatewire.GateCatalog),
	prepaid.BalanceGroup.Function:             app.HTTPBuilder(gatewire.GateBalance),
	orders.OrdersGroup.Function:               app.HTTPBuilder(gatewire.GateOrders),
	orders.FulfilmentGroup.Function:           app.SQSBuilder(gatewire.GateFulfilment),
	orders.ReconcilerGroup.Function:           TaskBuilder(gatewire.GateOrderReconciler),
	checkout.SessionsGroup.Function:           checkoutwire.CheckoutSessions,
	checkout.PaymentsGroup.Function:           checkoutwire.CheckoutPayments,
	checkout.ClientGroup.Function:             checkoutwire.CheckoutClient,
	checkout.TestHelpersGroup.Function:        checkoutwire.CheckoutTestHelpers,
	checkout.ExpirerGroup.Function:            TaskBuilder(checkoutwire.CheckoutSessionExpirer),
	webhooks.EndpointsGroup.Function:          app.HTTPBuilder(webhookwire.WebhookEndpoints),
	webhooks.EventsGroup.Function:             app.HTTPBuilder(webhookwire.Events),
	webhooks.PublisherGroup.Function:          app.StreamBuilder(webhookwire.WebhookPublisher),
	webhooks.SenderGroup.Function:             app.SQSBuilder(webhookwire.WebhookSender),
	wallet.WalletGroup.Function:               app.HTTPBuilder(walletwire.Wallet),
	wallet.ConfirmationsGroup.Function:        app.SQSBuilder(walletwire.WalletConfirmations),
	wallet.ExpirerGroup.Function:              TaskBuilder(walletwire.WalletExpirer),
	pay.TransactionsGroup.Function:            app.HTTPBuilder(paywire.Transactions),
	pay.ModificationsGroup.Function:           app.HTTPBuilder(paywire.CheckoutModifications),
	pay.ExpirerGroup.Function:                 TaskBuilder(paywire.AuthorizationExpirer),
	splits.SplitRequestsGroup.Function:        app.HTTPBuilder(paywire.SplitRequests),
	balance.BalanceGroup.Function:             app.HTTPBuilder(balancewire.MerchantBalance),
	balance.PayoutsGroup.Function:             app.SQSBuilder(balancewire.PayoutsSender),
	balance.SettlementGroup.Function:          TaskBuilder(balancewire.Settlement),
	disputes.DisputesGroup.Function:           app.HTTPBuilder(disputewire.Disputes),
	disputes.SweeperGroup.Function:            TaskBuilder(disputewire.DisputeSweeper),
	customers.CustomersGroup.Function:         app.HTTPBuilder(customerwire.Customers),
	direct.PaymentsGroup.Function:             app.HTTPBuilder(directwire.DirectPayments),
	walletpay.SessionsGroup.Function:          app.HTTPBuilder(walletpaywire.WalletSessions),
	links.APIGroup.Function:                   app.HTTPBuilder(linkwire.PaymentLinks),
	links.PageGroup.Function:                  app.HTTPBuilder(linkwire.HostedPage),
	links.ExpirerGroup.Function:               TaskBuilder(linkwire.PaymentLinkExpirer),
	beneficiaries.BeneficiariesGroup.Function: app.HTTPBuilder(beneficiarywire.Beneficiaries),
	beneficiaries.PaymentOrdersGroup.Function: app.SQSBuilder(beneficiarywire.PaymentOrdersSender),
	invoices.InvoicesGroup.Function:           app.HTTPBuilder(invoicewire.Invoices),
	invoices.ExpiryGroup.Function:             TaskBuilder(invoicewire.InvoiceExpiry),
	dashboard.DashboardGroup.Function:         app.HTTPBuilder(dashwire.Dashboard),
}

// TaskBuilder builds a scheduled function's task.
type TaskBuilder = func(*app.Deps) (func(context.Context) error, error)

// HTTP lists every HTTP function group's builder, in declaration order.
func HTTP() []app.HTTPBuilder {
	var out []app.HTTPBuilder
	for _, g := range registry.Groups(Areas()) {
		if b, ok := builders[g.Function].(app.HTTPBuilder); ok && g.Kind() == "http" {
			out = append(out, b)
		}
	}
	return out
}

// SQS lists every queue consumer by logical function id and queue.
func SQS() []Consumer {
	var out []Consumer
	for _, g := range registry.Groups(Areas()) {
		if b, ok := builders[g.Function].(app.SQSBuilder); ok && g.Kind() == "sqs" {
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
		if b, ok := builders[g.Function].(TaskBuilder); ok && g.Kind() == "schedule" {
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
		if b, ok := builders[g.Function].(app.StreamBuilder); ok && g.Kind() == "stream" {
			out = append(out, StreamConsumer{Function: g.Function, Table: g.Streams, Timeout: g.FunctionTimeout(), Build: b})
		}
	}
	return out
}

// Check reports declarations that break the registry's rules and groups
// whose builder is missing or of another kind than the group.
func Check() []error {
	errs := registry.Check(Areas())
	declared := map[string]bool{}
	for _, g := range registry.Groups(Areas()) {
		declared[g.Function] = true
		var ok bool
		switch b := builders[g.Function]; g.Kind() {
		case "http":
			_, ok = b.(app.HTTPBuilder)
		case "sqs":
			_, ok = b.(app.SQSBuilder)
		case "schedule":
			_, ok = b.(TaskBuilder)
		case "stream":
			_, ok = b.(app.StreamBuilder)
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s: no %s builder in wiring", g.Function, g.Kind()))
		}
	}
	for fn := range builders {
		if !declared[fn] {
			errs = append(errs, fmt.Errorf("wiring builds %s, which no area declares", fn))
		}
	}
	return errs
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
