package netserver_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/codestest"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestConditionCodesPlain: a plain JSON-RPC endpoint answers the engine's
// conditions with the engine's codes, exactly as before (docs/errors.md).
func TestConditionCodesPlain(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	codestest.Run(t, codestest.Endpoint{
		New: func(o *dispatch.Options) (*dispatch.Engine, func()) {
			e := dispatch.New(o)
			return e, e.Close
		},
		Stream: func(e *dispatch.Engine, o *netserver.Options) *netserver.Server {
			o.Logger = quiet
			return netserver.New(e, o)
		},
		Want: dispatch.Codes{Overloaded: -32001, ShuttingDown: -32002, Timeout: -32003, LimitExceeded: -32005,
			Unauthorized: -32006, Forbidden: -32007, ResponseTooLarge: -32000},
	})
}
