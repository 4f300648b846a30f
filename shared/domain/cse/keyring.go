package cse

import (
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/paygate/paygate/shared/store"
)

// RingKey is where the keyring lives: one item of the accounts table (the
// platform's configuration, beside the session-signing secret), so a
// rotation is one conditional write and every instance reads it whole.
var RingKey = store.Key{Table: store.TableAccounts, PK: "config#direct-card-keys", SK: "keys"}

// Key is one entry of the keyring.
type Key struct {
	KID       string     `json:"kid"`
	Backend   string     `json:"backend"` // the Backend's Name
	Ref       string     `json:"ref"`     // the key as the backend names it
	Public    []byte     `json:"public"`  // PKIX DER
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"` // set by the rotation that replaced it
	pub       *rsa.PublicKey
}

// PublicKey is the key's public half.
func (k Key) PublicKey() *rsa.PublicKey { return k.pub }

// Active reports whether the key still decrypts at now.
func (k Key) Active(now time.Time) bool { return k.ExpiresAt == nil || now.Before(*k.ExpiresAt) }

// JWK is the public key as a JSON Web Key (use enc, alg RSA-OAEP-256).
func (k Key) JWK() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.pub, KeyID: k.KID, Algorithm: Alg, Use: "enc"}
}

// JWKMap is the public key's JWK as a JSON object (kty, n, e, kid, alg,
// use), the form a browser's WebCrypto imports.
func (k Key) JWKMap() (map[string]any, error) {
	raw, err := k.JWK().MarshalJSON()
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// AdyenKey is the public key in Adyen's "Exponent|Modulus" form (upper-case
// hex), the form Adyen's client-side-encryption libraries take.
func (k Key) AdyenKey() string {
	return strings.ToUpper(big.NewInt(int64(k.pub.E)).Text(16) + "|" + hex.EncodeToString(k.pub.N.Bytes()))
}

// KID names a public key: a hash of its PKIX form, so the same key always
// has the same kid and registering it twice is one entry.
func KID(der []byte) string {
	sum := sha256.Sum256(der)
	return "cse_" + hex.EncodeToString(sum[:10])
}

// ring is the stored keyring, newest key first.
type ring struct {
	Keys []Key `json:"keys"`
}

func (r *ring) find(kid string) (Key, bool) {
	for _, k := range r.Keys {
		if k.KID == kid {
			return k, true
		}
	}
	return Key{}, false
}

// Keyring reads and rotates the keys and opens JWEs with them. It caches the
// ring for CacheFor; a kid it does not know makes it read again at once, so a
// key rotated in by another instance decrypts from its first payment.
type Keyring struct {
	st      store.Store
	backend Backend
	clock   func() time.Time

	mu       sync.Mutex
	cached   *ring
	cachedAt time.Time
}

// CacheFor is how long a read keyring serves JWEs before it is read again.
const CacheFor = time.Minute

// NewKeyring is the keyring in st over backend; clock nil means time.Now.
func NewKeyring(st store.Store, backend Backend, clock func() time.Time) *Keyring {
	if clock == nil {
		clock = time.Now
	}
	return &Keyring{st: st, backend: backend, clock: clock}
}

// read loads the ring and its version (0: none stored).
func (k *Keyring) read(ctx context.Context) (*ring, int64, error) {
	it, err := k.st.Get(ctx, RingKey)
	if errors.Is(err, store.ErrNotFound) {
		return &ring{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var r ring
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, 0, fmt.Errorf("cse: keyring: %w", err)
	}
	for i := range r.Keys {
		pub, err := x509.ParsePKIXPublicKey(r.Keys[i].Public)
		rsaPub, ok := pub.(*rsa.PublicKey)
		if err != nil || !ok {
			return nil, 0, fmt.Errorf("cse: keyring: key %s is not an RSA public key", r.Keys[i].KID)
		}
		r.Keys[i].pub = rsaPub
	}
	k.mu.Lock()
	k.cached, k.cachedAt = &r, k.clock()
	k.mu.Unlock()
	return &r, it.Version, nil
}

// cachedRing is the ring as last read, if read within CacheFor.
func (k *Keyring) cachedRing() *ring {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cached == nil || k.clock().Sub(k.cachedAt) >= CacheFor {
		return nil
	}
	return k.cached
}

// Active reads the keyring and returns the keys that decrypt now, newest
// (the one to encrypt with) first.
func (k *Keyring) Active(ctx context.Context) ([]Key, error) {
	r, _, err := k.read(ctx)
	if err != nil {
		return nil, err
	}
	now := k.clock()
	var out []Key
	for _, key := range r.Keys {
		if key.Active(now) {
			out = append(out, key)
		}
	}
	return out, nil
}

// Current is the key to encrypt with (the newest, not replaced), from the
// ring as read within CacheFor (else read now), so a page that offers it
// costs no read per request; ok false when the ring has none.
func (k *Keyring) Current(ctx context.Context) (key Key, ok bool, err error) {
	r := k.cachedRing()
	if r == nil {
		if r, _, err = k.read(ctx); err != nil {
			return Key{}, false, err
		}
	}
	now := k.clock()
	for _, key := range r.Keys {
		if key.ExpiresAt == nil && key.Active(now) {
			return key, true, nil
		}
	}
	return Key{}, false, nil
}

// lookup finds kid: in the cached ring, else in a fresh read.
func (k *Keyring) lookup(ctx context.Context, kid string) (Key, bool, error) {
	if r := k.cachedRing(); r != nil {
		if key, ok := r.find(kid); ok {
			return key, true, nil
		}
	}
	r, _, err := k.read(ctx)
	if err != nil {
		return Key{}, false, err
	}
	key, ok := r.find(kid)
	return key, ok, nil
}

// Open decrypts a compact JWE in the client-side-encryption format and
// returns its card at the keyring's clock. Errors: ErrUndecryptable (see
// the package comment), or the store's or backend's own error.
func (k *Keyring) Open(ctx context.Context, compact string) (Card, error) {
	obj, err := jose.ParseEncryptedCompact(compact, []jose.KeyAlgorithm{jose.RSA_OAEP_256}, []jose.ContentEncryption{jose.A256CBC_HS512})
	if err != nil {
		return Card{}, ErrUndecryptable
	}
	kid, ok := checkHeader(obj)
	if !ok {
		return Card{}, ErrUndecryptable
	}
	keys, err := k.candidates(ctx, kid)
	if err != nil {
		return Card{}, err
	}
	now := k.clock()
	for _, key := range keys {
		if !key.Active(now) || key.Backend != k.backend.Name() {
			continue
		}
		u := &unwrapper{ctx: ctx, backend: k.backend, ref: key.Ref}
		plaintext, err := obj.Decrypt(u)
		if err == nil {
			return parseCard(plaintext, now)
		}
		if u.err != nil && !errors.Is(u.err, ErrUndecryptable) {
			return Card{}, u.err // the backend could not be asked
		}
	}
	return Card{}, ErrUndecryptable
}

// candidates are the keys to try on a JWE: the one its kid names, or, for a
// JWE without a kid (Adyen's own libraries write none: their key is the
// Exponent|Modulus string alone), every key, newest first. So a card
// encrypted with the current key costs one backend call either way, and one
// made without a kid just before a rotation one more per newer key.
func (k *Keyring) candidates(ctx context.Context, kid string) ([]Key, error) {
	if kid != "" {
		key, found, err := k.lookup(ctx, kid)
		if err != nil || !found {
			return nil, err
		}
		return []Key{key}, nil
	}
	r := k.cachedRing()
	if r == nil {
		var err error
		if r, _, err = k.read(ctx); err != nil {
			return nil, err
		}
	}
	return r.Keys, nil
}

// Seal encrypts a card to the newest active key, stamping its
// generationtime, in the same format a merchant sends, so Open reads it
// like any other (shared/pay/direct keeps wallet tokens this way).
func (k *Keyring) Seal(ctx context.Context, c Card) (string, error) {
	key, ok, err := k.Current(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("cse: the keyring has no current key (rotate one in with the admin CLI)")
	}
	c.GenerationTime = FormatGenerationTime(k.clock())
	payload, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return Encrypt(key.KID, key.pub, payload)
}

// Rotate creates a key with the backend, like the newest one, and makes it
// the current key at once; the keys it replaces expire after grace (those
// already expiring keep their earlier expiry), and keys expired for more
// than a day are dropped. It returns the new key.
func (k *Keyring) Rotate(ctx context.Context, grace time.Duration) (Key, error) {
	r, _, err := k.read(ctx)
	if err != nil {
		return Key{}, err
	}
	like := ""
	for _, key := range r.Keys {
		if key.Backend == k.backend.Name() {
			like = key.Ref
			break
		}
	}
	ref, pub, err := k.backend.Create(ctx, like)
	if err != nil {
		return Key{}, err
	}
	return k.add(ctx, ref, pub, grace)
}

// EnsureCurrent rotates a first key in when the keyring has no current
// key: make run's start, on the local backend. A deployed stack gets its
// first key from the admin CLI (Adopt of the template's KMS key) instead.
func (k *Keyring) EnsureCurrent(ctx context.Context) error {
	r, _, err := k.read(ctx)
	if err != nil {
		return err
	}
	now := k.clock()
	for _, key := range r.Keys {
		if key.ExpiresAt == nil && key.Active(now) && key.Backend == k.backend.Name() {
			if _, err := k.backend.PublicKey(ctx, key.Ref); err == nil {
				return nil
			}
		}
	}
	_, err = k.Rotate(ctx, 24*time.Hour)
	return err
}

// Adopt registers a key the backend already holds (the KMS key the
// template creates) as the current key, as Rotate does.
func (k *Keyring) Adopt(ctx context.Context, ref string, grace time.Duration) (Key, error) {
	pub, err := k.backend.PublicKey(ctx, ref)
	if err != nil {
		return Key{}, err
	}
	return k.add(ctx, ref, pub, grace)
}

func (k *Keyring) add(ctx context.Context, ref string, pub *rsa.PublicKey, grace time.Duration) (Key, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return Key{}, err
	}
	var added Key
	race := store.Race{Op: "cse.Keyring.add", What: "the keyring", Attempts: 5}
	err = race.Run(ctx, func(int) error {
		r, version, err := k.read(ctx)
		if err != nil {
			return err
		}
		now := k.clock().UTC()
		key := Key{KID: KID(der), Backend: k.backend.Name(), Ref: ref, Public: der, CreatedAt: now, pub: pub}
		next := ring{Keys: []Key{key}}
		until := now.Add(grace)
		for _, old := range r.Keys {
			switch {
			case old.KID == key.KID:
				continue // registered again: it becomes current
			case old.ExpiresAt == nil:
				old.ExpiresAt = &until
			case now.Sub(*old.ExpiresAt) > 24*time.Hour:
				continue
			}
			next.Keys = append(next.Keys, old)
		}
		data, err := json.Marshal(next)
		if err != nil {
			return err
		}
		cond := store.IfAbsent
		if version > 0 {
			cond = store.IfVersion(version)
		}
		// Another rotation won: add to what it wrote.
		if err := race.Settle(k.st.Write(ctx, store.Put(store.Item{Key: RingKey, Data: data}, cond))); err != nil {
			return err
		}
		added = key
		return nil
	})
	if err != nil {
		return Key{}, err
	}
	k.mu.Lock()
	k.cached = nil
	k.mu.Unlock()
	return added, nil
}

// NewSealer is a keyring that seals and opens nothing: the wallet sessions
// function encrypts decoded cards to the current key with it, and holds no
// way to decrypt them (no KMS grant, no key files).
func NewSealer(st store.Store, clock func() time.Time) *Keyring {
	return NewKeyring(st, sealOnly{}, clock)
}

// sealOnly is the Backend of a sealer.
type sealOnly struct{}

var errSealOnly = errors.New("cse: this keyring only seals")

func (sealOnly) Name() string { return "seal-only" }
func (sealOnly) Create(context.Context, string) (string, *rsa.PublicKey, error) {
	return "", nil, errSealOnly
}
func (sealOnly) PublicKey(context.Context, string) (*rsa.PublicKey, error) { return nil, errSealOnly }
func (sealOnly) DecryptKey(context.Context, string, []byte) ([]byte, error) {
	return nil, ErrUndecryptable
}
