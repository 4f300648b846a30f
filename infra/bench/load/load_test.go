package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunCountsEveryRequest(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.Header.Get("Idempotency-Key")+"|"+string(body)] = true
		mu.Unlock()
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if n, _ := strconv.Atoi(string(body)); n%10 == 0 {
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()

	res, err := Run(context.Background(), Config{
		URL: srv.URL, Method: http.MethodPost, Concurrency: 4, Requests: 100,
		Body:    func(i int) []byte { return []byte(strconv.Itoa(i)) },
		Headers: func(i int) http.Header { return http.Header{"Idempotency-Key": {"k" + strconv.Itoa(i)}} },
	})
	require.NoError(t, err)
	assert.Equal(t, 100, res.Requests)
	assert.Equal(t, 0, res.Errors)
	assert.Equal(t, map[int]int{http.StatusCreated: 90, http.StatusConflict: 10}, res.StatusCounts)
	assert.Len(t, seen, 100, "each request gets its own body and headers")
	assert.Positive(t, res.RPS)
	assert.LessOrEqual(t, res.P50, res.P99)
	assert.LessOrEqual(t, res.P99, res.Max)
}

func TestRunForADuration(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	// The context outlives the run by far: the run must end by its duration,
	// not by the context. No upper bound on Elapsed: a loaded machine may run
	// late, and timings belong in benchmarks.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{URL: srv.URL, Concurrency: 2, Duration: 200 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, ctx.Err(), "the run ended by its duration")
	assert.Positive(t, res.StatusCounts[http.StatusOK])
	assert.Equal(t, res.Requests, res.StatusCounts[http.StatusOK], "every request sent is answered and counted")
	assert.GreaterOrEqual(t, res.Elapsed, 100*time.Millisecond, "requests were sent through the duration, not only at its start")
}

func TestRunStopsWhenTheContextEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{URL: srv.URL, Concurrency: 2, Duration: time.Minute})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the run ends with its context, not its duration")
	assert.Positive(t, res.StatusCounts[http.StatusOK])
	assert.Equal(t, res.Requests, res.StatusCounts[http.StatusOK])
}

func TestRunCountsTransportErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL
	srv.Close() // nothing listens any more
	res, err := Run(context.Background(), Config{URL: url, Requests: 5})
	require.NoError(t, err)
	assert.Equal(t, 5, res.Errors)
	assert.Error(t, res.FirstError)
	assert.Empty(t, res.StatusCounts)
}

func TestRunRefusesUnboundedRuns(t *testing.T) {
	_, err := Run(context.Background(), Config{URL: "http://127.0.0.1:1"})
	assert.Error(t, err)
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	assert.Equal(t, time.Duration(50), Percentile(d, 50))
	assert.Equal(t, time.Duration(99), Percentile(d, 99))
	assert.Equal(t, time.Duration(100), Percentile(d, 100))
	assert.Equal(t, time.Duration(1), Percentile(d[:1], 99))
}

func TestRunChecksASampleOfAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	// Which answers are checked follows the attack's sequence, which under
	// concurrency need not be the order the bodies were made in: the check
	// counts what it refused, and the result must agree.
	var refused atomic.Int64
	res, err := Run(context.Background(), Config{
		URL: srv.URL, Method: http.MethodPost, Concurrency: 3, Requests: 40, CheckEvery: 4,
		Body: func(i int) []byte { return []byte(strconv.Itoa(i)) },
		Check: func(status int, body []byte) error {
			if n, _ := strconv.Atoi(string(body)); n%8 != 0 {
				refused.Add(1)
				return fmt.Errorf("answer %s", body)
			}
			return nil
		},
	})
	require.NoError(t, err)
	assert.Equal(t, 10, res.Checked, "one answer in four of 40")
	assert.Equal(t, int(refused.Load()), res.CheckFailed, "every refused answer is counted")
	assert.Equal(t, refused.Load() > 0, res.FirstCheck != nil, "the first refusal is kept")
}
