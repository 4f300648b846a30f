package gatesupplier

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/supplier"
)

func TestSandboxRules(t *testing.T) {
	ctx := context.Background()
	card := supplier.Product{ID: 1, Slug: "steam-10", Type: "redeem_card", Currency: "USD"}
	topup := supplier.Product{ID: 2, Slug: "mobile-topup", Type: "direct_top_up", Currency: "KZT"}
	cases := []struct {
		name   string
		req    supplier.Request
		status supplier.Status
		reason string
	}{
		{"card completes", supplier.Request{OrderID: "o1", Product: card, Quantity: 1}, supplier.Completed, ""},
		{"phone 0000 fails", supplier.Request{OrderID: "o2", Product: topup, CustomerAccount: map[string]string{"phone_number": "+77010000000"}}, supplier.Failed, "invalid_account"},
		{"out of stock", supplier.Request{OrderID: "o3", Product: supplier.Product{Slug: "gift-out-of-stock", Type: "redeem_card"}}, supplier.Failed, "out_of_stock"},
		{"fail marker", supplier.Request{OrderID: "o4", Product: card, ExternalRef: "x-fail-1"}, supplier.Failed, "vendor_declined"},
		{"top-up completes", supplier.Request{OrderID: "o5", Product: topup, CustomerAccount: map[string]string{"phone_number": "+77011234567"}}, supplier.Completed, ""},
	}
	s := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Fulfil(ctx, c.req)
			require.NoError(t, err)
			require.NoError(t, res.Validate())
			require.Equal(t, c.status, res.Status)
			require.Equal(t, c.reason, res.Reason)
			require.Equal(t, VendorOrderID(c.req.OrderID), res.VendorOrderID)
			again, err := s.Fulfil(ctx, c.req)
			require.NoError(t, err)
			require.Equal(t, res, again, "same order, same answer")
		})
	}
}

func TestSandboxPendingThenCompleted(t *testing.T) {
	s := New()
	req := supplier.Request{OrderID: "p1", Product: supplier.Product{Type: "direct_transfer"}, ExternalRef: "ref-pending"}
	for i := 0; i < 2; i++ {
		res, err := s.Fulfil(context.Background(), req)
		require.NoError(t, err)
		require.Equal(t, supplier.Pending, res.Status, "poll %d", i+1)
		require.NotEmpty(t, res.VendorOrderID)
	}
	res, err := s.Fulfil(context.Background(), req)
	require.NoError(t, err)
	require.Equal(t, supplier.Completed, res.Status)
	require.Regexp(t, `^TRF-[0-9A-F]{16}$`, res.Content["receipt"])
	require.Equal(t, s.Deliverable(req), res.Content, "a forced completion delivers what the vendor would")
}

func TestDeliverablePerUnit(t *testing.T) {
	c := New().Deliverable(supplier.Request{OrderID: "q", Product: supplier.Product{Type: "redeem_card"}, Quantity: 3})
	for _, k := range []string{"voucher_code", "pin", "serial", "voucher_code_2", "pin_3", "serial_3", "vendor_order_id"} {
		require.NotEmpty(t, c[k], k)
	}
	require.Regexp(t, `^SBX-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$`, c["voucher_code"])
	require.Regexp(t, `^[0-9]{8}$`, c["pin"])
	require.NotEqual(t, c["voucher_code"], c["voucher_code_2"])
	require.Empty(t, c["voucher_code_4"])
}
