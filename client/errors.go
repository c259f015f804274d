package client

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/httpc"
)

var (
	// ErrClosed is returned by calls on a closed client and, wrapped, by
	// every call pending when the client was closed or its connection was
	// lost: test with errors.Is.
	ErrClosed = errors.New("client: closed")
	// ErrTooLarge is returned for a request over Options.MaxMessage; it was
	// not sent.
	ErrTooLarge = errors.New("client: message over MaxMessage")
	// ErrParams is returned when params are neither absent nor a JSON array
	// or object.
	ErrParams = errors.New("client: params must be a JSON array or object")
	// ErrNoResponse is returned (over HTTP) for a call the server's reply
	// did not answer.
	ErrNoResponse = errors.New("client: no response to the call")
	// ErrBadResponse is wrapped by the error of a call whose response was
	// malformed (both result and error, a duplicate member, ...).
	ErrBadResponse = errors.New("client: malformed response")

	// ErrConnectionClosed is returned over HTTP when the server closed the
	// connection before the first byte of its answer, also on fresh
	// connections (a server that requires a client certificate does so).
	ErrConnectionClosed = httpc.ErrConnectionClosed
	// ErrResponseTooLarge is returned over HTTP for a call whose answer
	// is over Options.MaxMessage (inflated, when it came compressed): the
	// body is read no further and the connection is not reused. Over a
	// stream or WebSocket such a message closes the connection instead
	// (see Options.MaxMessage).
	ErrResponseTooLarge = httpc.ErrBodyTooLarge
	// ErrBadHandshake is wrapped by the error of DialWebSocket when the
	// server did not accept the opening handshake (the error tells the
	// HTTP status).
	ErrBadHandshake = httpc.ErrBadHandshake

	// ErrConnectionLost is wrapped by the error of every call that was in
	// flight when its connection was lost: the server may or may not have
	// handled it. Without Options.Reconnect the client is then closed and
	// the error wraps ErrClosed too; with it, the connection is redialled
	// and only the calls in flight fail (those the retry policy covers are
	// sent again).
	ErrConnectionLost = errors.New("client: connection lost")
	// ErrDisconnected is returned at once, without sending anything, by a
	// call made while the client redials with Reconnect.FailFast set.
	ErrDisconnected = errors.New("client: disconnected (reconnecting)")

	errBatchSent = errors.New("client: batch already sent")
)

// connError is the error of the calls pending when the connection was
// lost: ErrConnectionLost, and ErrClosed too when the client is closed
// with it (no reconnect).
type connError struct {
	err    error
	closed bool
}

func (e *connError) Error() string { return "client: connection lost: " + e.err.Error() }
func (e *connError) Unwrap() error { return e.err }
func (e *connError) Is(t error) bool {
	return t == ErrConnectionLost || t == ErrClosed && e.closed
}

// lost is the error of the calls in flight on a connection lost with err,
// which closes the client.
func lost(err error) error              { return &connError{err: err, closed: true} }
func errFraming(k frame.Kind) error     { return errors.New("client: unknown framing " + k.String()) }
func badResponse(r decode.Reason) error { return &badResponseError{r} }

type badResponseError struct{ reason decode.Reason }

func (e *badResponseError) Error() string { return ErrBadResponse.Error() + ": " + e.reason.String() }
func (e *badResponseError) Unwrap() error { return ErrBadResponse }

// HTTPError is the error of a POST answered with a status other than 200 or
// 204 (413 for a message over the server's limit, 5xx from a proxy, ...).
type HTTPError struct {
	StatusCode int
	Body       []byte // the start of the body, at most 512 bytes
}

func (e *HTTPError) Error() string {
	s := "client: HTTP status " + strconv.Itoa(e.StatusCode)
	if body := bytes.TrimSpace(e.Body); len(body) > 0 {
		s += ": " + strconv.Quote(clipText(body))
	}
	return s
}

// CloseError is the error (wrapped, with ErrClosed) of the calls pending on
// a WebSocket connection that ended: with the server's close frame (its
// code and reason), or 1006 (CloseAbnormal) when the connection ended
// without one.
type CloseError struct {
	Code int
	Text string
}

// CloseAbnormal is the code of a CloseError for a connection that ended
// without a close frame (RFC 6455's 1006, never sent on the wire).
const CloseAbnormal = 1006

func (e *CloseError) Error() string {
	s := "client: WebSocket closed with " + strconv.Itoa(e.Code)
	if e.Text != "" {
		s += ": " + e.Text
	}
	return s
}
