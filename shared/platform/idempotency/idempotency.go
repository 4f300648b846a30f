// Package idempotency makes retried POSTs safe. Scope is account + key kind +
// key: a public client key (ck_) and a secret key are two namespaces, so a
// shopper's browser can never take or burn a merchant's key. A record is
// kept at least 24 h. Only definitive results (2xx) are stored: validation
// errors, insufficient_balance and 5xx are not, so a retry with the same key
// runs again (spec §4.4, §7). Two requests are "the same" when method, actual
// path (never the route pattern: /orders/A/complete is not /orders/B/complete)
// and canonical body match.
//
// A fingerprint is an HMAC-SHA256 under the deployment's secret
// (IDEMPOTENCY_FINGERPRINT_KEY, app.Config), never a plain hash: a card
// payout's or a /v2 payment's body holds a card number, and an unkeyed hash
// of it could be matched against every possible number. Stored keyed
// fingerprints carry the prefix "hmac-sha256:"; a record without it was
// written before, with the unkeyed SHA-256, and is compared with the
// request's LegacyFingerprint (computed in memory, never stored) until such
// records have expired (Retention), so a rollout neither replays wrongly nor
// refuses a retry.
//
// Two ways to use it:
//   - Inline, for every write that creates something or moves money: Begin
//     (one read: replay, 409 or 422 before any work), then Commit, the one
//     helper that puts the record in the same transaction as the business
//     ops and maps a failed condition on it to a replay, 409 or 422. A
//     concurrent duplicate then replays the winner's result.
//   - Claim/Complete/Release around work whose effects cannot join a store
//     transaction: the claim is a put-if-absent "in progress" record holding
//     a random token, so a duplicate in flight gets 409; its lease lapses
//     after Lease, when a retry takes it over. Complete and Release act only
//     while the token is still the holder's, so a lapsed holder can never
//     overwrite or delete the next holder's claim or result.
//
// Claim, Complete, Release and Commit run on a context detached from the
// caller's cancellation (a client's disconnect or deadline): once the work
// ran, its record is written, so the retry replays instead of running twice.
package idempotency

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
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

// Lease is how long an in-progress claim blocks duplicates before a retry
// may take it over.
const Lease = 60 * time.Second

// claimKept is how long an in-progress record stays stored (its lease is
// checked in code): longer than any holder can run (Lambda's 15 min
// maximum), so a slow holder whose lease lapsed, but whom nobody replaced,
// still finds its claim and records its result.
const claimKept = 15 * time.Minute

// detachedTimeout bounds the store calls that no caller can cancel.
const detachedTimeout = 10 * time.Second

// KeyKindClient is the key kind of public client keys (auth.Client); every
// other kind (secret keys, operators' tools) shares the secret namespace.
const KeyKindClient = "client"

// Request identifies one idempotent call.
type Request struct {
	Account     string
	KeyKind     string // the caller's credential kind: KeyKindClient is its own namespace
	Key         string
	Fingerprint string // keyed hash of method, actual path and canonical body (Store.Request)
	// LegacyFingerprint is the unkeyed SHA-256 records stored before keyed
	// fingerprints hold: compared with such a record, never stored.
	LegacyFingerprint string
}

// matches reports whether a record's stored fingerprint is this request's:
// a keyed one equals Fingerprint; one written before keys (no prefix) equals
// LegacyFingerprint.
func (r Request) matches(stored string) bool {
	if stored == r.Fingerprint {
		return true
	}
	return !strings.HasPrefix(stored, keyedPrefix) && r.LegacyFingerprint != "" && stored == r.LegacyFingerprint
}

// Result is a stored response.
type Result struct {
	Status int    `json:"status"`
	Body   []byte `json:"body"`
	// Version is the API version the result was rendered in, echoed on replay.
	Version string `json:"version,omitempty"`
}

type record struct {
	State       string     `json:"state"` // in_progress | done
	Fingerprint string     `json:"fingerprint"`
	Result      *Result    `json:"result,omitempty"`
	Token       string     `json:"token,omitempty"`       // the holder's claim (in progress)
	LeaseUntil  *time.Time `json:"lease_until,omitempty"` // when a retry may take the claim over
	CreatedAt   time.Time  `json:"created_at"`
}

const (
	stateInProgress = "in_progress"
	stateDone       = "done"
)

// Store keeps idempotency records.
type Store struct {
	st    store.Store
	clock func() time.Time
	fpKey []byte // the fingerprints' HMAC key
}

// DevFingerprintKey is the fingerprint key where none is configured: make
// run, the tests, hand-built dependencies. A deployed stack sets its own
// (app.ConfigFromEnv refuses to start without one outside ENVIRONMENT=local).
var DevFingerprintKey = []byte("paygate-local-idempotency-fingerprint-key")

// New builds the idempotency store; nil clock means time.Now. Its
// fingerprints are keyed with DevFingerprintKey until WithFingerprintKey.
func New(st store.Store, clock func() time.Time) *Store {
	if clock == nil {
		clock = time.Now
	}
	return &Store{st: st, clock: clock, fpKey: DevFingerprintKey}
}

// WithFingerprintKey keys the store's fingerprints with key (empty keeps
// the current one).
func (s *Store) WithFingerprintKey(key []byte) *Store {
	if len(key) > 0 {
		s.fpKey = bytes.Clone(key)
	}
	return s
}

// Request identifies one call on key of account and key kind: its
// fingerprint of method, actual path and body keyed with the store's key,
// and the legacy one older records are compared with.
func (s *Store) Request(account, keyKind, key, method, path string, body []byte) Request {
	// The body is put in canonical form once for both fingerprints: that,
	// not the hashing, is what a fingerprint costs.
	c := canonical(body)
	return Request{Account: account, KeyKind: keyKind, Key: key,
		Fingerprint: s.fingerprint(method, path, c), LegacyFingerprint: legacyFingerprintOf(method, path, c)}
}

// ValidateKey checks the header value.
func ValidateKey(key string) error {
	if key == "" {
		return apierr.New(CodeKeyMissing, "this request needs an Idempotency-Key header: a unique value per business attempt, reused on retries").WithParam(Header)
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

// keyedPrefix marks a stored fingerprint as keyed (HMAC-SHA256).
const keyedPrefix = "hmac-sha256:"

// Fingerprint hashes what makes two requests "the same": method, the actual
// request path (with its ids) and the body in canonical JSON form (key order
// and whitespace do not matter), as an HMAC-SHA256 under the store's key.
func (s *Store) Fingerprint(method, path string, body []byte) string {
	return s.fingerprint(method, path, canonical(body))
}

// fingerprint is Fingerprint of a body already in canonical form.
func (s *Store) fingerprint(method, path string, canon []byte) string {
	h := hmac.New(sha256.New, s.fpKey)
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canon)
	return keyedPrefix + hex.EncodeToString(h.Sum(nil))
}

// legacyFingerprintOf is the unkeyed fingerprint records stored before keyed
// ones hold, of a body already in canonical form. It is only compared with
// them; remove it (and Request.LegacyFingerprint) once every such record has
// expired.
func legacyFingerprintOf(method, path string, canon []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(canon)
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

// key addresses a record. The key kind is the sort key, so the two
// namespaces never collide whatever characters a key holds; secret keys keep
// the layout records had before client keys were separated.
func (s *Store) key(r Request) store.Key {
	sk := "rec"
	if r.KeyKind == KeyKindClient {
		sk = "rec#" + KeyKindClient
	}
	return store.Key{Table: store.TableIdempotency, PK: "idem#" + r.Account + "#" + r.Key, SK: sk}
}

// detach gives the store calls that must finish once work has run a context
// that the caller's cancellation or deadline cannot end.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), detachedTimeout)
}

// Claim is a held claim on a key, from Store.Claim.
type Claim struct {
	Request
	token string
}

// Claim takes the key for this request. It returns a non-nil Result to replay
// when the same request already completed; an error of kind Conflict when a
// duplicate is in flight; IdempotencyMismatch when the key was used for a
// different request; else the claim the caller now holds. A claim whose lease
// lapsed is taken over (its holder's Complete and Release then do nothing).
func (s *Store) Claim(ctx context.Context, r Request) (*Result, *Claim, error) {
	ctx, cancel := detach(ctx)
	defer cancel()
	c := &Claim{Request: r, token: newToken()}
	cond := store.IfAbsent
	for attempt := 0; attempt < 3; attempt++ {
		now := s.clock()
		lease := now.Add(Lease).UTC()
		rec := record{State: stateInProgress, Fingerprint: r.Fingerprint, Token: c.token, LeaseUntil: &lease, CreatedAt: now.UTC()}
		data, _ := json.Marshal(rec)
		err := s.st.Write(ctx, store.Put(store.Item{Key: s.key(r), Data: data, ExpiresAt: now.Add(claimKept)}, cond))
		if err == nil {
			return nil, c, nil
		}
		cf, ok := store.IsConditionFailed(err)
		if !ok {
			return nil, nil, apierr.Wrap("idempotency.Claim", apierr.Unavailable, err)
		}
		if cf.Current == nil {
			cond = store.IfAbsent // the record went away meanwhile: try again
			continue
		}
		cur, err := decode(cf.Current)
		if err != nil {
			return nil, nil, err
		}
		if cur.State == stateInProgress && cur.Token == c.token {
			// Our own claim: the put committed, its answer was lost and the
			// SDK sent it again (found by make chaos; without this the
			// request answered 409 to itself and every retry of it waited
			// out the lease).
			return nil, c, nil
		}
		if r.matches(cur.Fingerprint) && cur.State == stateInProgress && cur.LeaseUntil != nil && !now.Before(*cur.LeaseUntil) {
			// The holder's lease lapsed: take the claim over, on the version
			// seen, so of many retries exactly one does.
			cond = store.IfVersion(cf.Current.Version)
			continue
		}
		prev, err := s.interpret(r, cur)
		return prev, nil, err
	}
	return nil, nil, inFlight
}

// Complete stores the definitive result of a held claim. If the claim lapsed
// and another holder took the key, nothing is written and the error is a
// Conflict: a lapsed holder never overwrites the next one.
func (s *Store) Complete(ctx context.Context, c *Claim, res Result) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	v, err := s.held(ctx, c, "idempotency.Complete")
	if err != nil {
		return err
	}
	err = s.st.Write(ctx, s.RecordOp(c.Request, res, store.IfVersion(v)))
	if cf, ok := store.IsConditionFailed(err); ok {
		if s.holdsResult(cf.Current, c.Request, res) {
			return nil // our write committed and its answer was lost
		}
		return lapsed("idempotency.Complete")
	}
	if err != nil {
		return apierr.Wrap("idempotency.Complete", apierr.Unavailable, err)
	}
	return nil
}

// Release drops a held claim whose result is not definitive, so a retry runs
// again. A claim that is no longer the caller's is left alone.
func (s *Store) Release(ctx context.Context, c *Claim) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	v, err := s.held(ctx, c, "idempotency.Release")
	if apierr.Is(err, apierr.Conflict) {
		return nil // another holder's now: not ours to drop
	}
	if err != nil {
		return err
	}
	err = s.st.Write(ctx, store.Delete(s.key(c.Request), store.IfVersion(v)))
	if _, ok := store.IsConditionFailed(err); ok {
		return nil
	}
	if err != nil {
		return apierr.Wrap("idempotency.Release", apierr.Unavailable, err)
	}
	return nil
}

// holdsResult reports whether it (a record as it stood when a condition
// failed) is already the completed result res of r: a write that committed
// and was sent again, not another holder's.
func (s *Store) holdsResult(it *store.Item, r Request, res Result) bool {
	if it == nil {
		return false
	}
	cur, err := decode(it)
	if err != nil || cur.State == stateInProgress || !r.matches(cur.Fingerprint) {
		return false
	}
	prev, err := s.interpret(r, cur)
	return err == nil && prev != nil && prev.Status == res.Status && bytes.Equal(prev.Body, res.Body)
}

// held reads the key's record and returns its version when it is still c's
// claim; a Conflict when it is not.
func (s *Store) held(ctx context.Context, c *Claim, op string) (int64, error) {
	it, err := s.st.Get(ctx, s.key(c.Request))
	if errors.Is(err, store.ErrNotFound) {
		return 0, lapsed(op)
	}
	if err != nil {
		return 0, apierr.Wrap(op, apierr.Unavailable, err)
	}
	rec, err := decode(&it)
	if err != nil {
		return 0, err
	}
	if rec.State != stateInProgress || rec.Token != c.token {
		return 0, lapsed(op)
	}
	return it.Version, nil
}

func lapsed(op string) error {
	e := apierr.New(CodeClaimLapsed, "this request's claim on its Idempotency-Key lapsed and was taken by a retry")
	e.Op = op
	return e
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
	rec, err := decode(&it)
	if err != nil {
		return nil, err
	}
	return s.interpret(r, rec)
}

// RecordOp is the write that stores a definitive result. Commit puts it in
// the business transaction with store.IfAbsent.
func (s *Store) RecordOp(r Request, res Result, cond store.Cond) store.Op {
	now := s.clock()
	data, _ := json.Marshal(record{State: stateDone, Fingerprint: r.Fingerprint, Result: &res, CreatedAt: now.UTC()})
	return store.Put(store.Item{Key: s.key(r), Data: data, ExpiresAt: now.Add(Retention)}, cond)
}

// Resolve interprets a failed condition on the key's record (from a
// transaction whose RecordOp failed).
func (s *Store) Resolve(r Request, cf *store.ConditionFailedError) (*Result, error) {
	if cf.Current == nil {
		// The record vanished between the write and now (a claim was
		// released): a retry will find the key free.
		return nil, inFlight
	}
	rec, err := decode(cf.Current)
	if err != nil {
		return nil, err
	}
	return s.interpret(r, rec)
}

func decode(it *store.Item) (*record, error) {
	var rec record
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return nil, apierr.Wrap("idempotency", apierr.Internal, err)
	}
	return &rec, nil
}

func (s *Store) interpret(r Request, rec *record) (*Result, error) {
	if !r.matches(rec.Fingerprint) {
		return nil, &apierr.Error{Kind: apierr.IdempotencyMismatch, Param: Header,
			Message: "this Idempotency-Key was used with a different request; use a new key for a new request"}
	}
	if rec.State != stateDone || rec.Result == nil {
		return nil, inFlight
	}
	return rec.Result, nil
}

var inFlight = apierr.New(CodeInFlight, "a request with this Idempotency-Key is still in progress; retry later").WithParam(Header)

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
