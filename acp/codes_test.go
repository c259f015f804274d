package acp_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/acp/acpdemo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/codestest"
	"github.com/jetrpc/jetrpc/netserver"
)

// TestConditionCodes: an ACP agent's engine, made with acp.EngineCodes and
// served as ACP serves it (StreamServer, NDJSON), answers the engine's
// conditions with ACP's AuthRequired for a client that did not
// authenticate and with codes at the far end of the range for the others,
// never with ACP's -32002 (resource not found) or -32800 (cancelled)
// (docs/errors.md).
func TestConditionCodes(t *testing.T) {
	var srv *acp.Server
	codestest.Run(t, codestest.Endpoint{
		New: func(o *dispatch.Options) (*dispatch.Engine, func()) {
			o.Logger, o.Codes = quiet, acp.EngineCodes()
			e := dispatch.New(o)
			srv = acp.NewServer(acpdemo.New("0.1.0"), &acp.Options{Logger: quiet})
			if err := srv.Register(e); err != nil {
				t.Fatal(err)
			}
			return e, e.Close
		},
		Stream: func(e *dispatch.Engine, o *netserver.Options) *netserver.Server {
			o.Logger = quiet
			return srv.StreamServer(e, o)
		},
		Want: dispatch.Codes{Overloaded: -32091, ShuttingDown: -32092, Timeout: -32093, LimitExceeded: -32095,
			Unauthorized: acp.CodeAuthRequired, Forbidden: -32097, ResponseTooLarge: -32090},
		Own: map[encode.Code]string{acp.CodeAuthRequired: "authentication required",
			acp.CodeResourceNotFound: "resource not found", acp.CodeRequestCancelled: "request cancelled"},
		Same: map[string]encode.Code{"Unauthorized": acp.CodeAuthRequired},
	})
}
