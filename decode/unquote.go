package decode

import (
	"strings"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// AppendUnquote appends the unescaped contents of the JSON string token quoted (with its quotes,
// already validated) to dst. A \u escape of a lone surrogate becomes U+FFFD, as in encoding/json.
// It returns ErrSyntax, and dst with what was appended so far, when quoted is not a quoted
// string or holds a malformed escape.
func AppendUnquote(dst, quoted []byte) ([]byte, error) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return dst, ErrSyntax
	}
	dst, ok := scan.AppendUnescaped(dst, quoted[1:len(quoted)-1])
	if !ok {
		return dst, ErrSyntax
	}
	return dst, nil
}

// KeyEquals reports whether the raw member name rawKey (the bytes between the quotes, possibly
// escaped, as Iter.Key returns them) equals name after unescaping. It does not allocate.
func KeyEquals(rawKey []byte, name string) bool {
	// Escapes only make the raw form longer, so a raw key no longer than name matches only
	// byte for byte, and then only if it has no escapes.
	if len(rawKey) <= len(name) {
		return string(rawKey) == name && strings.IndexByte(name, '\\') < 0
	}
	return keyEqualsSlow(rawKey, name)
}

func keyEqualsSlow(raw []byte, name string) bool {
	var buf [utf8.UTFMax]byte
	for len(raw) > 0 {
		if raw[0] != '\\' {
			if len(name) == 0 || name[0] != raw[0] {
				return false
			}
			raw, name = raw[1:], name[1:]
			continue
		}
		r, n := scan.DecodeEscape(raw)
		if n == 0 {
			return false
		}
		w := utf8.EncodeRune(buf[:], r)
		if len(name) < w || string(buf[:w]) != name[:w] {
			return false
		}
		raw, name = raw[n:], name[w:]
	}
	return len(name) == 0
}
