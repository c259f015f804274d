package a2a_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/codestest"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestConditionCodes: on both wires, an A2A endpoint answers the engine's
// conditions with codes A2A does not use (the far end of the range; A2A
// has no JSON-RPC code for any of them), never with -32001..-32009
// (docs/errors.md).
func TestConditionCodes(t *testing.T) {
	own := map[encode.Code]string{
		a2a.CodeTaskNotFound: "task not found", a2a.CodeTaskNotCancelable: "task not cancelable",
		a2a.CodePushNotificationNotSupported: "push notification not supported",
		a2a.CodeUnsupportedOperation:         "unsupported operation",
		a2a.CodeContentTypeNotSupported:      "content type not supported",
		a2a.CodeInvalidAgentResponse:         "invalid agent response",
		a2a.CodeExtendedCardNotConfigured:    "extended card not configured",
		a2a.CodeExtensionSupportRequired:     "extension support required",
		a2a.CodeVersionNotSupported:          "version not supported",
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, w := range []a2a.Wire{a2a.V10, a2a.V03} {
		t.Run(w.String(), func(t *testing.T) {
			codestest.Run(t, codestest.Endpoint{
				New: func(o *dispatch.Options) (*dispatch.Engine, func()) {
					s := a2a.New(a2ademo.Card(), a2ademo.Echo(nil), &a2a.Options{Engine: o, Logger: quiet})
					return s.Engine(w), s.Close
				},
				Stream: func(e *dispatch.Engine, o *netserver.Options) *netserver.Server {
					o.Logger = quiet
					return netserver.New(e, o)
				},
				Want: dispatch.Codes{Overloaded: -32091, ShuttingDown: -32092, Timeout: -32093,
					LimitExceeded: -32095, Unauthorized: -32096, Forbidden: -32097, ResponseTooLarge: -32090},
				Own: own,
			})
		})
	}
}
