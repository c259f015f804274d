package mcp

import (
	"bytes"
	"crypto/rand"
	"net"
	"net/url"
	"strings"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/valyala/fasthttp"
)

func randRead(b []byte) { _, _ = rand.Read(b) }

// loopbackOrigin is the default Origin policy: a page served from this
// machine (its host localhost or a loopback address).
func loopbackOrigin(origin, _ []byte) bool {
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

// acceptsBoth reports whether an Accept header takes both JSON and event
// streams (wildcards included).
func acceptsBoth(accept []byte) bool {
	return hasType(accept, "application/json", "application/*") && hasEventStream(accept)
}

func hasEventStream(accept []byte) bool { return hasType(accept, "text/event-stream", "text/*") }

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

// isJSONType reports whether a Content-Type is application/json.
func isJSONType(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), []byte("application/json"))
}

// httpError answers status with a JSON-RPC error (without an id when id
// is nil: the spec's error bodies have none).
func httpError(ctx *fasthttp.RequestCtx, status int, id []byte, code encode.Code, message string) {
	httpRPCError(ctx, status, id, dispatch.NewError(code, message, nil))
}

func httpRPCError(ctx *fasthttp.RequestCtx, status int, id []byte, err error) {
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

// routeModern checks a request of the Modern revision (2026-07-28: the
// header and _meta agree, the standard headers match the body) and serves
// it without a session.
func (h *HTTPHandler) routeModern(ctx *fasthttp.RequestCtx, c *call, m *decode.Message, rp *proto.Params, hv []byte) bool {
	mismatch := func(text string) bool {
		httpRPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(CodeHeaderMismatch, "Header mismatch: "+text, nil))
		return false
	}
	switch {
	case m.Kind == decode.Result || m.Kind == decode.ErrorResponse:
		httpError(ctx, fasthttp.StatusBadRequest, nil, -32600, "Invalid Request: clients of 2026-07-28 send no responses")
		return false
	case m.Kind == decode.Notification:
		c.modern, c.version = true, Modern
		return h.ready(c)
	case !rp.HasVersion:
		httpRPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
			[]byte(`"_meta[\"`+proto.MetaVersion+`\"] is required"`)))
		return false
	case len(hv) > 0 && string(hv) != string(rp.Version): // before the version's support: the header must mirror _meta
		return mismatch("MCP-Protocol-Version header value '" + string(hv) + "' does not match body value '" + string(rp.Version) + "'")
	case rp.VersionBad || string(rp.Version) != Modern:
		httpRPCError(ctx, fasthttp.StatusBadRequest, m.ID, unsupportedVersion(rp.Version))
		return false
	case len(hv) == 0:
		return mismatch("the MCP-Protocol-Version header is required")
	case !rp.HasCaps:
		httpRPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
			[]byte(`"_meta[\"`+proto.MetaCaps+`\"] is required"`)))
		return false
	}
	method, name, ok := mirrored(ctx, m.ID)
	if !ok {
		return false
	}
	switch {
	case len(method) == 0:
		return mismatch("the Mcp-Method header is required")
	case string(method) != string(m.Method):
		return mismatch("Mcp-Method header value '" + string(method) + "' does not match body value '" + string(m.Method) + "'")
	case !modernMethod(m.Method):
		httpRPCError(ctx, fasthttp.StatusNotFound, m.ID, dispatch.NewError(encode.CodeMethodNotFound, "Method not found", nil))
		return false
	}
	var body []byte
	switch string(m.Method) {
	case "tools/call", "prompts/get":
		body = proto.Text(nil, rp.Name, rp.NameEsc)
	case "resources/read":
		body = proto.Text(nil, rp.URI, rp.URIEsc)
	case "tasks/get", "tasks/update", "tasks/cancel": // SEP-2663: Mcp-Name is the task's id
		body = proto.Text(nil, rp.TaskID, rp.TaskIDEsc)
	default:
		c.modern, c.version = true, Modern
		return h.ready(c)
	}
	if len(name) == 0 {
		return mismatch("the Mcp-Name header is required")
	}
	decoded, valid := paramheader.Decode(nil, name)
	if !valid {
		return mismatch("the Mcp-Name header is not a valid value")
	}
	if string(decoded) != string(body) {
		return mismatch("Mcp-Name header value '" + string(name) + "' does not match body value '" + string(body) + "'")
	}
	if string(m.Method) == "tools/call" && !h.checkParams(ctx, m.ID, body, rp.Arguments) {
		return false
	}
	c.modern, c.version = true, Modern
	return h.ready(c)
}
