package netserver

import (
	"net/http"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/valyala/fasthttp"
)

// The HTTP side (package nethttp) imports this package, so the tests here
// that run over HTTP, WebSocket or SSE next to TCP and stdio get it from
// http_hook_test.go, an external test file that sets these.
var (
	// NewHTTPTest is nethttp.New.
	NewHTTPTest func(e *dispatch.Engine, opts *Options) servertest.Server
	// HTTPHandlerTest is nethttp.Handler.
	HTTPHandlerTest func(e *dispatch.Engine, opts *Options) http.Handler
	// RequestIdentityTest is nethttp.RequestIdentity.
	RequestIdentityTest func(ctx *fasthttp.RequestCtx) *auth.Identity
)
