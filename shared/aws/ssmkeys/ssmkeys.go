// Package ssmkeys reads the session-signing keys from an SSM SecureString
// parameter: the adapter that keeps AWS out of package sessiondata. Only the
// checkout functions link it.
//
// It sends the one GetParameter call itself, signed with the SDK's SigV4
// signer, instead of linking service/ssm: that package's generated schemas
// cost 1.2 ms of every checkout cold start (GODEBUG=inittrace=1), for one
// call made once per instance and every 10 minutes after. The call is SSM's
// documented JSON 1.1 protocol; the test runs it against moto, and the SDK's
// own client writes the parameter there.
package ssmkeys

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/paygate/paygate/shared/pay/checkout/sessiondata"
)

// callTimeout bounds one GetParameter (cold start waits on it).
const callTimeout = 5 * time.Second

// Source returns a key source for sessiondata.NewRefreshing: each call is one
// GetParameter of name with decryption (the function's role needs
// ssm:GetParameter on the parameter and kms:Decrypt through SSM). endpoint
// overrides AWS's (moto in tests); empty means the region's.
func Source(cfg aws.Config, endpoint, name string) func(context.Context) ([][]byte, error) {
	get := Parameter(cfg, endpoint, name)
	return func(ctx context.Context) ([][]byte, error) {
		value, err := get(ctx)
		if err != nil {
			return nil, err
		}
		keys, err := sessiondata.ParseKeys(value)
		if err != nil {
			return nil, fmt.Errorf("ssmkeys: %s: %w", name, err)
		}
		return keys, nil
	}
}

// Parameter reads one SecureString parameter, decrypted, with the same
// hand-sent GetParameter: other secrets of the platform (the wallets' live
// keys, shared/pay/walletpay) are read the way the signing keys are.
func Parameter(cfg aws.Config, endpoint, name string) func(context.Context) (string, error) {
	if endpoint == "" {
		endpoint = "https://ssm." + cfg.Region + "." + dnsSuffix(cfg.Region)
	}
	url := strings.TrimSuffix(endpoint, "/") + "/"
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: callTimeout}
	}
	signer := v4.NewSigner()
	return func(ctx context.Context) (string, error) {
		value, err := getParameter(ctx, cfg, client, signer, url, name)
		if err != nil {
			return "", fmt.Errorf("ssmkeys: read %s: %w", name, err)
		}
		return value, nil
	}
}

func getParameter(ctx context.Context, cfg aws.Config, client aws.HTTPClient, signer *v4.Signer, url, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	body, err := json.Marshal(struct {
		Name           string
		WithDecryption bool
	}{name, true})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "AmazonSSM.GetParameter")
	if cfg.Credentials == nil {
		return "", fmt.Errorf("no AWS credentials")
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	if err := signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "ssm", cfg.Region, time.Now()); err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		// SSM's JSON errors: {"__type": "...#ParameterNotFound", "message": ...}.
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		return "", fmt.Errorf("SSM answered %d %s %s", resp.StatusCode, e.Type[strings.LastIndex(e.Type, "#")+1:], e.Message)
	}
	var out struct {
		Parameter *struct {
			Value *string
		}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("SSM answer: %w", err)
	}
	if out.Parameter == nil || out.Parameter.Value == nil {
		return "", fmt.Errorf("the parameter has no value")
	}
	return *out.Parameter.Value, nil
}

// dnsSuffix is the partition's domain for a region.
func dnsSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}
