// Package runtimeapi is a fake AWS Lambda Runtime API: it drives the very
// `bootstrap` binary that ships, on this machine, with no Docker. It speaks
// the real protocol (next, response, error, init error) on 127.0.0.1, so the
// aws-lambda-go runtime loop inside the binary cannot tell it from Lambda.
package runtimeapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Protocol paths and headers (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html).
const (
	apiPrefix      = "/2018-06-01/runtime"
	HeaderID       = "Lambda-Runtime-Aws-Request-Id"
	HeaderDeadline = "Lambda-Runtime-Deadline-Ms"
	HeaderARN      = "Lambda-Runtime-Invoked-Function-Arn"
	HeaderTrace    = "Lambda-Runtime-Trace-Id"
	// trailerErrorType is set by aws-lambda-go when a response body fails
	// half-way (streamed responses).
	trailerErrorType = "Lambda-Runtime-Function-Error-Type"
)

// FunctionError is an invocation the function reported as failed (POST
// .../error), as Lambda reports it to callers.
type FunctionError struct {
	Type       string `json:"errorType"`
	Message    string `json:"errorMessage"`
	StackTrace []any  `json:"stackTrace,omitempty"`
}

func (e *FunctionError) Error() string {
	return fmt.Sprintf("function error %s: %s", e.Type, e.Message)
}

// InitError is a failure the runtime reported before serving (POST
// /runtime/init/error).
type InitError struct {
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
}

func (e *InitError) Error() string { return fmt.Sprintf("init error %s: %s", e.Type, e.Message) }

// ErrClosed is returned by Invoke once the server is closed.
var ErrClosed = errors.New("runtimeapi: closed")

type result struct {
	body []byte
	err  error
}

type invocation struct {
	id       string
	event    []byte
	deadline time.Time
	done     chan result // buffered 1: the runtime side never blocks
}

// Server is the Runtime API endpoint. One Server serves one function
// instance, which handles one invocation at a time, as in Lambda.
type Server struct {
	ln    net.Listener
	srv   *http.Server
	arn   string
	queue chan *invocation

	mu       sync.Mutex
	inflight map[string]*invocation
	dead     chan struct{} // closed by abort
	deadErr  error
}

// NewServer listens on 127.0.0.1 at a free port. functionARN is what the
// runtime sees as the invoked function's ARN.
func NewServer(functionARN string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("runtimeapi: listen: %w", err)
	}
	s := &Server{
		ln: ln, arn: functionARN,
		queue:    make(chan *invocation, 1),
		inflight: map[string]*invocation{},
		dead:     make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+apiPrefix+"/invocation/next", s.next)
	mux.HandleFunc("POST "+apiPrefix+"/invocation/{id}/response", s.response)
	mux.HandleFunc("POST "+apiPrefix+"/invocation/{id}/error", s.invocationError)
	mux.HandleFunc("POST "+apiPrefix+"/init/error", s.initError)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is host:port, the value of AWS_LAMBDA_RUNTIME_API.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Invoke hands event to the function and waits for its answer until timeout
// (the function's configured timeout) or ctx ends. A function error is a
// *FunctionError; an init error an *InitError; a dead process the error it
// died with.
func (s *Server) Invoke(ctx context.Context, event []byte, timeout time.Duration) ([]byte, error) {
	if !json.Valid(event) {
		return nil, errors.New("runtimeapi: the event is not valid JSON")
	}
	inv := &invocation{id: uuid.NewString(), event: event, deadline: time.Now().Add(timeout), done: make(chan result, 1)}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case s.queue <- inv:
	case <-s.dead:
		return nil, s.deadError()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-inv.done:
		return r.body, r.err
	case <-s.dead:
		return nil, s.deadError()
	case <-ctx.Done():
		s.abort(fmt.Errorf("invocation %s abandoned: %w", inv.id, ctx.Err()))
		return nil, ctx.Err()
	case <-timer.C:
		// Lambda stops an instance that timed out; so do we, since it may
		// still be running the abandoned invocation.
		err := fmt.Errorf("runtimeapi: invocation %s timed out after %s", inv.id, timeout)
		s.abort(err)
		return nil, err
	}
}

// abort makes every waiting and future Invoke fail with err (the first one
// given wins).
func (s *Server) abort(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deadErr != nil {
		return
	}
	s.deadErr = err
	close(s.dead)
}

func (s *Server) deadError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.deadErr
}

// Close stops serving; pending and later Invokes fail with ErrClosed.
func (s *Server) Close() error {
	s.abort(ErrClosed)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		return s.srv.Close()
	}
	return nil
}

func (s *Server) next(w http.ResponseWriter, r *http.Request) {
	var inv *invocation
	select {
	case inv = <-s.queue:
	case <-s.dead:
		http.Error(w, "shutting down", http.StatusGone)
		return
	case <-r.Context().Done():
		return
	}
	s.mu.Lock()
	s.inflight[inv.id] = inv
	s.mu.Unlock()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(HeaderID, inv.id)
	h.Set(HeaderDeadline, strconv.FormatInt(inv.deadline.UnixMilli(), 10))
	h.Set(HeaderARN, s.arn)
	h.Set(HeaderTrace, traceID())
	_, _ = w.Write(inv.event)
}

// take removes the in-flight invocation id; the runtime may answer once.
func (s *Server) take(w http.ResponseWriter, id string) *invocation {
	s.mu.Lock()
	inv := s.inflight[id]
	delete(s.inflight, id)
	s.mu.Unlock()
	if inv == nil {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"errorType": "InvalidRequestID", "errorMessage": "unknown or finished request id " + id})
	}
	return inv
}

func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	inv := s.take(w, r.PathValue("id"))
	if inv == nil {
		return
	}
	switch {
	case err != nil:
		inv.done <- result{err: fmt.Errorf("runtimeapi: reading the response: %w", err)}
	case r.Trailer.Get(trailerErrorType) != "":
		inv.done <- result{err: &FunctionError{Type: r.Trailer.Get(trailerErrorType), Message: "the response stream failed"}}
	default:
		inv.done <- result{body: body}
	}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) invocationError(w http.ResponseWriter, r *http.Request) {
	fe := decodeError(r)
	inv := s.take(w, r.PathValue("id"))
	if inv == nil {
		return
	}
	inv.done <- result{err: fe}
	w.WriteHeader(http.StatusAccepted)
}

func (s *Server) initError(w http.ResponseWriter, r *http.Request) {
	fe := decodeError(r)
	s.abort(&InitError{Type: fe.Type, Message: fe.Message})
	w.WriteHeader(http.StatusAccepted)
}

// decodeError reads an error body; the type header wins when present, as in
// Lambda.
func decodeError(r *http.Request) *FunctionError {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	fe := &FunctionError{}
	if json.Unmarshal(body, fe) != nil || fe.Message == "" {
		fe.Message = strings.TrimSpace(string(body))
	}
	if t := r.Header.Get(trailerErrorType); t != "" {
		fe.Type = t
	}
	if fe.Type == "" {
		fe.Type = "Unknown"
	}
	return fe
}

// traceID is an X-Ray trace header of the form Lambda sends.
func traceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return fmt.Sprintf("Root=1-%08x-%s;Parent=%s;Sampled=0", time.Now().Unix(), h[:24], h[16:])
}
