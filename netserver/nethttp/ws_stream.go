package nethttp

import (
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// A streamed result (dispatch.StreamResult) goes out as one text message
// in fragments: a text frame without FIN, continuation frames, the last
// with FIN. A fragment is never compressed (RSV1 clear), which
// permessage-deflate allows per message. A result cut off (its handler
// failed after fragments went out) ends the connection with close 1011,
// which may come between fragments (RFC 6455 section 5.4), so the client
// never sees the message's last fragment.

var _ seam.Piecewise = (*wsConn)(nil)

// Piecewise reports that a WebSocket can always send a message in pieces.
func (c *wsConn) Piecewise() bool { return true }

// AppendPiece appends b as a fragment of one text message.
func (c *wsConn) AppendPiece(dst, b []byte, first, last bool) []byte {
	op := ws.OpContinuation
	if first {
		op = ws.OpText
	}
	dst = ws.AppendHeader(dst, op, last, len(b), ws.Mask{})
	return append(dst, b...)
}

// CutOff returns the close frame 1011 (internal error) that ends a
// connection whose message cannot be completed.
func (c *wsConn) CutOff() []byte {
	return ws.AppendClose(nil, wsCloseInternal, "response cut off", ws.Mask{})
}

// wsCloseInternal is close 1011: the server met a condition that kept it
// from completing the request.
const wsCloseInternal = 1011
