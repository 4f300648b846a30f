package checkout_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/domain/connectors"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/ssmkeys"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/checkout/sessiondata"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// TestOversizedSessionIsA400: a session whose lineItems make it larger than
// a stored record may be (500 KB, inside the 1 MiB body limit, every field
// within its own maximum) is a 400 item_too_large on both stores, never a
// 5xx and never a 201; nothing is kept, so the same key may be retried.
func TestOversizedSessionIsA400(t *testing.T) {
	stores := map[string]func(t *testing.T) store.Store{
		"embedded": func(*testing.T) store.Store { return nil },
		"dynamodb": func(t *testing.T) store.Store { return dynamotest.New(t, nil) },
	}
	for name, st := range stores {
		t.Run(name, func(t *testing.T) {
			e := apitest.NewWith(t, apitest.Options{Store: st(t)}, builders...)
			items := make([]any, 100)
			for i := range items {
				items[i] = map[string]any{"id": fmt.Sprint(i), "description": strings.Repeat("d", 5000), "quantity": 1, "amountIncludingTax": 10}
			}
			body := sessionBody(e, map[string]any{"lineItems": items})
			for range 2 {
				r := e.Do("POST", "/v2/sessions", body, "Idempotency-Key", "big-session")
				require.Equal(t, 400, r.Status, "%s", r.Body)
				er := r.Err(t)
				assert.Equal(t, "item_too_large", er["code"])
				assert.Contains(t, er["message"], "400 KB")
			}
			// A small session with the same key is a fresh request.
			r := e.Do("POST", "/v2/sessions", sessionBody(e, nil), "Idempotency-Key", "big-session")
			require.Equal(t, 201, r.Status, "%s", r.Body)
		})
	}
}

// TestSigningKeysFromSSM: a deployed checkout function reads its keys from
// the SecureString parameter named in its environment (moto here), signs
// with the first and opens tokens of the others; without a parameter or a
// key it refuses to start.
func TestSigningKeysFromSSM(t *testing.T) {
	// One moto server answers every service: SQS's endpoint serves SSM too.
	ep := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	client := ssm.NewFromConfig(awsCfg, func(o *ssm.Options) { o.BaseEndpoint = aws.String(ep) })
	ctx := context.Background()
	name := fmt.Sprintf("/paygate/test-%08x/session-signing-secret", rand.Uint32())
	newKey, oldKey := strings.Repeat("3a", 32), strings.Repeat("4b", 32)
	_, err := client.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String(name), Type: types.ParameterTypeSecureString,
		Value: aws.String(newKey + "," + oldKey)})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = client.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: aws.String(name)})
	})

	env := map[string]string{sessiondata.ParamEnvVar: name}
	deployed := func(d *app.Deps) *app.Deps {
		c := *d
		c.Parameters = ssmkeys.NewParameters(awsCfg, ep)
		c.Config = app.Config{Store: "dynamodb", Environment: "prod", SSMEndpoint: ep, Getenv: func(k string) string { return env[k] }}
		return &c
	}
	var built []*checkout.Service
	build := func(pick func(*checkout.Service) httpapi.Group) app.HTTPBuilder {
		return func(d *app.Deps) (httpapi.Group, error) {
			svc, err := checkout.FromDeps(deployed(d), connectors.Set{Cards: cardprocessor.New()})
			if err != nil {
				return httpapi.Group{}, err
			}
			built = append(built, svc)
			return pick(svc), nil
		}
	}
	e := apitest.New(t, build((*checkout.Service).SessionsGroup), build((*checkout.Service).ClientGroup))
	require.Len(t, built, 2)

	// Sessions are signed with the parameter's first key...
	r := e.Do("POST", "/v2/sessions", sessionBody(e, nil))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	m := r.Map(t)
	id, token := m["id"].(string), m["sessionData"].(string)
	keys, err := sessiondata.ParseKeys(newKey + "," + oldKey)
	require.NoError(t, err)
	parts := strings.Split(token, ".")
	require.Len(t, parts, 4)
	assert.Equal(t, sessiondata.KeyID(keys[0]), parts[2])

	// ...and a token of the second (the previous) key still opens.
	purpose := parts[1]
	newSigner, err := sessiondata.NewKeyring([][]byte{keys[0]})
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, newSigner.Open(purpose, token, &claims))
	oldSigner, err := sessiondata.NewKeyring([][]byte{keys[1]})
	require.NoError(t, err)
	oldToken, err := oldSigner.Seal(purpose, claims)
	require.NoError(t, err)
	ck := e.NewClientKey(origin)
	r = clientDo(e, ck, "/v2/client/sessions/"+id+"/setup", map[string]any{"sessionData": oldToken})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	other, err := sessiondata.NewKeyring([][]byte{[]byte(strings.Repeat("z", 32))})
	require.NoError(t, err)
	forged, err := other.Seal(purpose, claims)
	require.NoError(t, err)
	r = clientDo(e, ck, "/v2/client/sessions/"+id+"/setup", map[string]any{"sessionData": forged})
	require.Equal(t, 400, r.Status, "a key not in the parameter: %s", r.Body)

	delete(env, sessiondata.ParamEnvVar)
	_, err = checkout.FromDeps(deployed(e.Deps), connectors.Set{Cards: cardprocessor.New()})
	require.Error(t, err, "a deployed function without its key refuses to start")
	env[sessiondata.ParamEnvVar] = name + "-missing"
	_, err = checkout.FromDeps(deployed(e.Deps), connectors.Set{Cards: cardprocessor.New()})
	require.Error(t, err)
}
