package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/infra/runtimeapi"
	"github.com/paygate/paygate/shared/platform/app"
)

// maxColdStartRatio is the cold start target of a function, relative to
// hello world with the SDK's DynamoDB and SQS packages linked (the floor of
// every function that uses them): what is above it is this project's own.
const maxColdStartRatio = 1.5

// coldSubject is one binary whose cold start is measured.
type coldSubject struct {
	name  string
	pkg   string
	env   map[string]string
	event string // file in events/
	want  int    // the status the event must answer (0: 200)
	bin   string
	times []time.Duration
	// informative rows are not held to the target (why says what they
	// show instead).
	informative bool
	why         string
}

// coldStarts measures, runs times each, the time from exec of bootstrap to
// the first answer through the Runtime API, for the hello-world baseline,
// hello world with the SDK's DynamoDB and SQS packages linked (what their
// init alone costs), the smallest function (Health) and the largest one,
// each built as it ships (stripped, for this machine). Runs are interleaved
// so drift in the machine's load hits every subject alike.
func coldStarts(ctx context.Context, root string, fns []function, largest function, runs int) ([]row, error) {
	if largest.LogicalID == "" {
		return nil, fmt.Errorf("no largest function (the binary sizes step failed)")
	}
	dir, err := os.MkdirTemp("", "paygate-bench-cold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	dataDir := filepath.Join(dir, "data")
	if err := seedEmbedded(ctx, dataDir); err != nil {
		return nil, err
	}
	subjects := []*coldSubject{
		{name: "hello world (aws-lambda-go)", pkg: "./infra/bench/hello", event: "health-get.json"},
		{name: "hello world + the SDK's DynamoDB and SQS packages (their init alone)", pkg: "./infra/bench/hellosdk",
			event: "health-get.json", informative: true, why: "report: the floor of a function using DynamoDB and SQS"},
	}
	for _, id := range []string{"HealthFunction", largest.LogicalID} {
		fn, ok := findFunction(fns, id)
		if !ok {
			return nil, fmt.Errorf("template.yaml has no %s", id)
		}
		event, want, err := coldEvent(root, id)
		if err != nil {
			return nil, err
		}
		env := map[string]string{}
		for k, v := range fn.Env {
			env[k] = v
		}
		env["STORE"], env["DATA_DIR"] = "embedded", dataDir
		s := &coldSubject{name: id, pkg: "./" + fn.CodeURI, env: env, event: event, want: want}
		if id == largest.LogicalID {
			s.name += " (the largest binary)"
		}
		subjects = append(subjects, s)
	}
	if endpoint := os.Getenv("DYNAMODB_ENDPOINT"); endpoint != "" {
		// The store Lambda runs on: DynamoDB (Local), config and SDK clients
		// built at start as in production.
		env, cleanup, err := dynamoEnv(ctx, endpoint)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		m := *subjects[len(subjects)-1]
		m.name += " on DynamoDB Local"
		// Its first answer includes round trips to DynamoDB Local, a JVM on
		// this machine.
		m.informative, m.why = true, "report (incl. DynamoDB Local round trips)"
		for k, v := range m.env {
			if _, ok := env[k]; !ok {
				env[k] = v
			}
		}
		m.env = env
		subjects = append(subjects, &m)
	}
	for _, s := range subjects {
		s.bin = filepath.Join(dir, filepath.Base(s.pkg))
		if err := runtimeapi.Build(ctx, root, s.pkg, s.bin, runtimeapi.BuildOptions{Release: true}); err != nil {
			return nil, err
		}
	}
	for range runs {
		for _, s := range subjects {
			d, err := coldStartOnce(ctx, root, s)
			if err != nil {
				return nil, fmt.Errorf("cold start %s: %w", s.name, err)
			}
			s.times = append(s.times, d)
		}
	}
	base, floor := median(subjects[0].times), median(subjects[1].times)
	rows := []row{{name: fmt.Sprintf("cold start %s, median of %d", subjects[0].name, runs), value: ms(base), target: "baseline", ok: "-"}}
	for _, s := range subjects[1:] {
		m := median(s.times)
		ratio := float64(m) / float64(floor)
		r := row{
			name:   fmt.Sprintf("cold start %s, median of %d", s.name, runs),
			value:  fmt.Sprintf("%s = %.2fx hello = %.2fx hello + SDK", ms(m), float64(m)/float64(base), ratio),
			target: fmt.Sprintf("<= %.1fx hello + SDK", maxColdStartRatio),
			ok:     verdict(ratio <= maxColdStartRatio),
		}
		if s.informative {
			r.target, r.ok = s.why, "-"
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// coldEvent is the event a cold start of function id answers: the first
// event file (by name) that events/expectations.json says it answers 200, or,
// for a function no fixed event can take to 200 (the drop-in's: sessionData
// binds a random session), its first 404, which still authenticates the key
// and reads the store, as a first real request does.
func coldEvent(root, id string) (file string, status int, _ error) {
	exp, err := sample.Expectations(filepath.Join(root, "events"))
	if err != nil {
		return "", 0, err
	}
	files := make([]string, 0, len(exp))
	for f := range exp {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, want := range []int{200, 404} {
		for _, f := range files {
			if exp[f].Function == id && exp[f].Status == want {
				return f, want, nil
			}
		}
	}
	return "", 0, fmt.Errorf("events/expectations.json has no event %s answers 200 or 404", id)
}

func coldStartOnce(ctx context.Context, root string, s *coldSubject) (time.Duration, error) {
	event, err := os.ReadFile(filepath.Join(root, "events", s.event))
	if err != nil {
		return 0, err
	}
	d, out, err := runtimeapi.ColdStart(ctx, runtimeapi.Config{Binary: s.bin, Name: s.name, Env: s.env}, event)
	if err != nil {
		return 0, err
	}
	var resp events.APIGatewayV2HTTPResponse
	want := s.want
	if want == 0 {
		want = 200
	}
	if err := json.Unmarshal(out, &resp); err != nil || resp.StatusCode != want {
		return 0, fmt.Errorf("unexpected answer %s", out)
	}
	return d, nil
}

// seedEmbedded creates the embedded store in dir with the sample account.
func seedEmbedded(ctx context.Context, dir string) error {
	d, err := app.Open(ctx, app.Config{Store: "embedded", DataDir: dir})
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = sample.EnsureAccount(ctx, d.Accounts, d.Keys)
	return err
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
