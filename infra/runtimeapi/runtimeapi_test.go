package runtimeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary doubles as a Lambda bootstrap: run with helperEnv set, it
// starts the aws-lambda-go runtime loop in the mode named by the variable.
const helperEnv = "RUNTIMEAPI_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "startup: TABLE_ACCOUNTS is missing")
		os.Exit(1)
	default:
		lambda.Start(helperHandler)
	}
}

type echoEvent struct {
	Say   string `json:"say"`
	Fail  bool   `json:"fail"`
	Crash bool   `json:"crash"`
	Sleep int    `json:"sleep_ms"`
}

func helperHandler(ctx context.Context, ev echoEvent) (map[string]any, error) {
	lc, _ := lambdacontext.FromContext(ctx)
	deadline, _ := ctx.Deadline()
	switch {
	case ev.Crash:
		fmt.Fprintln(os.Stderr, "boom: crashing on purpose")
		os.Exit(3)
	case ev.Fail:
		return nil, errors.New("asked to fail")
	}
	time.Sleep(time.Duration(ev.Sleep) * time.Millisecond)
	return map[string]any{
		"said": ev.Say, "request_id": lc.AwsRequestID, "arn": lc.InvokedFunctionArn,
		"function": lambdacontext.FunctionName, "memory": lambdacontext.MemoryLimitInMB,
		"env": os.Getenv("CUSTOM"), "has_deadline": !deadline.IsZero(),
	}, nil
}

func startHelper(t *testing.T, mode string, timeout time.Duration) *Function {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	f, err := Start(Config{
		Binary: exe, Name: "EchoFunction", MemoryMB: 128, Timeout: timeout,
		Env: map[string]string{helperEnv: mode, "CUSTOM": "from-config"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func TestInvokeRealRuntimeLoop(t *testing.T) {
	f := startHelper(t, "echo", 5*time.Second)
	var ids []string
	for i := range 3 { // one instance serves invocations one after another
		out, err := f.Invoke(context.Background(), []byte(`{"say":"hi `+strconv.Itoa(i)+`"}`))
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got))
		assert.Equal(t, "hi "+strconv.Itoa(i), got["said"])
		assert.Equal(t, "arn:aws:lambda:us-east-1:000000000000:function:EchoFunction", got["arn"])
		assert.Equal(t, "EchoFunction", got["function"])
		assert.EqualValues(t, 128, got["memory"])
		assert.Equal(t, "from-config", got["env"])
		assert.Equal(t, true, got["has_deadline"])
		ids = append(ids, got["request_id"].(string))
	}
	assert.NotEqual(t, ids[0], ids[1])
}

func TestFunctionErrorKeepsInstance(t *testing.T) {
	f := startHelper(t, "echo", 5*time.Second)
	_, err := f.Invoke(context.Background(), []byte(`{"fail":true}`))
	var fe *FunctionError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "asked to fail", fe.Message)
	out, err := f.Invoke(context.Background(), []byte(`{"say":"again"}`))
	require.NoError(t, err)
	assert.Contains(t, string(out), `"again"`)
}

func TestCrashIsAnErrorWithStderr(t *testing.T) {
	f := startHelper(t, "echo", 5*time.Second)
	_, err := f.Invoke(context.Background(), []byte(`{"crash":true}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom: crashing on purpose")
	_, err = f.Invoke(context.Background(), []byte(`{}`))
	require.Error(t, err, "a dead instance answers nothing")
}

func TestExitBeforeServingIsAnErrorWithStderr(t *testing.T) {
	f := startHelper(t, "exit-at-start", 5*time.Second)
	_, err := f.Invoke(context.Background(), []byte(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TABLE_ACCOUNTS is missing")
}

func TestTimeoutKillsInstance(t *testing.T) {
	f := startHelper(t, "echo", 300*time.Millisecond)
	_, err := f.Invoke(context.Background(), []byte(`{"sleep_ms":2000}`))
	require.ErrorContains(t, err, "timed out")
}

func TestInvalidEventRefused(t *testing.T) {
	s, err := NewServer("arn")
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Invoke(context.Background(), []byte(`{not json`), time.Second)
	require.Error(t, err)
}

// TestProtocol plays the runtime side by hand: headers of next, a second
// answer for the same id, and init errors.
func TestProtocol(t *testing.T) {
	s, err := NewServer("arn:aws:lambda:us-east-1:000000000000:function:F")
	require.NoError(t, err)
	defer s.Close()
	base := "http://" + s.Addr() + "/2018-06-01/runtime"

	type answer struct {
		out []byte
		err error
	}
	got := make(chan answer, 1)
	go func() {
		out, err := s.Invoke(context.Background(), []byte(`{"a":1}`), 5*time.Second)
		got <- answer{out, err}
	}()
	resp, err := http.Get(base + "/invocation/next")
	require.NoError(t, err)
	resp.Body.Close()
	id := resp.Header.Get(HeaderID)
	require.NotEmpty(t, id)
	ms, err := strconv.ParseInt(resp.Header.Get(HeaderDeadline), 10, 64)
	require.NoError(t, err)
	assert.InDelta(t, time.Now().Add(5*time.Second).UnixMilli(), ms, 2000)
	assert.Equal(t, "arn:aws:lambda:us-east-1:000000000000:function:F", resp.Header.Get(HeaderARN))
	assert.True(t, strings.HasPrefix(resp.Header.Get(HeaderTrace), "Root=1-"))

	post := func(path, body string) int {
		r, err := http.Post(base+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		r.Body.Close()
		return r.StatusCode
	}
	assert.Equal(t, http.StatusAccepted, post("/invocation/"+id+"/response", `{"ok":true}`))
	a := <-got
	require.NoError(t, a.err)
	assert.JSONEq(t, `{"ok":true}`, string(a.out))
	assert.Equal(t, http.StatusBadRequest, post("/invocation/"+id+"/response", `{}`), "one answer per invocation")

	go func() {
		out, err := s.Invoke(context.Background(), []byte(`{}`), 5*time.Second)
		got <- answer{out, err}
	}()
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, http.StatusAccepted, post("/init/error", `{"errorType":"Runtime.Config","errorMessage":"bad env"}`))
	a = <-got
	var ie *InitError
	require.ErrorAs(t, a.err, &ie)
	assert.Equal(t, "bad env", ie.Message)
}
