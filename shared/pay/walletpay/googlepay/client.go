package googlepay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// KeysURL is where Google publishes its production root signing keys
// ("Payment data cryptography for merchants": fetch them periodically, as
// they rotate).
const KeysURL = "https://payments.developers.google.com/paymentmethodtoken/keys.json"

// RootKeys fetches Google's root signing keys and keeps them for the
// Cache-Control max-age Google sends (an hour at least, a day at most); a
// failed refresh keeps serving the keys it has until they are a week old.
type RootKeys struct {
	URL    string       // KeysURL; tests stand a local server in
	Client *http.Client // nil: a client with a 10 s timeout
	Clock  func() time.Time

	mu      sync.Mutex
	keys    []RootKey
	fetched time.Time
	until   time.Time
}

func (r *RootKeys) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// Get returns the keys, fetching them when the cached ones are due.
func (r *RootKeys) Get(ctx context.Context) ([]RootKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.keys != nil && now.Before(r.until) {
		return r.keys, nil
	}
	keys, maxAge, err := r.fetch(ctx)
	if err != nil {
		if r.keys != nil && now.Sub(r.fetched) < 7*24*time.Hour {
			return r.keys, nil
		}
		return nil, err
	}
	r.keys, r.fetched, r.until = keys, now, now.Add(maxAge)
	return keys, nil
}

func (r *RootKeys) fetch(ctx context.Context) ([]RootKey, time.Duration, error) {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	url := r.URL
	if url == "" {
		url = KeysURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("googlepay: root keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("googlepay: root keys: HTTP %d", resp.StatusCode)
	}
	var doc struct {
		Keys []RootKey `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return nil, 0, fmt.Errorf("googlepay: root keys: %w", err)
	}
	if len(doc.Keys) == 0 {
		return nil, 0, errors.New("googlepay: root keys: none published")
	}
	return doc.Keys, maxAge(resp.Header.Get("Cache-Control")), nil
}

// maxAge reads Cache-Control's max-age, held to an hour..a day.
func maxAge(cc string) time.Duration {
	d := time.Hour
	for _, part := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "max-age="); ok {
			if s, err := strconv.Atoi(v); err == nil {
				d = time.Duration(s) * time.Second
			}
		}
	}
	return min(max(d, time.Hour), 24*time.Hour)
}
