package mcp

import (
	"context"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
)

type sessKey struct{}

// session is what one client's initialize began: on HTTP a session with
// its Mcp-Session-Id (its event streams are mcphttp's, tr), on a stream
// transport (stdio) the connection.
type session struct {
	id          string
	ver         atomic.Int32 // 1 + the index of the negotiated revision in proto.Legacy; 0: none yet
	initialized atomic.Bool
	calls       inflight   // its calls in progress, for notifications/cancelled
	ext         sessionExt // its logging level (session_ext.go)

	tr seam.SessionTransport // the HTTP side (package mcphttp); nil on stream transports
}

// sessionOf returns the session of a handler's context: its call's, or
// the connection's (ConnContext). Nil: none.
func sessionOf(ctx context.Context) *session {
	if c := callOf(ctx); c != nil {
		return c.sess
	}
	s, _ := ctx.Value(sessKey{}).(*session)
	return s
}

func (s *session) setVersion(v string) {
	for i, l := range proto.Legacy {
		if l == v {
			s.ver.Store(int32(i + 1))
		}
	}
}

// versionOr returns the negotiated revision, or def before initialize (or
// on a nil session).
func (s *session) versionOr(def string) string {
	if s == nil {
		return def
	}
	if i := s.ver.Load(); i > 0 {
		return proto.Legacy[i-1]
	}
	return def
}

// ConnContext gives each connection of a stream transport (stdio, TCP) its
// MCP session: set it as netserver.Options.ConnContext of the
// netserver.Server that serves the Server's Engine. It makes initialize's
// revision the connection's and notifications/cancelled reach the
// connection's calls; the session ends with the connection.
func (s *Server) ConnContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessKey{}, &session{})
}
