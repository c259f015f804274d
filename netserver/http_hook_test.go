package netserver_test

import (
	"net/http"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// The HTTP side for the internal tests (see export_test.go).
func init() {
	netserver.NewHTTPTest = func(e *dispatch.Engine, opts *netserver.Options) servertest.Server {
		return nethttp.New(e, opts)
	}
	netserver.HTTPHandlerTest = func(e *dispatch.Engine, opts *netserver.Options) http.Handler {
		return nethttp.Handler(e, opts)
	}
	netserver.RequestIdentityTest = nethttp.RequestIdentity
}
