package netserver

// NOTE: the WebSocket endpoint of HTTPServer. A GET /ws with the upgrade
// headers is upgraded (fasthttp/websocket's FastHTTPUpgrader) and the
// hijacked connection is served by a wsConn (ws_conn.go) on the connection
// core, like a TCP connection: its reader is the hijack handler's goroutine.
// After the handshake the websocket package is not used.

import (
	"bytes"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/valyala/fasthttp"
)

// WebSocket endpoint of HTTPServer
//
// A GET /ws carrying the WebSocket upgrade headers is upgraded; any origin is
// accepted (CheckOrigin allows all: the endpoint has no cookies or ambient
// authority of its own to protect; put a proxy or a handler of your own in
// front to restrict origins). A GET /ws without the upgrade headers gets 405
// like every non-POST request. HTTPHandler (the net/http adapter) does not
// serve WebSocket: it answers 405 to GET /ws too.
//
// Messages: each text or binary message is one JSON-RPC message or batch;
// each response, notification and call to the client is one text message.
// Messages are handled as on TCP: cheap calls are answered at once, ones
// that may block run on the engine's workers, so responses may come out of
// order (match them by id); ordered notifications (of non-concurrent methods
// that may block) run one at a time in arrival order on the connection's
// queue. Notifications produce nothing.
//
// Limits and bounds: a message over Options.MaxMessage (its fragments
// joined) closes the connection with 1009 (message too big). The responses
// not yet written and the copies of the messages running on workers hold at
// most about Options.MaxPending bytes, and at most Options.MaxInFlight
// messages run on workers at once; at either bound the connection stops
// reading until there is room (backpressure: TCP flow control then slows the
// client). A write that makes no progress for Options.WriteTimeout drops the
// connection. When all workers are busy a call gets -32001 "Server
// overloaded".
//
// Close codes: a frame that breaks RFC 6455 (reserved bits, unknown opcode,
// a fragmented or oversized control frame, a bad fragment sequence, an
// unmasked frame, a malformed close payload) gets close 1002 (protocol
// error); the answers already computed are written before it, calls still
// running are cancelled. When the client closes, the answers to the calls
// it sent before its close frame are written first (for at most
// wsCloseAnswer), then its close code is echoed and the connection closed.
//
// Keep-alive: a client that sends nothing for 30s (or IdleTimeout/2 when
// smaller) is pinged; one that then sends nothing, not even a pong, for as
// long again is disconnected.
//
// Shutdown stops reading, waits until the calls in flight are answered,
// sends a close frame 1001 (going away), waits for the client's close frame
// (at most wsCloseWait) and closes the connection. Shutdown waits for
// WebSocket connections like for HTTP requests.

const (
	wsPath      = "/ws"
	wsPingEvery = 30 * time.Second
	wsCloseWait = time.Second // for the peer's close frame after ours
	// wsCloseAnswer bounds how long the answers to a client that closed
	// are waited for before its close is echoed.
	wsCloseAnswer = 2 * time.Second
	// wsLibBuf is the websocket package's read and write buffers, which
	// it allocates but which are never used: the frames are read and
	// written here.
	wsLibBuf = 128
)

var wsUpgrader = websocket.FastHTTPUpgrader{
	ReadBufferSize:  wsLibBuf,
	WriteBufferSize: wsLibBuf,
	CheckOrigin:     func(*fasthttp.RequestCtx) bool { return true },
}

// isWS reports whether ctx asks to upgrade GET /ws.
func isWS(ctx *fasthttp.RequestCtx) bool {
	return ctx.IsGet() && bytes.Equal(ctx.Path(), []byte(wsPath)) && websocket.FastHTTPIsWebSocketUpgrade(ctx)
}

// serveWS upgrades the request; the connection is served on fasthttp's
// hijack goroutine, which closes it when serve returns.
func (s *HTTPServer) serveWS(ctx *fasthttp.RequestCtx) {
	err := wsUpgrader.Upgrade(ctx, func(wc *websocket.Conn) {
		c := newWSConn(s, wc.NetConn())
		if s.ws.add(&c.core) != nil { // shut down
			c.queueClose(ws.CloseGoingAway, "")
			c.release()
			return
		}
		c.serve()
		s.ws.remove(&c.core)
	})
	if err != nil {
		s.lim.log.Debug("netserver: websocket upgrade failed", "remote", ctx.RemoteAddr(), "err", err)
	}
}

// openWS returns the number of open WebSocket connections.
func (s *HTTPServer) openWS() int { return s.ws.len() }
