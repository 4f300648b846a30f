// Package realservers is the one guard of tests that need a real server
// (DynamoDB Local, moto's SQS): without its endpoint a test skips on a
// developer's machine, and fails where REQUIRE_REAL_SERVERS=1 (make test,
// CI), so a run that must cover both adapters never passes by skipping.
package realservers

import (
	"os"
	"testing"
)

// Require is the variable that turns a missing server into a failure.
const Require = "REQUIRE_REAL_SERVERS"

// Endpoint returns the value of the environment variable env, the address of
// a server the test needs. When it is unset the test fails if Require is
// "1", and is skipped otherwise; start says how to start one.
func Endpoint(t testing.TB, env, start string) string {
	t.Helper()
	endpoint := os.Getenv(env)
	if endpoint != "" {
		return endpoint
	}
	if os.Getenv(Require) == "1" {
		t.Fatalf("%s is not set and %s=1 (start one: %s)", env, Require, start)
	}
	t.Skipf("%s is not set (start one: %s)", env, start)
	return ""
}
