package apitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// The 5xx scan: bad input is never answered with a 5xx, so after a test
// binary's run every request log line with a 5xx status fails it, unless its
// server was built by a test that causes server errors on purpose (a store
// outage, a panic) and said so with AllowServerErrors.

const envAttr = "test_env"

var (
	envSeq    atomic.Int64
	envMu     sync.Mutex
	envNames  = map[int64]string{}
	envAllows = map[int64]string{}
)

func registerEnv(test string) int64 {
	id := envSeq.Add(1)
	envMu.Lock()
	envNames[id] = test
	envMu.Unlock()
	return id
}

// AllowServerErrors exempts this server's 5xx answers from the scan; why says
// which failure the test injects.
func (e *Env) AllowServerErrors(why string) {
	envMu.Lock()
	envAllows[e.id] = why
	envMu.Unlock()
}

// NoUnexpectedServerErrors scans the run's request log lines for a 5xx
// answered by a server that did not allow them, and names each.
func NoUnexpectedServerErrors() error {
	return scanServerErrors(Logs.String())
}

func scanServerErrors(logs string) error {
	envMu.Lock()
	defer envMu.Unlock()
	var found []string
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		var line struct {
			Msg    string `json:"msg"`
			Status int    `json:"status"`
			Method string `json:"method"`
			Route  string `json:"route"`
			Env    int64  `json:"test_env"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "request" || line.Status < 500 {
			continue
		}
		if _, ok := envAllows[line.Env]; ok {
			continue
		}
		found = append(found, fmt.Sprintf("%d on %s %s in %s", line.Status, line.Method, line.Route, envNames[line.Env]))
	}
	if len(found) > 0 {
		return fmt.Errorf("%d unexpected 5xx answers: %s", len(found), strings.Join(found, "; "))
	}
	return nil
}
