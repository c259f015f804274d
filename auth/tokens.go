package auth

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strings"
)

// MinTokenLen is the shortest token a tokens file may hold.
const MinTokenLen = 16

// Tokens authenticates static bearer tokens, each naming an identity
// (Scheme "bearer"). A token is looked up by its SHA-256, so neither the
// time a lookup takes nor the table's layout depends on the tokens' bytes.
// Create it with ParseTokens or LoadTokens; it is safe for concurrent use
// and allocates nothing per call.
type Tokens struct {
	byHash map[[sha256.Size]byte]*Identity
	rules  Rules
}

// LoadTokens reads a tokens file (see ParseTokens).
func LoadTokens(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ParseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTokens reads tokens, one a line:
//
//	NAME TOKEN [METHOD-PATTERN...]
//
// separated by spaces or tabs; blank lines and lines starting with # are
// skipped. NAME is the identity's name, TOKEN the secret a client sends as
// "Authorization: Bearer TOKEN" (at least MinTokenLen bytes, unique in the
// file). The patterns, if any, are the methods NAME may call, as in
// [Rules] (Tokens.Rules returns them); several tokens may name one
// identity (to rotate them), and their patterns add up.
func ParseTokens(r io.Reader) (*Tokens, error) {
	t := &Tokens{byHash: make(map[[sha256.Size]byte]*Identity), rules: Rules{}}
	ids := map[string]*Identity{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: want NAME TOKEN [METHOD-PATTERN...]", line)
		}
		name, token := f[0], f[1]
		if len(token) < MinTokenLen {
			return nil, fmt.Errorf("line %d: the token of %q is shorter than %d bytes", line, name, MinTokenLen)
		}
		h := sha256.Sum256([]byte(token))
		if _, dup := t.byHash[h]; dup {
			return nil, fmt.Errorf("line %d: the token of %q is already in the file", line, name)
		}
		id := ids[name]
		if id == nil {
			id = &Identity{Name: name, Scheme: "bearer", Until: Forever}
			ids[name] = id
		}
		t.byHash[h] = id
		if len(f) > 2 {
			if err := checkPatterns(f[2:]); err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			t.rules[name] = append(t.rules[name], f[2:]...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.byHash) == 0 {
		return nil, fmt.Errorf("no tokens")
	}
	return t, nil
}

// Len returns the number of tokens.
func (t *Tokens) Len() int { return len(t.byHash) }

// Rules returns the method patterns the file gives its identities (only
// those that have some); the caller may change the map.
func (t *Tokens) Rules() Rules {
	r := make(Rules, len(t.rules))
	for name, ps := range t.rules {
		r[name] = append([]string(nil), ps...)
	}
	return r
}

// Authenticate returns the identity of r.Token: ErrNoCredentials without
// one, ErrUnknownToken for a token not in the file.
func (t *Tokens) Authenticate(r *Request) (*Identity, error) {
	if len(r.Token) == 0 {
		return nil, ErrNoCredentials
	}
	if id := t.byHash[sha256.Sum256(r.Token)]; id != nil {
		return id, nil
	}
	return nil, ErrUnknownToken
}
