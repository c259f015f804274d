package acp

import (
	"context"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
)

// StreamServer returns a netserver.Server for e (on which s is registered)
// with ACP's settings over opts (nil: the defaults): NDJSON framing (ACP's
// stdio transport), MaxMessage DefaultMaxMessage when 0, MaxPending
// MaxMessage + netserver.DefaultMaxPending when 0 (a running message counts
// against MaxPending until it is answered, so a bound below one message
// would hold a turn's updates back for good), and s.ConnContext after
// opts.ConnContext. Serve an agent process with its ServeStdio(os.Stdin,
// os.Stdout); any other stream connection works as well.
func (s *Server) StreamServer(e *dispatch.Engine, opts *netserver.Options) *netserver.Server {
	var o netserver.Options
	if opts != nil {
		o = *opts
	}
	o.Framing = frame.NDJSON
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.MaxPending <= 0 {
		o.MaxPending = o.MaxMessage + netserver.DefaultMaxPending
	}
	if parent := o.ConnContext; parent != nil {
		o.ConnContext = func(ctx context.Context) context.Context { return s.ConnContext(parent(ctx)) }
	} else {
		o.ConnContext = s.ConnContext
	}
	return netserver.New(e, &o)
}
