// Package filekeys is the secretbox backend of make run and the tests, as
// shared/domain/cse/localkeys is the card keyring's: one 256-bit key in a
// file (mode 0600) under the data directory wraps each data key with
// AES-256-GCM, as a KMS key does in a deployed stack. The key file is made
// on first use; losing it loses every secret sealed with it (a local
// data directory's webhooks and two-step sign-ins).
package filekeys

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/paygate/paygate/shared/domain/secretbox"
)

// Dir is where a data directory keeps the key.
func Dir(dataDir string) string { return filepath.Join(dataDir, "secret-keys") }

const keyFile = "wrapping.key"

// wrapAAD binds a wrapped data key to its purpose.
var wrapAAD = []byte("paygate secretbox data key")

// Backend wraps data keys with the key of one directory.
type Backend struct {
	dir  string
	once sync.Once
	gcm  cipher.AEAD
	err  error
}

// New is the backend over dir (the key made there on first use); dir ""
// keeps the key in memory for the process (see Memory).
func New(dir string) *Backend { return &Backend{dir: dir} }

var memory = New("")

// Memory is the process's in-memory backend, for dependencies built
// without a data directory (tests, tools): one key for the process, so every
// function built over one store opens what the others sealed.
func Memory() *Backend { return memory }

// Name is "file".
func (b *Backend) Name() string { return "file" }

func (b *Backend) load() (cipher.AEAD, error) {
	b.once.Do(func() {
		var key []byte
		key, b.err = b.readOrMake()
		if b.err != nil {
			return
		}
		var block cipher.Block
		if block, b.err = aes.NewCipher(key); b.err == nil {
			b.gcm, b.err = cipher.NewGCM(block)
		}
	})
	return b.gcm, b.err
}

func (b *Backend) readOrMake() ([]byte, error) {
	if b.dir == "" {
		k := make([]byte, 32)
		_, err := rand.Read(k)
		return k, err
	}
	path := filepath.Join(b.dir, keyFile)
	if k, err := read(path); !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return nil, fmt.Errorf("filekeys: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(b.dir, ".key-*")
	if err != nil {
		return nil, fmt.Errorf("filekeys: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(k) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("filekeys: %w", err)
	}
	// Link fails if another process made the key meanwhile: then theirs is
	// the key.
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("filekeys: %w", err)
	}
	return read(path)
}

func read(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(k) != 32 {
		return nil, fmt.Errorf("filekeys: %s does not hold a 256-bit hex key", path)
	}
	return k, nil
}

// Generate draws a data key and wraps it (nonce and ciphertext).
func (b *Backend) Generate(_ context.Context) (plain, wrapped []byte, err error) {
	gcm, err := b.load()
	if err != nil {
		return nil, nil, err
	}
	plain = make([]byte, 32)
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(plain); err != nil {
		return nil, nil, err
	}
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return plain, gcm.Seal(nonce, nonce, plain, wrapAAD), nil
}

// Unwrap opens a wrapped data key: secretbox.ErrUnopenable when this
// directory's key did not wrap it.
func (b *Backend) Unwrap(_ context.Context, wrapped []byte) ([]byte, error) {
	gcm, err := b.load()
	if err != nil {
		return nil, err
	}
	if len(wrapped) < gcm.NonceSize() {
		return nil, secretbox.ErrUnopenable
	}
	dk, err := gcm.Open(nil, wrapped[:gcm.NonceSize()], wrapped[gcm.NonceSize():], wrapAAD)
	if err != nil {
		return nil, secretbox.ErrUnopenable
	}
	return dk, nil
}
