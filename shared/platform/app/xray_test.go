package app

import (
	"context"
	"testing"
)

// A function opened where Lambda runs an X-Ray daemon has its SDK config
// (every client: DynamoDB, and SQS through sqsapp) traced; elsewhere not.
func TestSDKClientsTracedWhenLambdaTraces(t *testing.T) {
	for _, daemon := range []string{"", "169.254.79.129:2000"} {
		env := map[string]string{
			"STORE": "dynamodb", "DYNAMODB_ENDPOINT": "http://127.0.0.1:1", "AWS_XRAY_DAEMON_ADDRESS": daemon,
			"TABLE_ACCOUNTS": "a", "TABLE_IDEMPOTENCY": "i", "TABLE_SESSIONS": "s", "TABLE_ORDERS": "o",
			"TABLE_PAYMENTS": "p", "TABLE_LEDGER": "l", "TABLE_CATALOG": "c", "TABLE_EVENTS": "e",
		}
		cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		d, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("daemon %q: %v", daemon, err)
		}
		if got, want := len(d.AWS.APIOptions), map[bool]int{false: 0, true: 1}[daemon != ""]; got != want {
			t.Errorf("daemon %q: %d SDK middlewares registered, want %d", daemon, got, want)
		}
		d.Close()
	}
}
