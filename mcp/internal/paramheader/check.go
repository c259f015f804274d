package paramheader

// Checking a request's Mcp-Param-* headers against its arguments, and
// decoding the mirrored values of Mcp-Name and Mcp-Param-* (see doc.go).

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/valyala/fasthttp"
)

// Header is one mark of a tool's input schema: the property's path of
// names from the root and the header that mirrors it.
type Header struct {
	Path []string
	Name string // Mcp-Param-NAME
}

// valueAt returns the argument at path, nil when there is none (or null);
// of a member given twice, the last, which is what the handler binds.
func valueAt(args []byte, path []string) []byte {
	v := args
	for _, name := range path {
		var it decode.Iter
		if !it.Reset(v) || !it.IsObject() {
			return nil
		}
		v = nil
		for it.Next() {
			if decode.KeyEquals(it.Key(), name) {
				v = it.Value()
			}
		}
		if v == nil {
			return nil
		}
	}
	if string(v) == "null" {
		return nil
	}
	return v
}

// Decode decodes a mirrored header value (Mcp-Name, Mcp-Param-*):
// =?base64?...?= is the Base64 (padded, standard alphabet, decoded
// appended to dst) of UTF-8 text; any other value is literal (returned
// as it is, a slice of v) and must be visible ASCII, spaces and tabs.
// Surrounding spaces and tabs are not part of it.
func Decode(dst, v []byte) ([]byte, bool) {
	v = bytes.Trim(v, " \t")
	if len(v) >= len(b64Prefix)+len(b64Suffix) && bytes.HasPrefix(v, []byte(b64Prefix)) && bytes.HasSuffix(v, []byte(b64Suffix)) {
		src := v[len(b64Prefix) : len(v)-len(b64Suffix)]
		if bytes.IndexByte(src, '\r') >= 0 || bytes.IndexByte(src, '\n') >= 0 {
			return dst, false // the decoder would skip them
		}
		n := base64.StdEncoding.DecodedLen(len(src))
		start := len(dst)
		dst = append(dst, make([]byte, n)...)
		m, err := base64.StdEncoding.Strict().Decode(dst[start:], src)
		dst = dst[:start+m]
		return dst, err == nil && utf8.Valid(dst[start:])
	}
	for _, c := range v {
		if c < 0x20 && c != '\t' || c > 0x7e {
			return dst, false
		}
	}
	return v, true
}

// Check checks one marked argument of args against its header in hd and
// says what is wrong ("" when nothing).
func Check(hd *fasthttp.RequestHeader, p *Header, args []byte) string {
	vals := hd.PeekAll(p.Name)
	body := valueAt(args, p.Path)
	switch {
	case len(vals) > 1:
		return "the " + p.Name + " header is given more than once"
	case body == nil && len(vals) == 0:
		return ""
	case body == nil:
		return "the " + p.Name + " header has a value but the arguments have none for " + strings.Join(p.Path, ".")
	case len(vals) == 0:
		return "the " + p.Name + " header is required: the arguments have a value for " + strings.Join(p.Path, ".")
	}
	var buf [128]byte
	got, ok := Decode(buf[:0], vals[0])
	if !ok {
		return "the " + p.Name + " header is not a valid value (visible ASCII, or =?base64?...?= of UTF-8 text)"
	}
	if !sameValue(got, body) {
		shown := body
		if s, err := decode.AppendUnquote(nil, body); err == nil {
			shown = s
		}
		return p.Name + " header value '" + string(vals[0]) + "' does not match body value '" + string(shown) + "'"
	}
	return ""
}

// sameValue reports whether a decoded header value mirrors the JSON value
// body: a string as it is, true and false in lowercase, a number compared
// as a number (42.0 is 42) within the safe integers.
func sameValue(hv, body []byte) bool {
	switch c := body[0]; {
	case c == '"':
		var buf [128]byte
		s, err := decode.AppendUnquote(buf[:0], body)
		return err == nil && bytes.Equal(s, hv)
	case c == 't' || c == 'f':
		return string(hv) == string(body)
	case c == '-' || c >= '0' && c <= '9':
		if !numeric(hv) {
			return false
		}
		a, err1 := strconv.ParseFloat(string(hv), 64)
		b, err2 := strconv.ParseFloat(string(body), 64)
		return err1 == nil && err2 == nil && a == b && a >= -maxSafeInt && a <= maxSafeInt
	}
	return false
}

// numeric reports whether b has only the characters of a JSON number
// (strconv would also take "Inf", hexadecimal and underscores).
func numeric(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	return len(b) > 0
}
