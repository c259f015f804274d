package unmarshal

// NOTE: the decoders read JSON that internal/scan has validated: decode did
// (params and results, through DecodeValid), or Decode did first, with a lax
// Scanner (encoding/json's grammar: a string may hold bytes that are not
// UTF-8, which are decoded as U+FFFD; decode's depth limit). So they check
// types, not syntax: a token's end comes from internal/scan's String,
// Number and Skip, and nothing is validated twice. They still bound every
// read, so a caller that breaks the contract gets an error, never a crash.
// i is always a value's first byte (after whitespace), and the result is
// the offset just after it.

import (
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/internal/scan"
)

// validate validates data as Decode's input: one JSON value by a lax Scanner
// with decode's depth limit. bad reports strings with bytes that are not
// UTF-8, to be repaired as they are decoded.
func validate(data []byte) (bad bool, err error) {
	var s scan.Scanner
	s.SetLimit(0)
	s.SetLax()
	switch i, c := s.Whole(data); c {
	case scan.OK:
		return s.BadUTF8(), nil
	case scan.Depth:
		return false, typeErr("exceeded max depth", i)
	default:
		return false, syntaxErr(i)
	}
}

// literal returns the end of the literal lit (true, false or null) that
// data[i] starts.
func literal(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) {
		return 0, syntaxErr(i)
	}
	return i + len(lit), nil
}

// str returns the end of the string at data[i] (a '"') and whether it has
// escapes.
func str(data []byte, i int) (int, bool, error) {
	end, esc, c := scan.String(data, i)
	if c != scan.OK {
		// Bytes that are not UTF-8, let through by Decode.
		if end, esc, c = scan.StringLax(data, i); c != scan.OK && c != scan.UTF8 {
			return 0, false, syntaxErr(end)
		}
	}
	return end, esc, nil
}

// quoted returns the content of the string at data[i], unescaped, and its
// end. The content aliases data unless owned: then it is one new buffer
// (its capacity covers the worst case, so nothing grows it). repair: the
// input may hold bytes that are not UTF-8 (see decFn).
func quoted(data []byte, i int, repair bool) (s []byte, end int, owned bool, err error) {
	end, esc, err := str(data, i)
	if err != nil {
		return nil, 0, false, err
	}
	raw := data[i+1 : end-1]
	bad := repair && !utf8.Valid(raw)
	if !esc && !bad {
		return raw, end, false, nil
	}
	n := len(raw)
	if bad {
		n *= utf8.RuneLen(utf8.RuneError)
	}
	return appendUnquoted(make([]byte, 0, n), raw, esc, bad), end, true, nil
}

// appendUnquoted appends the content raw of a string to dst, unescaped when
// esc, and with each byte that is not UTF-8 replaced by U+FFFD when bad (as
// encoding/json decodes it).
func appendUnquoted(dst, raw []byte, esc, bad bool) []byte {
	if !bad {
		dst, _ = scan.AppendUnescaped(dst, raw)
		return dst
	}
	n := len(dst)
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, r)
		} else {
			dst = append(dst, raw[:size]...)
		}
		raw = raw[size:]
	}
	if esc { // in place: unescaping only shrinks
		dst, _ = scan.AppendUnescaped(dst[:n], dst[n:])
	}
	return dst
}

// skipValue returns the end of the value at data[i].
func skipValue(data []byte, i int) (int, error) {
	if j := scan.Skip(data, i); j >= 0 {
		return j, nil
	}
	return 0, syntaxErr(i)
}

// open starts the container at data[i]: it returns the first member's
// offset, or done for an empty container.
func open(data []byte, i int, close byte) (int, bool, error) {
	j := scan.SkipWS(data, i+1)
	if j >= len(data) {
		return 0, false, syntaxErr(j)
	}
	if data[j] == close {
		return j + 1, true, nil
	}
	return j, false, nil
}

// next moves past the separator after a container's member at j: it returns
// the next member's offset (always inside data), or done at the closing
// bracket.
func next(data []byte, j int, close byte) (int, bool, error) {
	if j = scan.SkipWS(data, j); j >= len(data) {
		return 0, false, syntaxErr(j)
	}
	switch data[j] {
	case ',':
		if j = scan.SkipWS(data, j+1); j < len(data) {
			return j, false, nil
		}
	case close:
		return j + 1, true, nil
	}
	return 0, false, syntaxErr(j)
}

func isDigit(c byte) bool { return c-'0' < 10 }
