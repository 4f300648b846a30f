package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/gate/orders"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
)

// TestPeriodicTasksRunLocally: the gateway runs the real order reconciler on
// its interval (shortened here), keeps running a task whose run fails (and
// logs it), and stops both on shutdown.
func TestPeriodicTasksRunLocally(t *testing.T) {
	var reconciles, failures atomic.Int64
	reconciler := wiring.Task{Function: "GateOrderReconcilerFunction", Every: 20 * time.Millisecond,
		Build: func(d *app.Deps) (func(context.Context) error, error) {
			run, err := orders.BuildGateOrderReconciler(d)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) error {
				err := run(ctx)
				if err == nil {
					reconciles.Add(1)
				}
				return err
			}, nil
		}}
	failing := wiring.Task{Function: "FailingFunction", Every: 20 * time.Millisecond,
		Build: func(*app.Deps) (func(context.Context) error, error) {
			return func(context.Context) error { failures.Add(1); return errors.New("injected failure") }, nil
		}}

	dir := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "DATA_DIR":
			return dir
		case "PORT":
			return "0"
		}
		return ""
	}
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	ready := make(chan string, 1)
	go func() {
		done <- run(ctx, options{Getenv: getenv, Stdout: io.Discard, Logs: logs, Ready: ready,
			Consumers: []wiring.Consumer{}, Tasks: []wiring.Task{reconciler, failing}})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("gateway did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("gateway did not start in time")
	}
	require.Eventually(t, func() bool { return reconciles.Load() >= 3 && failures.Load() >= 3 },
		10*time.Second, 10*time.Millisecond, "every task runs on its interval, again after a failure")
	require.Contains(t, logs.String(), "scheduled run failed")
	require.True(t, strings.Contains(logs.String(), `"function":"FailingFunction"`), "the failure names its function")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("gateway did not stop")
	}
	n := reconciles.Load()
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, n, reconciles.Load(), "no run after shutdown")
}

// TestPeriodicRejectsNoInterval: a task without an interval is a wiring bug,
// reported at startup rather than spinning.
func TestPeriodicRejectsNoInterval(t *testing.T) {
	_, err := buildPeriodic(&app.Deps{}, []wiring.Task{{Function: "X", Build: func(*app.Deps) (func(context.Context) error, error) {
		return func(context.Context) error { return nil }, nil
	}}})
	require.ErrorContains(t, err, "X: interval must be positive")
}
