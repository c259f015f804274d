// Package httpx holds the HTTP plumbing of mcp's Streamable HTTP endpoint
// that knows nothing of MCP: the Accept and Content-Type checks, the
// default Origin policy, and JSON-RPC error answers on a fasthttp response.
package httpx

import (
	"bytes"
	"crypto/rand"
	"net"
	"net/url"
	"strings"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/valyala/fasthttp"
)

// RandRead fills b with random bytes.
func RandRead(b []byte) { _, _ = rand.Read(b) }

// LoopbackOrigin is the default Origin policy: a page served from this
// machine (its host localhost or a loopback address).
func LoopbackOrigin(origin, _ []byte) bool {
	u, err := url.Parse(string(origin))
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// AcceptsBoth reports whether an Accept header takes both JSON and event
// streams (wildcards included).
func AcceptsBoth(accept []byte) bool {
	return hasType(accept, "application/json", "application/*") && HasEventStream(accept)
}

// HasEventStream reports whether an Accept header takes event streams.
func HasEventStream(accept []byte) bool { return hasType(accept, "text/event-stream", "text/*") }

// hasType reports whether an Accept header lists typ, its wildcard or */*.
func hasType(accept []byte, typ, wild string) bool {
	for len(accept) > 0 {
		item := accept
		if i := bytes.IndexByte(accept, ','); i >= 0 {
			item, accept = accept[:i], accept[i+1:]
		} else {
			accept = nil
		}
		if i := bytes.IndexByte(item, ';'); i >= 0 {
			item = item[:i]
		}
		item = bytes.TrimSpace(item)
		if bytes.EqualFold(item, []byte(typ)) || bytes.EqualFold(item, []byte(wild)) || string(item) == "*/*" {
			return true
		}
	}
	return false
}

// IsJSONType reports whether a Content-Type is application/json.
func IsJSONType(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), []byte("application/json"))
}

// Error answers status with a JSON-RPC error (without an id when id
// is nil: the spec's error bodies have none).
func Error(ctx *fasthttp.RequestCtx, status int, id []byte, code encode.Code, message string) {
	RPCError(ctx, status, id, dispatch.NewError(code, message, nil))
}

// RPCError answers status with err as a JSON-RPC error (a non-*encode.Error
// is an internal error).
func RPCError(ctx *fasthttp.RequestCtx, status int, id []byte, err error) {
	e, _ := err.(*encode.Error)
	if e == nil {
		e = dispatch.NewError(encode.CodeInternalError, err.Error(), nil)
	}
	b := append(ctx.Response.SwapBody(nil)[:0], `{"jsonrpc":"2.0",`...)
	if len(id) > 0 && string(id) != "null" {
		b = append(append(append(b, `"id":`...), id...), ',')
	}
	b = encode.AppendInt(append(b, `"error":{"code":`...), int64(e.Code))
	b = encode.AppendString(append(b, `,"message":`...), e.Message)
	if len(e.Data) > 0 {
		b = append(append(b, `,"data":`...), e.Data...)
	}
	ctx.Response.SwapBody(append(b, "}}"...))
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
}
