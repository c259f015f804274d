package mcp_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/codestest"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestConditionCodes: an MCP endpoint answers the engine's conditions with
// codes in -32000..-32019 (MCP leaves them to implementations): the SDKs'
// own where they have one (a request timeout -32001, a closing server
// -32004), never -32002 (resource not found) nor the spec's -32020.. codes
// (docs/errors.md).
func TestConditionCodes(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	codestest.Run(t, codestest.Endpoint{
		New: func(o *dispatch.Options) (*dispatch.Engine, func()) {
			o.Logger = quiet
			s := mcp.New(mcp.Implementation{Name: "codes", Version: "1"}, &mcp.Options{Engine: o, Logger: quiet})
			return s.Engine(), s.Close
		},
		Stream: func(e *dispatch.Engine, o *netserver.Options) *netserver.Server {
			o.Logger = quiet
			return netserver.New(e, o)
		},
		Want: dispatch.Codes{Overloaded: -32011, ShuttingDown: -32004, Timeout: -32001, LimitExceeded: -32005,
			Unauthorized: -32006, Forbidden: -32007, ResponseTooLarge: -32010},
		Own: map[encode.Code]string{
			-32000: "connection closed (TypeScript and Python SDKs)", -32001: "request timeout (TypeScript and Python SDKs)",
			mcp.CodeResourceNotFound: "resource not found", mcp.CodeHeaderMismatch: "header mismatch",
			mcp.CodeMissingRequiredCapability:  "missing required client capability",
			mcp.CodeUnsupportedProtocolVersion: "unsupported protocol version", -32042: "URL elicitation required",
		},
		Same: map[string]encode.Code{"Timeout": -32001},
	})
}
