// Package auth issues and checks API keys. A key is shown once, when created;
// only its SHA-256 is stored (keys are 190+ bits of randomness, so a fast hash
// is enough). Authenticating a request costs one consistent GetItem: the key
// record carries everything the request needs (account, mode, version).
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// KeyKind separates server (secret) keys from publishable client keys.
type KeyKind string

const (
	Secret KeyKind = "secret" // sk_test_..., sk_live_...: server calls only
	Client KeyKind = "client" // ck_test_..., ck_live_...: drop-in components, tied to origins
)

// Key is a key's record, without its secret.
type Key struct {
	ID              string        `json:"id"`
	AccountID       string        `json:"account_id"`
	Kind            KeyKind       `json:"kind"`
	Mode            accounts.Mode `json:"mode"`
	Prefix          string        `json:"prefix"` // first characters, for people to recognise a key
	Hash            string        `json:"hash"`   // hex SHA-256 of the secret
	Name            string        `json:"name,omitempty"`
	AllowedOrigins  []string      `json:"allowed_origins,omitempty"` // client keys only
	MerchantAccount string        `json:"merchant_account"`
	DefaultVersion  string        `json:"default_version"`
	CreatedAt       time.Time     `json:"created_at"`
	ExpiresAt       *time.Time    `json:"expires_at,omitempty"` // set when rolled
	RevokedAt       *time.Time    `json:"revoked_at,omitempty"`
}

// Active reports whether the key may authenticate at now.
func (k *Key) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Keys manages keys.
type Keys struct {
	st       store.Store
	accounts *accounts.Repo
	clock    func() time.Time
	// decoded spares the decoding of a key record read unchanged since the
	// last read (store.Decoded): every request reads its key.
	decoded store.Decoded[Key]
}

// NewKeys builds the key service; nil clock means time.Now.
func NewKeys(st store.Store, repo *accounts.Repo, clock func() time.Time) *Keys {
	if clock == nil {
		clock = time.Now
	}
	return &Keys{st: st, accounts: repo, clock: clock}
}

// hashKey is the lookup record: the only item read per authenticated request.
func hashKey(hash string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: keyPrefix + hash, SK: "key"}
}

const keyPrefix = "key#"

// secretKey is hashKey(Hash(secret)) and the hash, as the PK's suffix: one
// allocation for both where the two took three, on every authenticated
// request.
func secretKey(secret string) (store.Key, string) {
	sum := sha256.Sum256([]byte(secret))
	var hexed [2 * sha256.Size]byte
	hex.Encode(hexed[:], sum[:])
	var b strings.Builder
	b.Grow(len(keyPrefix) + len(hexed))
	b.WriteString(keyPrefix)
	b.Write(hexed[:])
	pk := b.String()
	return store.Key{Table: store.TableAccounts, PK: pk, SK: "key"}, pk[len(keyPrefix):]
}

// listKey is the account's own index of its keys.
func listKey(accountID, keyID string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: "acct#" + accountID, SK: "key#" + keyID}
}

// Hash returns the stored form of a secret.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newSecret returns prefix + 32 base62 characters (~190 bits).
func newSecret(prefix string) (string, error) {
	var b strings.Builder
	b.WriteString(prefix)
	max := big.NewInt(int64(len(alphabet)))
	for i := 0; i < 32; i++ {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b.WriteByte(alphabet[n.Int64()])
	}
	return b.String(), nil
}

func secretPrefix(kind KeyKind, mode accounts.Mode) string {
	if kind == Client {
		return "ck_" + string(mode) + "_"
	}
	return "sk_" + string(mode) + "_"
}

// NewKey describes a key to create.
type NewKey struct {
	Kind           KeyKind
	Name           string
	AllowedOrigins []string // required for client keys
	ExpiresAt      *time.Time
}

// Create issues a key and returns its record and the secret, shown only now.
func (s *Keys) Create(ctx context.Context, accountID string, in NewKey) (*Key, string, error) {
	a, err := s.accounts.Get(ctx, accountID)
	if err != nil {
		return nil, "", err
	}
	if in.Kind == "" {
		in.Kind = Secret
	}
	if in.Kind != Secret && in.Kind != Client {
		return nil, "", apierr.Invalidf("kind", "kind must be secret or client")
	}
	if in.Kind == Client {
		if len(in.AllowedOrigins) == 0 {
			return nil, "", apierr.Invalidf("allowed_origins", "a client key needs at least one allowed origin")
		}
		for _, o := range in.AllowedOrigins {
			if err := validateOrigin(o); err != nil {
				return nil, "", err
			}
		}
	}
	secret, err := newSecret(secretPrefix(in.Kind, a.Mode))
	if err != nil {
		return nil, "", apierr.Wrap("auth.Create", apierr.Internal, err)
	}
	k := &Key{
		ID:              ids.Prefixed("key"),
		AccountID:       a.ID,
		Kind:            in.Kind,
		Mode:            a.Mode,
		Prefix:          secret[:len(secretPrefix(in.Kind, a.Mode))+4],
		Hash:            Hash(secret),
		Name:            in.Name,
		AllowedOrigins:  in.AllowedOrigins,
		MerchantAccount: a.MerchantAccount,
		DefaultVersion:  a.DefaultVersion,
		CreatedAt:       s.clock().UTC().Truncate(time.Second),
		ExpiresAt:       in.ExpiresAt,
	}
	ops, err := s.putOps(k, store.IfAbsent)
	if err != nil {
		return nil, "", err
	}
	if err := s.st.Write(ctx, ops...); err != nil {
		return nil, "", apierr.Wrap("auth.Create", apierr.Internal, err)
	}
	return k, secret, nil
}

// validateOrigin takes scheme://host[:port]: https, or http on localhost
// or 127.0.0.1 exactly (not a host that starts with them).
func validateOrigin(o string) error {
	p, ok := parseOrigin(o)
	if !ok || p.scheme == "http" && !loopbackOriginHosts[p.host] {
		return apierr.Invalidf("allowed_origins", "origin %q must be scheme://host[:port] (https, or http for localhost)", o)
	}
	return nil
}

// putOps writes both records of a key. The hash record expires (TTL) a day
// after the key does so the table cleans itself; expiry is checked in code.
func (s *Keys) putOps(k *Key, cond store.Cond) ([]store.Op, error) {
	data, err := json.Marshal(k)
	if err != nil {
		return nil, apierr.Wrap("auth.putOps", apierr.Internal, err)
	}
	var exp time.Time
	if k.ExpiresAt != nil {
		exp = k.ExpiresAt.Add(24 * time.Hour)
	}
	return []store.Op{
		store.Put(store.Item{Key: hashKey(k.Hash), Data: data, ExpiresAt: exp}, cond),
		store.Put(store.Item{Key: listKey(k.AccountID, k.ID), Data: data}, cond),
	}, nil
}

// List returns the account's keys, newest first, revoked ones included.
func (s *Keys) List(ctx context.Context, accountID string) ([]*Key, error) {
	var out []*Key
	cursor := ""
	for {
		p, err := s.st.Query(ctx, store.Query{Table: store.TableAccounts, PK: "acct#" + accountID, Prefix: "key#", Desc: true, Limit: 100, Cursor: cursor})
		if err != nil {
			return nil, apierr.Wrap("auth.List", apierr.Internal, err)
		}
		for _, it := range p.Items {
			var k Key
			if err := json.Unmarshal(it.Data, &k); err != nil {
				return nil, apierr.Wrap("auth.List", apierr.Internal, err)
			}
			out = append(out, &k)
		}
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
}

func (s *Keys) get(ctx context.Context, accountID, keyID string) (*Key, error) {
	it, err := s.st.Get(ctx, listKey(accountID, keyID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such key: %s", keyID)
	}
	if err != nil {
		return nil, apierr.Wrap("auth.get", apierr.Internal, err)
	}
	var k Key
	if err := json.Unmarshal(it.Data, &k); err != nil {
		return nil, apierr.Wrap("auth.get", apierr.Internal, err)
	}
	return &k, nil
}

// Revoke disables a key at once: the hash record is deleted, so the very next
// request with it fails; the listing keeps the record, marked revoked.
func (s *Keys) Revoke(ctx context.Context, accountID, keyID string) (*Key, error) {
	k, err := s.get(ctx, accountID, keyID)
	if err != nil {
		return nil, err
	}
	if k.RevokedAt != nil {
		return k, nil
	}
	now := s.clock().UTC().Truncate(time.Second)
	k.RevokedAt = &now
	data, err := json.Marshal(k)
	if err != nil {
		return nil, apierr.Wrap("auth.Revoke", apierr.Internal, err)
	}
	err = s.st.Write(ctx,
		store.Delete(hashKey(k.Hash), store.Always),
		store.Put(store.Item{Key: listKey(k.AccountID, k.ID), Data: data}, store.IfExists),
	)
	if err != nil {
		return nil, apierr.Wrap("auth.Revoke", apierr.Internal, err)
	}
	return k, nil
}

// Roll issues a new key of the same kind and keeps the old one valid until
// oldExpiresAt (now or in the past: the old key stops at once).
func (s *Keys) Roll(ctx context.Context, accountID, keyID string, oldExpiresAt time.Time) (newKey *Key, secret string, err error) {
	old, err := s.get(ctx, accountID, keyID)
	if err != nil {
		return nil, "", err
	}
	if !old.Active(s.clock()) {
		return nil, "", apierr.New(CodeKeyInactive, "key %s is revoked or expired", keyID)
	}
	newKey, secret, err = s.Create(ctx, accountID, NewKey{Kind: old.Kind, Name: old.Name, AllowedOrigins: old.AllowedOrigins})
	if err != nil {
		return nil, "", err
	}
	exp := oldExpiresAt.UTC()
	old.ExpiresAt = &exp
	ops, err := s.putOps(old, store.IfExists)
	if err != nil {
		return nil, "", err
	}
	if err := s.st.Write(ctx, ops...); err != nil {
		return nil, "", apierr.Wrap("auth.Roll", apierr.Internal, err)
	}
	return newKey, secret, nil
}

// SetDefaultVersion changes the account's default version and the copy each
// key record carries, in one transaction.
func (s *Keys) SetDefaultVersion(ctx context.Context, accountID, v string) error {
	if err := accounts.ValidateVersion(v); err != nil {
		return err
	}
	keys, err := s.List(ctx, accountID)
	if err != nil {
		return err
	}
	_, err = s.accounts.Update(ctx, accountID, func(a *accounts.Account) ([]store.Op, error) {
		a.DefaultVersion = v
		var ops []store.Op
		now := s.clock()
		for _, k := range keys {
			// Revoked and expired keys authenticate nothing, and an expired
			// key's lookup record may already be gone (TTL), so skip them.
			if !k.Active(now) {
				continue
			}
			k.DefaultVersion = v
			kops, err := s.putOps(k, store.IfExists)
			if err != nil {
				return nil, err
			}
			ops = append(ops, kops...)
		}
		if len(ops)+1 > store.MaxTransactOps {
			return nil, apierr.New(CodeTooManyKeys, "revoke unused keys first")
		}
		return ops, nil
	})
	return err
}

// Authenticate resolves a presented secret to its key with one read. Every
// failure is the same 401 so callers learn nothing about other keys.
func (s *Keys) Authenticate(ctx context.Context, secret string) (*Key, error) {
	key, h := secretKey(secret)
	it, err := s.st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrInvalidKey
	}
	if err != nil {
		return nil, apierr.Wrap("auth.Authenticate", apierr.Unavailable, err)
	}
	k, err := s.decoded.Decode(it.Key, it.Data)
	if err != nil {
		return nil, apierr.Wrap("auth.Authenticate", apierr.Internal, err)
	}
	k.AllowedOrigins = slices.Clone(k.AllowedOrigins) // the caller's to change
	// The lookup is by hash; compare again in constant time as defence in depth.
	if subtle.ConstantTimeCompare([]byte(k.Hash), []byte(h)) != 1 || !k.Active(s.clock()) {
		return nil, ErrInvalidKey
	}
	return &k, nil
}

// ErrInvalidKey is the answer to a key that is not an active key of any
// account (its kind's default code, invalid_api_key).
var ErrInvalidKey = apierr.Kindf(apierr.Unauthenticated, "the API key is invalid, expired or revoked")

// Import registers a caller-chosen secret as a key of a test-mode account, so
// scripts and sample events can use a known sandbox key (SANDBOX_API_KEY).
// Live accounts never take imported keys; importing a key that exists for the
// same account is a no-op.
func (s *Keys) Import(ctx context.Context, accountID, secret, name string) (*Key, error) {
	return s.importKey(ctx, accountID, secret, Secret, nil, name)
}

// ImportClient is Import for a client key (ck_test_...) allowed from
// origins, so sample events can call the drop-in's endpoints. Re-importing
// an existing key is a no-op that keeps its origins.
func (s *Keys) ImportClient(ctx context.Context, accountID, secret string, origins []string, name string) (*Key, error) {
	if len(origins) == 0 {
		return nil, apierr.Invalidf("allowed_origins", "a client key needs at least one allowed origin")
	}
	for _, o := range origins {
		if err := validateOrigin(o); err != nil {
			return nil, err
		}
	}
	return s.importKey(ctx, accountID, secret, Client, origins, name)
}

func (s *Keys) importKey(ctx context.Context, accountID, secret string, kind KeyKind, origins []string, name string) (*Key, error) {
	a, err := s.accounts.Get(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if a.Mode != accounts.Test {
		return nil, apierr.Invalidf("mode", "only test-mode accounts take imported keys")
	}
	want := secretPrefix(kind, accounts.Test)
	if !strings.HasPrefix(secret, want) || len(secret) < len(want)+24 || len(secret) > 200 {
		return nil, apierr.Invalidf("key", "an imported key must start with %s and have at least 24 more characters", want)
	}
	if k, err := s.Authenticate(ctx, secret); err == nil {
		if k.AccountID != accountID {
			return nil, apierr.New(CodeKeyTaken, "this key belongs to another account")
		}
		return k, nil
	}
	k := &Key{
		ID: ids.Prefixed("key"), AccountID: a.ID, Kind: kind, Mode: a.Mode, Prefix: secret[:len(want)+4],
		Hash: Hash(secret), Name: name, AllowedOrigins: origins, MerchantAccount: a.MerchantAccount,
		DefaultVersion: a.DefaultVersion, CreatedAt: s.clock().UTC().Truncate(time.Second),
	}
	ops, err := s.putOps(k, store.IfAbsent)
	if err != nil {
		return nil, err
	}
	if err := s.st.Write(ctx, ops...); err != nil {
		if _, ok := store.IsConditionFailed(err); ok {
			return nil, apierr.New(CodeKeyTaken, "this key is already registered")
		}
		return nil, apierr.Wrap("auth.Import", apierr.Internal, err)
	}
	return k, nil
}

// OriginAllowed reports whether an active client key of the account allows
// origin: the decision of a CORS preflight, which carries no key (see
// httpapi's cors.go). One Query of the account's key records.
func (s *Keys) OriginAllowed(ctx context.Context, accountID, origin string) (bool, error) {
	keys, err := s.List(ctx, accountID)
	if err != nil {
		return false, err
	}
	now := s.clock()
	for _, k := range keys {
		if k.Kind == Client && k.Active(now) && k.AllowsOrigin(origin) {
			return true, nil
		}
	}
	return false, nil
}
