// Package app builds a function's dependencies once, from the environment,
// and starts it: the only code main.go files call. The local gateway and the
// tests use the same constructors, so every runtime shares one wiring.
package app

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// Config is read from the environment; invalid values fail fast at start.
type Config struct {
	Store          string // "dynamodb" (Lambda) or "embedded" (make run, tests)
	DataDir        string // embedded store and queue files
	DynamoEndpoint string // DynamoDB Local; empty means AWS
	SQSEndpoint    string // moto; empty means AWS
	SSMEndpoint    string // moto (tests); empty means AWS
	Region         string
	Environment    string // dev, staging, prod, local
	LogLevel       slog.Level
	// FingerprintKey keys the idempotency fingerprints (HMAC-SHA256), from
	// IDEMPOTENCY_FINGERPRINT_KEY: required outside ENVIRONMENT=local; nil
	// locally, where the idempotency store's fixed dev key serves.
	FingerprintKey []byte
	Getenv         func(string) string
	// Transport carries the AWS clients' calls when set: only the local
	// gateway sets it, to inject faults (infra/chaos/faults). No variable
	// sets it, so a deployed function cannot.
	Transport http.RoundTripper
}

// FingerprintKeyEnv names the variable holding the idempotency fingerprint
// key, and MinFingerprintKey is its shortest accepted length.
const (
	FingerprintKeyEnv = "IDEMPOTENCY_FINGERPRINT_KEY"
	MinFingerprintKey = 32
)

// ConfigFromEnv reads the configuration.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Store:          getenv("STORE"),
		DataDir:        getenv("DATA_DIR"),
		DynamoEndpoint: getenv("DYNAMODB_ENDPOINT"),
		SQSEndpoint:    getenv("SQS_ENDPOINT"),
		SSMEndpoint:    getenv("SSM_ENDPOINT"),
		Region:         getenv("AWS_REGION"),
		Environment:    getenv("ENVIRONMENT"),
		Getenv:         getenv,
	}
	if c.Store == "" {
		c.Store = "dynamodb"
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.Environment == "" {
		c.Environment = "local"
	}
	switch c.Store {
	case "dynamodb":
	case "embedded":
		if c.DataDir == "" {
			c.DataDir = ".data"
		}
	default:
		return c, fmt.Errorf("STORE must be dynamodb or embedded, not %q", c.Store)
	}
	switch k := getenv(FingerprintKeyEnv); {
	case k != "" && len(k) < MinFingerprintKey:
		return c, fmt.Errorf("%s must be at least %d characters (openssl rand -hex 32)", FingerprintKeyEnv, MinFingerprintKey)
	case k != "":
		c.FingerprintKey = []byte(k)
	case c.Environment != "local":
		return c, fmt.Errorf("%s is required when ENVIRONMENT is %q (not local): it keys the idempotency fingerprints", FingerprintKeyEnv, c.Environment)
	}
	switch strings.ToLower(getenv("LOG_LEVEL")) {
	case "", "info":
		c.LogLevel = slog.LevelInfo
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "warn":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		return c, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error")
	}
	return c, nil
}
