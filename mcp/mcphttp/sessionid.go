package mcphttp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// SessionIDs mints and checks the Mcp-Session-Id values of an Handler.
// An id is
//
//	INSTANCE "." NONCE MAC
//
// where INSTANCE is the replica's tag (Instance), NONCE 16 random bytes
// and MAC the first 12 bytes of HMAC-SHA256(key, INSTANCE "." NONCE), both
// base64url without padding (38 characters). So an id is:
//
//   - routable: a load balancer sends a session back to its replica by the
//     part before the first dot (InstanceOf; deploy/ shows the HAProxy
//     rule), with no table of its own;
//   - self-validating: replicas that share the key tell an id one of them
//     issued (a session another replica may have handed over through a
//     shared store) from one made up, without a lookup; a made-up id is
//     404 like an expired one;
//   - unguessable: 128 random bits, from crypto/rand.
//
// Ids use only [A-Za-z0-9_.-], within the visible ASCII the spec allows.
type SessionIDs struct {
	instance string
	key      []byte
}

// Errors of NewSessionIDs.
var (
	ErrInstance = errors.New("mcp: an instance tag is 1 to 32 characters of [A-Za-z0-9_-]")
	ErrKey      = errors.New("mcp: a session key is at least 16 bytes")
)

const (
	nonceLen = 16
	macLen   = 12
)

// NewSessionIDs returns the ids of replica instance, signed with key
// (shared by the replicas that may take over each other's sessions). An
// empty instance is a random tag of 8 characters, a nil key 32 random
// bytes (ids then verify on this process only).
func NewSessionIDs(instance string, key []byte) (*SessionIDs, error) {
	if instance == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		instance = base64.RawURLEncoding.EncodeToString(b[:])
	}
	if len(instance) > 32 || strings.Trim(instance, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return nil, ErrInstance
	}
	switch {
	case key == nil:
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	case len(key) < 16:
		return nil, ErrKey
	}
	return &SessionIDs{instance: instance, key: append([]byte(nil), key...)}, nil
}

// Instance returns the replica's tag, the prefix of the ids it mints.
func (s *SessionIDs) Instance() string { return s.instance }

// New mints a session id.
func (s *SessionIDs) New() string {
	var raw [nonceLen + macLen]byte
	_, _ = rand.Read(raw[:nonceLen])
	nonce := base64.RawURLEncoding.EncodeToString(raw[:nonceLen])
	copy(raw[nonceLen:], s.mac(s.instance, nonce))
	return s.instance + "." + base64.RawURLEncoding.EncodeToString(raw[:])
}

func (s *SessionIDs) mac(instance, nonce string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(instance))
	m.Write([]byte{'.'})
	m.Write([]byte(nonce))
	return m.Sum(nil)[:macLen]
}

// Verify reports whether id was minted with this key, by any instance, and
// returns that instance's tag.
func (s *SessionIDs) Verify(id string) (instance string, ok bool) {
	instance, rest, found := strings.Cut(id, ".")
	if !found || instance == "" {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(raw) != nonceLen+macLen {
		return "", false
	}
	nonce := base64.RawURLEncoding.EncodeToString(raw[:nonceLen])
	if !hmac.Equal(raw[nonceLen:], s.mac(instance, nonce)) {
		return "", false
	}
	return instance, true
}

// InstanceOf returns the instance tag of a session id (what a load balancer
// routes on), without checking it.
func InstanceOf(id string) string {
	instance, _, _ := strings.Cut(id, ".")
	return instance
}
