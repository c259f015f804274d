// Package jwtmint makes the HS256 JSON Web Tokens that go-ethereum's
// engine API expects (execution-apis, authentication.md): a 32-byte shared
// secret, read from a hex file as go-ethereum's --authrpc.jwtsecret, and a
// token whose only claim is iat, the time it was made. It is the calling
// side of auth/jwtauth, on the standard library alone (crypto/hmac), so
// that package client links no JWT library.
package jwtmint

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SecretLen is the length of a secret in bytes.
const SecretLen = 32

// LoadSecret reads a secret file: 32 bytes hex-encoded, 0x optional,
// surrounding whitespace ignored.
func LoadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSecret(string(b))
	if err != nil {
		return nil, errors.New(path + ": " + err.Error())
	}
	return s, nil
}

// ParseSecret decodes a hex-encoded 32-byte secret (0x optional,
// surrounding whitespace ignored).
func ParseSecret(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	text = strings.TrimPrefix(strings.TrimPrefix(text, "0x"), "0X")
	b, err := hex.DecodeString(text)
	switch {
	case err != nil:
		return nil, errors.New("the JWT secret must be 32 bytes in hex (64 hex digits)")
	case len(b) != SecretLen:
		return nil, errors.New("the JWT secret is " + strconv.Itoa(len(b)) + " bytes; it must be 32 (64 hex digits)")
	}
	return b, nil
}

// header is the base64url encoding of {"alg":"HS256","typ":"JWT"}.
const header = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"

// Minter makes tokens signed with one secret. A token is made once per
// second of iat and kept until the clock moves on, so that a caller
// minting one per request pays a copy, not an HMAC. It is safe for
// concurrent use.
type Minter struct {
	mu  sync.Mutex
	mac hash.Hash
	iat int64  // of tok
	tok []byte // the token of iat
	buf []byte // the signing input
	sum []byte
}

// New returns a Minter for secret, which must be SecretLen bytes.
func New(secret []byte) (*Minter, error) {
	if len(secret) != SecretLen {
		return nil, errors.New("jwtmint: the secret is " + strconv.Itoa(len(secret)) + " bytes; it must be 32")
	}
	return &Minter{mac: hmac.New(sha256.New, secret), iat: -1}, nil
}

// Append appends a token whose iat is now (in whole seconds) to dst.
func (m *Minter) Append(dst []byte, now time.Time) []byte {
	iat := now.Unix()
	m.mu.Lock()
	if iat != m.iat {
		m.mint(iat)
	}
	dst = append(dst, m.tok...)
	m.mu.Unlock()
	return dst
}

// mint makes the token of iat; m.mu is held.
func (m *Minter) mint(iat int64) {
	var claims [32]byte
	c := append(strconv.AppendInt(append(claims[:0], `{"iat":`...), iat, 10), '}')
	b := append(append(m.buf[:0], header...), '.')
	b = base64.RawURLEncoding.AppendEncode(b, c)
	m.mac.Reset()
	m.mac.Write(b)
	m.sum = m.mac.Sum(m.sum[:0])
	b = append(b, '.')
	b = base64.RawURLEncoding.AppendEncode(b, m.sum)
	m.buf = b
	m.tok, m.iat = b, iat
}
