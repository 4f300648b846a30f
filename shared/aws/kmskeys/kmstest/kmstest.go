// Package kmstest holds what tests and benchmarks of the KMS adapter need
// on moto, whose KMS does not decrypt an RSA-OAEP wrapping made outside it:
// a JWE around a content-encryption key that moto's own Encrypt wrapped.
package kmstest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
)

// JWEWithWrappedKey builds a compact JWE (RSA-OAEP-256 header, A256CBC-HS512
// content, RFC 7518 section 5.2.2.1) around a content-encryption key that
// was wrapped elsewhere (by KMS itself, on moto).
func JWEWithWrappedKey(kid string, wrapped, cek, plaintext []byte) string {
	hdr, _ := json.Marshal(map[string]string{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1", "kid": kid})
	b64 := base64.RawURLEncoding.EncodeToString
	protected := b64(hdr)
	macKey, encKey := cek[:32], cek[32:]
	iv := make([]byte, aes.BlockSize)
	_, _ = rand.Read(iv)
	pad := aes.BlockSize - len(plaintext)%aes.BlockSize
	padded := append(append([]byte{}, plaintext...), make([]byte, pad)...)
	for i := len(plaintext); i < len(padded); i++ {
		padded[i] = byte(pad)
	}
	block, _ := aes.NewCipher(encKey)
	ct := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(ct, padded)
	aad := []byte(protected)
	al := make([]byte, 8)
	binary.BigEndian.PutUint64(al, uint64(len(aad))*8)
	m := hmac.New(sha512.New, macKey)
	m.Write(aad)
	m.Write(iv)
	m.Write(ct)
	m.Write(al)
	tag := m.Sum(nil)[:32]
	return protected + "." + b64(wrapped) + "." + b64(iv) + "." + b64(ct) + "." + b64(tag)
}
