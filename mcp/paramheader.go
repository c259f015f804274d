package mcp

// The HTTP side of the Mcp-Param-* headers (2026-07-28, SEP-2243): the
// checks of a tools/call's headers against its tool's marks. Package
// mcp/internal/paramheader has the marks themselves, their checks and
// the decoding of mirrored values.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp/internal/httpx"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
	"github.com/valyala/fasthttp"
)

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
			httpx.RPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(CodeHeaderMismatch,
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
		if why := paramheader.Check(&ctx.Request.Header, &t.headers[i], args); why != "" {
			httpx.RPCError(ctx, fasthttp.StatusBadRequest, id, dispatch.NewError(CodeHeaderMismatch, "Header mismatch: "+why, nil))
			return false
		}
	}
	return true
}

// inputSchema is t's schema as a tool's input (objectSchema), with the
// x-mcp-header marks of its `mcpheader:"NAME"` struct tags.
func inputSchema(t reflect.Type) (json.RawMessage, error) {
	raw, err := objectSchema(t)
	if err != nil {
		return nil, err
	}
	return paramheader.Mark(t, raw)
}

// readHeaders reads and checks t's header marks (AddTool).
func (t *Tool) readHeaders() error {
	hs, err := paramheader.Read(t.InputSchema)
	if err != nil {
		return fmt.Errorf("mcp: tool %q: %w", t.Name, err)
	}
	t.headers = hs
	return nil
}
