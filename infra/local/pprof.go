package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
)

// servePprof serves Go's profiles (net/http/pprof) on addr when PPROF_ADDR
// names one, for `make bench ARGS=-profile`: CPU and allocation profiles of
// the gateway under load. Only a loopback address is accepted, and the
// profiles are on their own listener, never on the API's. It returns a
// function that stops the listener (nothing to stop when PPROF_ADDR is unset).
func servePprof(addr string) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("PPROF_ADDR: %w", err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		if !strings.EqualFold(host, "localhost") {
			return nil, fmt.Errorf("PPROF_ADDR must be a loopback address, not %q", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("PPROF_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	return func() { srv.Close() }, nil
}
