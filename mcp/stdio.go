package mcp

import (
	"io"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
)

// StreamServer returns a netserver.Server that serves s on stream
// transports (stdio, TCP, unix sockets) as MCP's stdio transport does: one
// JSON-RPC message per line (NDJSON), each connection its own session (see
// ConnContext). opts are its options (nil: the defaults); Framing and
// ConnContext are set here.
func (s *Server) StreamServer(opts *netserver.Options) *netserver.Server {
	var o netserver.Options
	if opts != nil {
		o = *opts
	}
	o.Framing, o.ConnContext = frame.NDJSON, s.ConnContext
	s.freeze()
	return netserver.New(s.e, &o)
}

// ServeStdio serves s on r and w (os.Stdin and os.Stdout) until r ends,
// with StreamServer. Nothing but MCP messages is written to w.
func (s *Server) ServeStdio(r io.Reader, w io.Writer, opts *netserver.Options) error {
	return s.StreamServer(opts).ServeStdio(r, w)
}
