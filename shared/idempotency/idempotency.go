// Package idempotency makes retried POSTs safe. Scope is account + key; a
// record is kept at least 24 h. Only definitive results (2xx) are stored:
// validation errors, insufficient_balance and 5xx release the key so a retry
// with the same key runs again (spec §4.4, §7).
//
// Two ways to use it:
//   - Claim/Complete/Release around work with outside effects: the claim is a
//     put-if-absent "in progress" record with a lease, so a duplicate in flight
//     gets 409, and a crashed holder's claim lapses after the lease.
//   - Inline: Lookup before the business write, then put RecordOp in the same
//     transaction as the business change (one write for an order), and pass a
//     failed condition to Resolve. A concurrent duplicate then replays the
//     winner's result instead of seeing 409.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Header is the request header carrying the key.
const Header = "Idempotency-Key"

// ReplayedHeader marks a replayed response.
const ReplayedHeader = "Idempotent-Replayed"

// MaxKeyLen is the longest key accepted (Stripe's limit).
const MaxKeyLen = 255

// Retention is how long a completed result is kept.
const Retention = 24 * time.Hour

// Lease is how long an in-progress claim blocks duplicates before it lapses.
const Lease = 60 * time.Second

// Request identifies one idempotent call.
type Request struct {
	Account     string
	Key         string
	Fingerprint string // hash of method, route and canonical body
}

// Result is a stored response.
type Result struct {
	Status int    `json:"status"`
	Body   []byte `json:"body"`
	// Version is the API version the result was rendered in, echoed on replay.
	Version string `json:"version,omitempty"`
}

type record struct {
	State       string    `json:"state"` // in_progress | done
	Fingerprint string    `json:"fingerprint"`
	Result      *Result   `json:"result,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

const (
	stateInProgress = "in_progress"
	stateDone       = "done"
)

// Store keeps idempotency records.
type Store struct {
	st    store.Store
	clock func() time.Time
}

// New builds the idempotency store; nil clock means time.Now.
func New(st store.Store, clock func() time.Time) *Store {
	if clock == nil {
		clock = time.Now
	}
	return &Store{st: st, clock: clock}
}

// ValidateKey checks the header value.
func ValidateKey(key string) error {
	if key == "" {
		return &apierr.Error{Kind: apierr.Invalid, Code: "idempotency_key_missing", Param: Header,
			Message: "this request needs an Idempotency-Key header: a unique value per business attempt, reused on retries"}
	}
	if len(key) > MaxKeyLen {
		return apierr.Invalidf(Header, "Idempotency-Key is longer than %d characters", MaxKeyLen)
	}
	for _, r := range key {
		if r < 0x20 || r > 0x7e {
			return apierr.Invalidf(Header, "Idempotency-Key must be printable ASCII")
		}
	}
	return nil
}

// Fingerprint hashes what makes two requests "the same": method, route and
// the body in canonical JSON form (key order and whitespace do not matter).
func Fingerprint(method, path string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canonical(body))
	return hex.EncodeToString(h.Sum(nil))
}

func canonical(body []byte) []byte {
	if len(body) == 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return body
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return body
	}
	return out
}

func (s *Store) key(r Request) store.Key {
	return store.Key{Table: store.TableIdempotency, PK: "idem#" + r.Account + "#" + r.Key, SK: "rec"}
}

// Claim takes the key for this request. It returns a non-nil Result to replay
// when the same request already completed; an error of kind Conflict when a
// duplicate is in flight; IdempotencyMismatch when the key was used for a
// different request; nil, nil when the caller now holds the claim.
func (s *Store) Claim(ctx context.Context, r Request) (*Result, error) {
	now := s.clock()
	rec := record{State: stateInProgress, Fingerprint: r.Fingerprint, CreatedAt: now.UTC()}
	data, _ := json.Marshal(rec)
	err := s.st.Write(ctx, store.Put(store.Item{Key: s.key(r), Data: data, ExpiresAt: now.Add(Lease)}, store.IfAbsent))
	if err == nil {
		return nil, nil
	}
	if cf, ok := store.IsConditionFailed(err); ok {
		return s.Resolve(r, cf)
	}
	return nil, apierr.Wrap("idempotency.Claim", apierr.Unavailable, err)
}

// Complete stores the definitive result of a claimed request.
func (s *Store) Complete(ctx context.Context, r Request, res Result) error {
	err := s.st.Write(ctx, s.RecordOp(r, res, store.IfExists))
	if err != nil {
		return apierr.Wrap("idempotency.Complete", apierr.Internal, err)
	}
	return nil
}

// Release drops a claim whose result is not definitive, so a retry runs again.
func (s *Store) Release(ctx context.Context, r Request) error {
	err := s.st.Write(ctx, store.Delete(s.key(r), store.Always))
	if err != nil {
		return apierr.Wrap("idempotency.Release", apierr.Internal, err)
	}
	return nil
}

// Lookup reads the key's record: a Result to replay, a Conflict or
// IdempotencyMismatch error, or nil, nil when the key is free.
func (s *Store) Lookup(ctx context.Context, r Request) (*Result, error) {
	it, err := s.st.Get(ctx, s.key(r))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, apierr.Wrap("idempotency.Lookup", apierr.Unavailable, err)
	}
	return s.interpret(r, &it)
}

// RecordOp is the write that stores a definitive result. Inline users put it
// in their business transaction with store.IfAbsent.
func (s *Store) RecordOp(r Request, res Result, cond store.Cond) store.Op {
	now := s.clock()
	data, _ := json.Marshal(record{State: stateDone, Fingerprint: r.Fingerprint, Result: &res, CreatedAt: now.UTC()})
	return store.Put(store.Item{Key: s.key(r), Data: data, ExpiresAt: now.Add(Retention)}, cond)
}

// Resolve interprets a failed condition on the key's record (from Claim or
// from an inline transaction whose RecordOp failed).
func (s *Store) Resolve(r Request, cf *store.ConditionFailedError) (*Result, error) {
	if cf.Current == nil {
		// The record vanished between the write and now (lease lapsed): a
		// retry will find the key free.
		return nil, inFlight
	}
	return s.interpret(r, cf.Current)
}

func (s *Store) interpret(r Request, it *store.Item) (*Result, error) {
	var rec record
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return nil, apierr.Wrap("idempotency", apierr.Internal, err)
	}
	if rec.Fingerprint != r.Fingerprint {
		return nil, &apierr.Error{Kind: apierr.IdempotencyMismatch, Param: Header,
			Message: "this Idempotency-Key was used with a different request; use a new key for a new request"}
	}
	if rec.State != stateDone || rec.Result == nil {
		return nil, inFlight
	}
	return rec.Result, nil
}

var inFlight = &apierr.Error{Kind: apierr.Conflict, Code: "idempotency_in_flight", Param: Header,
	Message: "a request with this Idempotency-Key is still in progress; retry later"}
