package apitest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logs collects every log line of every Env in this test binary.
var Logs = &syncBuffer{}

var (
	secretsMu sync.Mutex
	secrets   []string
)

// RememberSecret records a key issued during the run, for NoSecretsLogged.
func RememberSecret(s string) {
	secretsMu.Lock()
	secrets = append(secrets, s)
	secretsMu.Unlock()
}

// NoSecretsLogged scans the whole run's logs for any issued key (or its
// random part alone) and returns an error naming how many leaked. Call it
// from TestMain after m.Run.
func NoSecretsLogged() error {
	logs := Logs.String()
	secretsMu.Lock()
	defer secretsMu.Unlock()
	if len(secrets) == 0 {
		return fmt.Errorf("no keys were issued: the scan would prove nothing")
	}
	if logs == "" {
		return fmt.Errorf("no log output was captured: the scan would prove nothing")
	}
	leaked := 0
	for _, s := range secrets {
		random := s[strings.LastIndex(s, "_")+1:]
		if strings.Contains(logs, s) || strings.Contains(logs, random) {
			leaked++
		}
	}
	if leaked > 0 {
		return fmt.Errorf("%d of %d keys appear in the logs", leaked, len(secrets))
	}
	return nil
}

// Main is a test package's TestMain: it runs the tests, then scans the whole
// run's logs for every key issued during it. A run that issued no key (a
// -run filter that matched no HTTP test) has nothing to scan and is not
// failed for it.
func Main(m interface{ Run() int }) {
	code := m.Run()
	secretsMu.Lock()
	issued := len(secrets)
	secretsMu.Unlock()
	if code == 0 && issued > 0 {
		if err := NoSecretsLogged(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: secret scan of the test run's logs:", err)
			code = 1
		}
	}
	os.Exit(code)
}
