package mcp

// The Server as its HTTP transport (package mcphttp) sees it: the seam.Core
// that mcphttp.New reaches through seam.CoreOf.

import (
	"context"
	"log/slog"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/mcp/internal/paramheader"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
)

func init() {
	seam.CoreOf = func(server any) seam.Core { return (*core)(server.(*Server)) }
}

// core is a Server as seam.Core.
type core Server

var (
	_ seam.Core    = (*core)(nil)
	_ seam.Call    = (*call)(nil)
	_ seam.Session = (*session)(nil)
)

func (k *core) srv() *Server                    { return (*Server)(k) }
func (k *core) Engine() *dispatch.Engine        { return k.e }
func (k *core) Logger() *slog.Logger            { return k.log }
func (k *core) BaseContext() context.Context    { return k.srv().baseContext() }
func (k *core) Freeze()                         { k.srv().freeze() }
func (k *core) ModernMethod(method []byte) bool { return modernMethod(method) }

func (k *core) UnsupportedVersion(requested []byte) error { return unsupportedVersion(requested) }

func (k *core) EndListeners(ctx context.Context, endpoint any) { k.srv().endListeners(ctx, endpoint) }

func (k *core) GetCall(t seam.CallTransport) seam.Call {
	c := k.srv().getCall(nil)
	c.tr = t
	return c
}

func (k *core) PutCall(c seam.Call) { k.srv().putCall(c.(*call)) }

func (k *core) TransportOf(ctx context.Context) seam.CallTransport {
	if c := callOf(ctx); c != nil {
		return c.tr
	}
	return nil
}

func (k *core) NewSession(id string, t seam.SessionTransport) seam.Session {
	return &session{id: id, tr: t}
}

func (k *core) Blocking(method, tool []byte) bool {
	switch string(method) {
	case "tools/call":
		t := k.toolIdx[string(tool)]
		return t != nil && !t.Inline
	case "resources/read", "prompts/get", methodListen:
		return true
	}
	return false
}

func (k *core) ToolHeaders(name []byte) []paramheader.Header {
	if !k.built.marked { // no tool to look up (the handler froze the server)
		return nil
	}
	if t := k.toolIdx[string(name)]; t != nil {
		return t.headers
	}
	return nil
}

// Route is seam.Call's: what the transport decided about the call.
func (c *call) Route(sess seam.Session, parent context.Context, version string, modern bool) {
	c.sess, _ = sess.(*session)
	c.parent, c.version, c.modern = parent, version, modern
}

// SetIdentity is seam.Call's: who made the request.
func (c *call) SetIdentity(id *auth.Identity) { c.ident.Set(id) }

// Cancel and Cancelled are seam.Call's.
func (c *call) Cancel() bool    { return c.cancel() }
func (c *call) Cancelled() bool { return c.isCancelled() }

// The shared part of a session as its HTTP transport sees it (seam.Session).
func (s *session) SetVersion(v string)         { s.setVersion(v) }
func (s *session) VersionOr(def string) string { return s.versionOr(def) }
func (s *session) SetInitialized()             { s.initialized.Store(true) }
func (s *session) CancelAll()                  { s.calls.cancelAll() }

// inline reports whether the call runs on its transport's goroutine (an
// HTTP request that cannot block), so must not wait for the client.
func (c *call) inline() bool { return c.tr != nil && c.tr.Inline() }
