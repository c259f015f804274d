package mcp

// NOTE: custom headers from tool parameters (2026-07-28, SEP-2243). A
// property of a tool's input schema, reachable from the root through
// "properties" alone, may carry "x-mcp-header": NAME; a client then
// mirrors that argument into the request header Mcp-Param-NAME. Two files:
// paramheader_schema.go writes the mark from a Go struct tag into a
// derived schema (inputSchema) and reads and checks the marks of any
// schema when the tool is added (paramHeaders); this one checks each
// marked argument against its header on a 2026-07-28 tools/call
// (checkParams), and decodes the mirrored values of Mcp-Name and
// Mcp-Param-* (decodeMirrored). A tool without marks costs one map lookup
// per call and allocates nothing.

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/valyala/fasthttp"
)

const (
	paramPrefix = "Mcp-Param-"
	maxSafeInt  = 1<<53 - 1 // JavaScript's safe integers
	b64Prefix   = "=?base64?"
	b64Suffix   = "?="
)

// paramHeader is one mark of a tool's input schema: the property's path of
// names from the root and the header that mirrors it.
type paramHeader struct {
	path   []string
	header string // Mcp-Param-NAME
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

// decodeMirrored decodes a mirrored header value (Mcp-Name, Mcp-Param-*):
// =?base64?...?= is the Base64 (padded, standard alphabet, decoded
// appended to dst) of UTF-8 text; any other value is literal (returned
// as it is, a slice of v) and must be visible ASCII, spaces and tabs.
// Surrounding spaces and tabs are not part of it.
func decodeMirrored(dst, v []byte) ([]byte, bool) {
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

// mirrored returns the Mcp-Method and Mcp-Name headers of a 2026-07-28
// request, read in one pass over the headers. When one of them, or
// MCP-Protocol-Version, is given more than once it answers 400 with
// HeaderMismatch and returns false: an intermediary could route on one
// value while the server checks another.
func mirrored(ctx *fasthttp.RequestCtx, id []byte) (method, name []byte, ok bool) {
	names := [...]string{"Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"}
	var seen [3]uint8
	for k, v := range ctx.Request.Header.All() {
		i := 0
		switch len(k) { // the names' lengths differ
		case len(names[0]):
		case len(names[1]):
			i = 1
		case len(names[2]):
			i = 2
		default:
			continue
		}
		if !bytes.EqualFold(k, []byte(names[i])) {
			continue
		}
		if seen[i]++; seen[i] == 1 && i == 1 {
			method = v
		} else if seen[i] == 1 && i == 2 {
			name = v
		}
	}
	for i, n := range seen {
		if n > 1 {
			httpRPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(CodeHeaderMismatch,
				"Header mismatch: the "+names[i]+" header is given more than once", nil))
			return nil, nil, false
		}
	}
	return method, name, true
}

// checkParams checks the Mcp-Param-* headers of a 2026-07-28 tools/call of
// the tool name against its arguments; on a mismatch it answers 400 with
// HeaderMismatch and returns false.
func (h *HTTPHandler) checkParams(ctx *fasthttp.RequestCtx, id, name, args []byte) bool {
	if !h.srv.built.marked { // no tool to look up (the handler froze the server)
		return true
	}
	t := h.srv.toolIdx[string(name)]
	if t == nil || len(t.headers) == 0 {
		return true
	}
	for i := range t.headers {
		if why := matchParam(&ctx.Request.Header, &t.headers[i], args); why != "" {
			httpRPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(CodeHeaderMismatch, "Header mismatch: "+why, nil))
			return false
		}
	}
	return true
}

// matchParam checks one marked argument against its header and says what
// is wrong ("" when nothing).
func matchParam(hd *fasthttp.RequestHeader, p *paramHeader, args []byte) string {
	vals := hd.PeekAll(p.header)
	body := valueAt(args, p.path)
	switch {
	case len(vals) > 1:
		return "the " + p.header + " header is given more than once"
	case body == nil && len(vals) == 0:
		return ""
	case body == nil:
		return "the " + p.header + " header has a value but the arguments have none for " + strings.Join(p.path, ".")
	case len(vals) == 0:
		return "the " + p.header + " header is required: the arguments have a value for " + strings.Join(p.path, ".")
	}
	var buf [128]byte
	got, ok := decodeMirrored(buf[:0], vals[0])
	if !ok {
		return "the " + p.header + " header is not a valid value (visible ASCII, or =?base64?...?= of UTF-8 text)"
	}
	if !sameValue(got, body) {
		shown := body
		if s, err := decode.AppendUnquote(nil, body); err == nil {
			shown = s
		}
		return p.header + " header value '" + string(vals[0]) + "' does not match body value '" + string(shown) + "'"
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
