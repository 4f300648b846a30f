// Package localkeys is the keyring backend of make run and the tests: RSA
// private keys as PKCS#8 PEM files (mode 0600) in one directory under the
// data directory. It does what KMS does for a deployed stack, on the
// machine: the private key is read only to unwrap a content-encryption key.
package localkeys

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/paygate/paygate/shared/domain/cse"
)

// Bits is the size of the keys it makes (Adyen's client-side-encryption
// keys are 2048-bit RSA, as is the KMS key spec the template uses).
const Bits = 2048

// Dir is where a data directory keeps the keys.
func Dir(dataDir string) string { return filepath.Join(dataDir, "direct-keys") }

// refPattern is a key file's name: a stored ref is only ever one of these,
// so a keyring item cannot point the backend at another file.
var refPattern = regexp.MustCompile(`^[0-9a-f]{32}\.pem$`)

// Backend keeps keys in a directory.
type Backend struct {
	dir  string
	mu   sync.Mutex
	keys map[string]*rsa.PrivateKey
}

// New is the backend over dir (created on the first key); with dir "" the
// keys live in memory only, for tools and tests that build services without
// a data directory.
func New(dir string) *Backend { return &Backend{dir: dir, keys: map[string]*rsa.PrivateKey{}} }

// Name is "file".
func (b *Backend) Name() string { return "file" }

// Create makes a key pair and writes its private half to a new file.
func (b *Backend) Create(_ context.Context, _ string) (string, *rsa.PublicKey, error) {
	priv, err := rsa.GenerateKey(rand.Reader, Bits)
	if err != nil {
		return "", nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(pubDER)
	ref := hex.EncodeToString(sum[:16]) + ".pem"
	if b.dir == "" {
		b.mu.Lock()
		b.keys[ref] = priv
		b.mu.Unlock()
		return ref, &priv.PublicKey, nil
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return "", nil, err
	}
	tmp, err := os.CreateTemp(b.dir, ".key-*")
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(tmp.Name())
	if err := pem.Encode(tmp, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		tmp.Close()
		return "", nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", nil, err
	}
	if err := tmp.Close(); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(b.dir, ref)); err != nil {
		return "", nil, err
	}
	b.mu.Lock()
	b.keys[ref] = priv
	b.mu.Unlock()
	return ref, &priv.PublicKey, nil
}

func (b *Backend) load(ref string) (*rsa.PrivateKey, error) {
	if !refPattern.MatchString(ref) {
		return nil, fmt.Errorf("localkeys: %q is not a key file name", ref)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if k, ok := b.keys[ref]; ok {
		return k, nil
	}
	if b.dir == "" {
		return nil, fmt.Errorf("localkeys: %s: %w", ref, os.ErrNotExist)
	}
	raw, err := os.ReadFile(filepath.Join(b.dir, ref))
	if err != nil {
		return nil, fmt.Errorf("localkeys: %w", err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, fmt.Errorf("localkeys: %s holds no PEM block", ref)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("localkeys: %s: %w", ref, err)
	}
	k, ok := parsed.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("localkeys: %s is not an RSA key", ref)
	}
	b.keys[ref] = k
	return k, nil
}

// PublicKey reads ref's public half.
func (b *Backend) PublicKey(_ context.Context, ref string) (*rsa.PublicKey, error) {
	k, err := b.load(ref)
	if err != nil {
		return nil, err
	}
	return &k.PublicKey, nil
}

// DecryptKey unwraps an RSA-OAEP-256 (SHA-256, MGF1-SHA-256, no label)
// encrypted key, as KMS's RSAES_OAEP_SHA_256 does.
func (b *Backend) DecryptKey(_ context.Context, ref string, encryptedKey []byte) ([]byte, error) {
	k, err := b.load(ref)
	if errors.Is(err, os.ErrNotExist) {
		return nil, cse.ErrUndecryptable // a key of another machine's data directory
	}
	if err != nil {
		return nil, err
	}
	cek, err := rsa.DecryptOAEP(sha256.New(), nil, k, encryptedKey, nil)
	if err != nil {
		return nil, cse.ErrUndecryptable
	}
	return cek, nil
}
