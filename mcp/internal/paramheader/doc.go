// Package paramheader is MCP's custom headers from tool parameters
// (2026-07-28, SEP-2243): the x-mcp-header marks of a tool's input schema,
// and the checks of a request's Mcp-Param-* headers against its
// arguments.
//
// NOTE: a property of a tool's input schema, reachable from the root
// through "properties" alone, may carry "x-mcp-header": NAME; a client
// then mirrors that argument into the request header Mcp-Param-NAME. Two
// files: schema.go writes the mark from a Go struct tag into a derived
// schema (Mark) and reads and checks the marks of any schema when the
// tool is added (Read); check.go checks each marked argument against its
// header on a 2026-07-28 tools/call (Check), and decodes the mirrored
// values of Mcp-Name and Mcp-Param-* (Decode). Package mcp holds the
// marks on its tools and calls Check from its HTTP endpoint; a tool
// without marks costs one map lookup per call and allocates nothing.
package paramheader

import (
	"bytes"

	"github.com/jetrpc/jetrpc/decode"
)

// Prefix begins the name of every parameter header.
const Prefix = "Mcp-Param-"

const (
	maxSafeInt = 1<<53 - 1 // JavaScript's safe integers
	b64Prefix  = "=?base64?"
	b64Suffix  = "?="
)

// plain returns the contents of the JSON string v when it has no escapes;
// nil for an escaped string or another value (no mark or type name has
// one).
func plain(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 {
		return nil
	}
	return v[1 : len(v)-1]
}

// unquote returns an object key (the bytes between its quotes) unescaped.
func unquote(key []byte) []byte {
	if bytes.IndexByte(key, '\\') < 0 {
		return key
	}
	out, err := decode.AppendUnquote(nil, append(append([]byte{'"'}, key...), '"'))
	if err != nil {
		return key
	}
	return out
}
