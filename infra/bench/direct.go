package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/direct"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/go-jose/go-jose/v4"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/aws/kmskeys/kmstest"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// directFixture is a warm DirectPaymentsFunction in this process over the
// embedded store, with the sample account.
type directFixture struct {
	d     *app.Deps
	h     http.Handler
	n     int
	close func()
}

// newDirectFixture builds the function's group with keys (nil: the key file
// adapter, in memory, as make run's).
func newDirectFixture(ctx context.Context, keys func(*app.Deps) *cse.Keyring) (*directFixture, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-direct-")
	if err != nil {
		return nil, err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cleanup := func() { st.Close(); os.RemoveAll(dir) }
	d := app.WithStore(st, nil, nil, nil)
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		cleanup()
		return nil, err
	}
	var build = direct.BuildDirectPayments
	if keys != nil {
		build = func(d *app.Deps) (httpapi.Group, error) { return direct.BuildDirectPaymentsWith(d, keys(d)) }
	}
	g, err := build(d)
	if err != nil {
		cleanup()
		return nil, err
	}
	return &directFixture{d: d, h: d.Server(g), close: cleanup}, nil
}

// do serves one request in process and decodes its answer into out.
func (f *directFixture) do(method, path string, body []byte, want int, out any) error {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", sample.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		f.n++
		req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-direct-%d-%d", time.Now().UnixNano(), f.n))
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	if rec.Code != want {
		return fmt.Errorf("%s %s answered %d: %s", method, path, rec.Code, rec.Body.Bytes())
	}
	return json.Unmarshal(rec.Body.Bytes(), out)
}

// currentKey is the first key GET /v1/payments/direct/keys lists.
func (f *directFixture) currentKey() (string, *rsa.PublicKey, error) {
	var keys struct {
		Data []struct {
			KID string          `json:"kid"`
			JWK json.RawMessage `json:"jwk"`
		} `json:"data"`
	}
	if err := f.do(http.MethodGet, "/v1/payments/direct/keys", nil, http.StatusOK, &keys); err != nil {
		return "", nil, err
	}
	if len(keys.Data) == 0 {
		return "", nil, fmt.Errorf("no direct payment key")
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(keys.Data[0].JWK); err != nil {
		return "", nil, err
	}
	pub, ok := jwk.Key.(*rsa.PublicKey)
	if !ok {
		return "", nil, fmt.Errorf("key %s is a %T", keys.Data[0].KID, jwk.Key)
	}
	return keys.Data[0].KID, pub, nil
}

// benchCard is a merchant's card payload, generated now.
func benchCard() []byte {
	raw, _ := json.Marshal(cse.Card{Number: "4111111111111111", CVC: "737", ExpiryMonth: "03", ExpiryYear: "2030",
		HolderName: "J Smith", GenerationTime: cse.FormatGenerationTime(time.Now())})
	return raw
}

// pay makes one direct payment of jwe and checks it is charged.
func (f *directFixture) pay(jwe string) error {
	body, _ := json.Marshal(map[string]any{"encrypted_card": jwe, "amount": map[string]any{"value": 1000, "currency": "EUR"},
		"order_reference": fmt.Sprintf("bench-direct-%d", f.n), "return_url": "https://shop.example.com/return"})
	var p struct{ Status string }
	if err := f.do(http.MethodPost, "/v1/payments/direct", body, http.StatusCreated, &p); err != nil {
		return err
	}
	if p.Status != "charged" {
		return fmt.Errorf("direct payment is %s", p.Status)
	}
	return nil
}

// benchDirectPayment is one POST /v1/payments/direct per op: the JWE opened
// (RSA-OAEP-256 with the key file adapter, A256CBC-HS512), the card checked,
// authorised and captured by the sandbox processor, all written in one
// commit. The merchant's encryption is outside the timer (one JWE; each op
// has its own Idempotency-Key and order reference).
func benchDirectPayment(b *testing.B) {
	ctx := context.Background()
	f, err := newDirectFixture(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.close()
	kid, pub, err := f.currentKey()
	if err != nil {
		b.Fatal(err)
	}
	jwe, err := cse.Encrypt(kid, pub, benchCard())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		if err := f.pay(jwe); err != nil {
			b.Fatal(err)
		}
	}
	// On a shared machine wall time is mostly waiting for a core; the
	// process's CPU time per payment is what the payment costs.
	b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// directRows are issue 16's rows: a direct payment's time in process, and
// its KMS calls with the KMS adapter on moto (target: one Decrypt).
func directRows(ctx context.Context) ([]row, error) {
	var runErr error
	res := testing.Benchmark(func(b *testing.B) {
		defer func() {
			if b.Failed() {
				runErr = fmt.Errorf("benchmark failed")
			}
		}()
		benchDirectPayment(b)
	})
	if runErr != nil || res.N == 0 {
		return nil, fmt.Errorf("BenchmarkDirectPayment did not run (go test -bench DirectPayment ./infra/bench shows why)")
	}
	rows := []row{{
		name: "direct payment: decrypt + authorise in-process (embedded store, key file adapter)",
		value: fmt.Sprintf("%d ns/op (%.2f ms wall, %.2f ms CPU), %d allocs/op, %d B/op", res.NsPerOp(), float64(res.NsPerOp())/1e6,
			res.Extra["cpu-ns/op"]/1e6, res.AllocsPerOp(), res.AllocedBytesPerOp()),
		target: "report",
		ok:     "-",
	}}
	kmsRow, err := directKMSRow(ctx)
	if err != nil {
		return rows, err
	}
	return append(rows, kmsRow), nil
}

// directKMSRow counts the KMS calls of direct payments whose keyring is on
// moto's KMS (one moto serves every service: SQS_ENDPOINT). moto's KMS does
// not open a browser's RSA-OAEP-256 wrapping, so the JWE's content key is
// wrapped by moto's own Encrypt (kmstest); the calls are what a real
// account sees.
func directKMSRow(ctx context.Context) (row, error) {
	const name = "KMS calls per direct payment (KMS adapter on moto)"
	endpoint := os.Getenv("SQS_ENDPOINT")
	if endpoint == "" {
		return row{name: name, value: "skipped: SQS_ENDPOINT (moto) unset", target: "-", ok: "-"}, nil
	}
	counter := dynamostore.NewCallCounter() // counts any SDK client's calls
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	counter.Register(&cfg)
	c := kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(endpoint) })
	created, err := c.CreateKey(ctx, &kms.CreateKeyInput{KeySpec: types.KeySpecRsa2048, KeyUsage: types.KeyUsageTypeEncryptDecrypt})
	if err != nil {
		return row{}, fmt.Errorf("moto CreateKey: %w", err)
	}
	arn := aws.ToString(created.KeyMetadata.Arn)
	defer func() {
		_, _ = c.ScheduleKeyDeletion(context.Background(), &kms.ScheduleKeyDeletionInput{KeyId: aws.String(arn), PendingWindowInDays: aws.Int32(7)})
	}()
	var ring *cse.Keyring
	f, err := newDirectFixture(ctx, func(d *app.Deps) *cse.Keyring {
		ring = cse.NewKeyring(d.Store, kmskeys.New(c), d.Clock)
		return ring
	})
	if err != nil {
		return row{}, err
	}
	defer f.close()
	key, err := ring.Adopt(ctx, arn, time.Hour)
	if err != nil {
		return row{}, err
	}
	const payments = 3
	counter.Reset()
	var encrypts int
	for range payments {
		cek := make([]byte, 64)
		_, _ = rand.Read(cek)
		wrapped, err := c.Encrypt(ctx, &kms.EncryptInput{KeyId: aws.String(key.Ref), Plaintext: cek,
			EncryptionAlgorithm: types.EncryptionAlgorithmSpecRsaesOaepSha256})
		if err != nil {
			return row{}, fmt.Errorf("moto Encrypt: %w", err)
		}
		encrypts++
		if err := f.pay(kmstest.JWEWithWrappedKey(key.KID, wrapped.CiphertextBlob, cek, benchCard())); err != nil {
			return row{}, err
		}
	}
	counts := counter.Counts()
	counts["Encrypt"] -= encrypts // the test's own wrapping, not the payment's
	if counts["Encrypt"] == 0 {
		delete(counts, "Encrypt")
	}
	per := map[string]int{}
	for op, n := range counts {
		per[op] = n / payments
		if n%payments != 0 {
			return row{}, fmt.Errorf("%d payments made %d %s calls", payments, n, op)
		}
	}
	return row{name: name, value: formatCounts(per), target: "Decrypt=1",
		ok: verdict(per["Decrypt"] == 1 && total(per) == 1)}, nil
}
