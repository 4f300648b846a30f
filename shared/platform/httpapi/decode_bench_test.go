package httpapi_test

import (
	"testing"

	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Bodies as clients send them: a direct top-up order and an advanced-flow
// card payment with browser info, metadata and line items.
const (
	benchOrderBody = `{"product_id":131,"quantity":1,"external_ref":"order-2024-000123","currency_code":"USD",` +
		`"topup_request":{"amount":"25.00","customer_account":{"phone_number":"+15551234567","operator":"ACME"}},` +
		`"metadata":{"cart":"c-991","channel":"web"}}`
	benchPaymentBody = `{"merchantAccount":"TestMerchant","amount":{"value":12500,"currency":"EUR"},"reference":"order-42",` +
		`"returnUrl":"https://shop.example.com/checkout/return?order=42","countryCode":"NL","channel":"Web",` +
		`"shopperReference":"shopper-0042","shopperEmail":"s.hopper@example.com","shopperLocale":"nl-NL","shopperIP":"192.0.2.10",` +
		`"origin":"https://shop.example.com","storePaymentMethod":true,` +
		`"paymentMethod":{"type":"scheme","holderName":"S Hopper","encryptedCardNumber":"test_4111111111111111",` +
		`"encryptedExpiryMonth":"test_03","encryptedExpiryYear":"test_2030","encryptedSecurityCode":"test_737"},` +
		`"browserInfo":{"userAgent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",` +
		`"acceptHeader":"text/html,application/xhtml+xml","language":"nl-NL","colorDepth":24,"screenHeight":1080,"screenWidth":1920,` +
		`"timeZoneOffset":-60,"javaEnabled":false},` +
		`"metadata":{"cart":"c-991","campaign":"spring"},` +
		`"lineItems":[{"id":"1","description":"Shoes","quantity":1,"amountIncludingTax":10000,"taxPercentage":2100},` +
		`{"id":"2","description":"Socks","quantity":5,"amountIncludingTax":500,"taxPercentage":2100}]}`
)

// BenchmarkDecode measures the strict decoder on an order body and a
// checkout payment body (make bench prints it; no timing is asserted).
func BenchmarkDecode(b *testing.B) {
	b.Run("order", func(b *testing.B) {
		body := []byte(benchOrderBody)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			var in orders.CreateOrder
			if err := httpapi.DecodeStrict(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("payment", func(b *testing.B) {
		body := []byte(benchPaymentBody)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			var in checkout.PaymentRequest
			if err := httpapi.DecodeStrict(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
