package mcphttp

import (
	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/valyala/fasthttp"
)

// authorize gives a routed message its identity (Options.Identity) and
// refuses a request for a tool, resource or prompt that
// mcp.Options.Access does not allow it: 403, the step-up challenge
// (Options.Forbidden) in WWW-Authenticate, the JSON-RPC error -32007 as
// the body. The same on every revision, with a session or without.
func (h *Handler) authorize(ctx *fasthttp.RequestCtx, c *call, m *decode.Message, rp *proto.Params) bool {
	var id *auth.Identity
	if h.identity != nil {
		id = h.identity(ctx)
		c.c.SetIdentity(id)
	}
	if m.Kind != decode.Call {
		return true
	}
	var name []byte
	switch string(m.Method) {
	case "tools/call", "prompts/get":
		name = proto.Text(nil, rp.Name, rp.NameEsc)
	case "resources/read":
		name = proto.Text(nil, rp.URI, rp.URIEsc)
	default:
		return true
	}
	needed, err := h.core.Refused(id, m.Method, name)
	if err == nil {
		return true
	}
	httpx.RPCError(ctx, fasthttp.StatusForbidden, m.ID, err)
	var v []byte
	if h.forbidden != nil {
		v = h.forbidden(nil, id, needed)
	} else {
		v = []byte(`Bearer error="insufficient_scope"`)
		if needed != "" { // scopes are printable ASCII without '"' and '\' (RFC 6749 §3.3)
			v = encode.AppendString(append(v, `, scope=`...), needed)
		}
	}
	ctx.Response.Header.SetBytesV(fasthttp.HeaderWWWAuthenticate, v)
	return false
}

// own records who opens sess (an initialize), when the endpoint knows
// identities.
func (h *Handler) own(ctx *fasthttp.RequestCtx, sess *session) {
	if h.identity == nil {
		return
	}
	if id := h.identity(ctx); id != nil {
		sess.ownerScheme, sess.ownerName = id.Scheme, id.Name
	}
}

// owns reports whether the request may use sess: a session opened by an
// identity is that identity's alone (the specification's advice to bind
// sessions to the user), so that a session id that leaked does not open
// another user's streams and calls. A session adopted from a shared store
// has no owner recorded and is anyone's with the id.
func (h *Handler) owns(ctx *fasthttp.RequestCtx, sess *session) bool {
	if h.identity == nil || sess.ownerScheme == "" && sess.ownerName == "" {
		return true
	}
	id := h.identity(ctx)
	return id != nil && id.Scheme == sess.ownerScheme && id.Name == sess.ownerName
}
