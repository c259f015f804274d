package mcp

// The x-mcp-header marks of tools (2026-07-28, SEP-2243), read when a
// tool is added. Package mcp/internal/paramheader has the marks
// themselves, their checks and the decoding of mirrored values; package
// mcphttp checks a tools/call's headers against them.

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
)

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
