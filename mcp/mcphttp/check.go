package mcphttp

import (
	"bytes"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/valyala/fasthttp"
)

// routeModern checks a request of the Modern revision (2026-07-28: the
// header and _meta agree, the standard headers match the body) and serves
// it without a session.
func (h *Handler) routeModern(ctx *fasthttp.RequestCtx, c *call, m *decode.Message, rp *proto.Params, hv []byte) bool {
	mismatch := func(text string) bool {
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(mcp.CodeHeaderMismatch, "Header mismatch: "+text, nil))
		return false
	}
	switch {
	case m.Kind == decode.Result || m.Kind == decode.ErrorResponse:
		httpx.Error(ctx, fasthttp.StatusBadRequest, nil, -32600, "Invalid Request: clients of 2026-07-28 send no responses")
		return false
	case m.Kind == decode.Notification:
		c.modern, c.version = true, mcp.Modern
		return h.ready(c)
	case !rp.HasVersion:
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
			[]byte(`"_meta[\"`+proto.MetaVersion+`\"] is required"`)))
		return false
	case len(hv) > 0 && string(hv) != string(rp.Version): // before the version's support: the header must mirror _meta
		return mismatch("MCP-Protocol-Version header value '" + string(hv) + "' does not match body value '" + string(rp.Version) + "'")
	case rp.VersionBad || string(rp.Version) != mcp.Modern:
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, m.ID, h.core.UnsupportedVersion(rp.Version))
		return false
	case len(hv) == 0:
		return mismatch("the MCP-Protocol-Version header is required")
	case !rp.HasCaps:
		httpx.RPCError(ctx, fasthttp.StatusBadRequest, m.ID, dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
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
	case !h.core.ModernMethod(m.Method):
		httpx.RPCError(ctx, fasthttp.StatusNotFound, m.ID, dispatch.NewError(encode.CodeMethodNotFound, "Method not found", nil))
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
		c.modern, c.version = true, mcp.Modern
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
	c.modern, c.version = true, mcp.Modern
	return h.ready(c)
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
			httpx.RPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(mcp.CodeHeaderMismatch,
				"Header mismatch: the "+names[i]+" header is given more than once", nil))
			return nil, nil, false
		}
	}
	return method, name, true
}

// checkParams checks the Mcp-Param-* headers of a 2026-07-28 tools/call of
// the tool name against its arguments; on a mismatch it answers 400 with
// HeaderMismatch and returns false.
func (h *Handler) checkParams(ctx *fasthttp.RequestCtx, id, name, args []byte) bool {
	hs := h.core.ToolHeaders(name)
	for i := range hs {
		if why := paramheader.Check(&ctx.Request.Header, &hs[i], args); why != "" {
			httpx.RPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(mcp.CodeHeaderMismatch, "Header mismatch: "+why, nil))
			return false
		}
	}
	return true
}
