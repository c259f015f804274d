package nethttp

import (
	"log/slog"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// limits is what an HTTP server takes from Options, through netserver's
// Host (package internal/seam), which also runs its WebSocket connections
// and event streams.
type limits struct {
	host         seam.Host
	set          *seam.Settings
	sec          *guard.Guard // authentication, Origin policy, per-client limits
	idleTimeout  time.Duration
	writeTimeout time.Duration
	log          *slog.Logger
	obs          netserver.Observer                          // nil: none
	methods      map[netserver.Transport]*dispatch.MethodSet // Options.Methods
	wsDeflate    int                                         // permessage-deflate's threshold; -1: off (ws.go)
}

func newLimits(e *dispatch.Engine, opts *netserver.Options) limits {
	h := seam.Open(e, opts)
	set := h.Settings()
	l := limits{host: h, set: set, sec: set.Guard, idleTimeout: set.IdleTimeout, writeTimeout: set.WriteTimeout,
		log: set.Logger}
	l.wsDeflate = netserver.DefaultCompressMin
	if opts != nil {
		l.obs, l.methods = opts.Observer, opts.Methods
		l.wsDeflate = wsCompressMin(opts.CompressMin)
	}
	return l
}

// observe reports ev on a connection of transport t, if an observer is set.
func (l *limits) observe(t netserver.Transport, ev netserver.ConnEvent) {
	if l.obs != nil {
		l.obs.ObserveConn(t, ev)
	}
}
