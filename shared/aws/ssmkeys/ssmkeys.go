// Package ssmkeys reads SSM SecureString parameters (the session-signing
// keys, the wallets' live secrets): the adapter behind app.Parameters that
// keeps AWS out of the areas.
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
)

// callTimeout bounds one GetParameter (cold start waits on it).
const callTimeout = 5 * time.Second

// Parameters reads the stack's SecureString parameters with cfg: the
// implementation of app.Parameters a deployed function's dependencies carry.
// endpoint overrides AWS's (moto in tests); empty means the region's.
type Parameters struct {
	cfg      aws.Config
	endpoint string
}

// NewParameters reads parameters with cfg.
func NewParameters(cfg aws.Config, endpoint string) Parameters {
	return Parameters{cfg: cfg, endpoint: endpoint}
}

// String reads the parameter name (Parameter).
func (p Parameters) String(name string) func(context.Context) (string, error) {
	return Parameter(p.cfg, p.endpoint, name)
}

// Parameter reads one SecureString parameter, decrypted, with the same
// hand-sent GetParameter (the function's role needs ssm:GetParameter on the
// parameter and kms:Decrypt through SSM).
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
