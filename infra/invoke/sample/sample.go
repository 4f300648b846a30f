// Package sample holds what the files in events/ rely on: the sandbox key
// their Authorization headers carry, the account that owns it, and the
// expected answer of each file (events/expectations.json).
package sample

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
)

// Key is the test-mode key in events/*.json. It is not a secret: it exists
// only in local stores (embedded or DynamoDB Local), where EnsureAccount
// registers it, and a live account can never hold an imported key.
const Key = "sk_test_" + "SampleEventsKeyDoNotUseInProd000"

// ClientKey is the sample account's client key (the drop-in's publishable
// key), allowed only from ClientOrigin; local stores only, like Key.
const ClientKey = "ck_test_" + "SampleEventsClientKeyDoNotUse000"

// ClientOrigin is the one origin ClientKey is allowed from.
const ClientOrigin = "https://shop.example"

// AccountName names the account that owns Key.
const AccountName = "Sample Events"

// MerchantAccount is the sample account's checkout merchantAccount, fixed so
// events can name it.
const MerchantAccount = "SampleMerchant"

// EnsureAccount makes Key and ClientKey authenticate in the store behind
// keys: when Key does not yet, it creates a test-mode account and imports Key
// into it; ClientKey is then imported when missing (so stores seeded before
// it existed get it too). It returns the owning account's id.
func EnsureAccount(ctx context.Context, repo *accounts.Repo, keys *auth.Keys) (string, error) {
	var id string
	if k, err := keys.Authenticate(ctx, Key); err == nil {
		id = k.AccountID
	} else {
		a, err := repo.Create(ctx, accounts.NewAccount{Name: AccountName, MerchantAccount: MerchantAccount, Mode: accounts.Test,
			Country: "NL", Email: "sample-events@example.com"})
		if err != nil {
			return "", fmt.Errorf("sample account: %w", err)
		}
		if _, err := keys.Import(ctx, a.ID, Key, "sample events"); err != nil {
			return "", fmt.Errorf("sample key: %w", err)
		}
		id = a.ID
	}
	if _, err := keys.ImportClient(ctx, id, ClientKey, []string{ClientOrigin}, "sample events client"); err != nil {
		return "", fmt.Errorf("sample client key: %w", err)
	}
	return id, nil
}

// ExpectationsFile is the file in events/ that lists every event's expected
// answer; it is the one .json file there that is not an event.
const ExpectationsFile = "expectations.json"

// Expectation is the answer an event file must get.
type Expectation struct {
	Function string `json:"function"` // logical id in template.yaml
	// Status is the HTTP status of an API Gateway event's answer.
	Status int `json:"status,omitempty"`
	// BatchItemFailures is, for an SQS event, how many records the function
	// reports failed.
	BatchItemFailures int `json:"batch_item_failures,omitempty"`
	// FunctionError is, for a scheduled (EventBridge) event, whether the
	// invocation fails (the task returned an error); false: it succeeds.
	FunctionError bool `json:"function_error,omitempty"`
}

// Expectations reads dir/expectations.json and checks that it and the event
// files match one to one.
func Expectations(dir string) (map[string]Expectation, error) {
	data, err := os.ReadFile(filepath.Join(dir, ExpectationsFile))
	if err != nil {
		return nil, err
	}
	var exp map[string]Expectation
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&exp); err != nil {
		return nil, fmt.Errorf("%s: %w", ExpectationsFile, err)
	}
	files, err := EventFiles(dir)
	if err != nil {
		return nil, err
	}
	var problems []string
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
		if _, ok := exp[f]; !ok {
			problems = append(problems, f+" has no entry in "+ExpectationsFile)
		}
	}
	for f, e := range exp {
		if !seen[f] {
			problems = append(problems, ExpectationsFile+" lists "+f+", which does not exist")
		}
		if e.Function == "" {
			problems = append(problems, f+": no function")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("events: %s", strings.Join(problems, "; "))
	}
	return exp, nil
}

// EventFiles lists the event files of dir (every .json but the
// expectations), sorted.
func EventFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if b := filepath.Base(p); b != ExpectationsFile {
			out = append(out, b)
		}
	}
	sort.Strings(out)
	return out, nil
}
