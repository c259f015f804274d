package ws

import (
	"errors"
	"strconv"
)

// ErrProtocol is what every violation of RFC 6455 a Reader finds wraps
// (test with errors.Is); the caller answers it with close 1002. The
// specific errors below tell which rule was broken.
var ErrProtocol = errors.New("ws: protocol error")

// The protocol errors.
var (
	ErrReserved     error = protocolError("reserved bits set (no extension was agreed)")
	ErrOpcode       error = protocolError("unknown opcode")
	ErrControl      error = protocolError("fragmented or oversized control frame")
	ErrFragment     error = protocolError("bad fragment sequence")
	ErrMasked       error = protocolError("masked frame from a server")
	ErrUnmasked     error = protocolError("unmasked frame from a client")
	ErrLength       error = protocolError("frame length with the top bit set")
	ErrClosePayload error = protocolError("malformed close frame payload")
)

// ErrClosed is returned by Next after it has handed out a close frame:
// nothing may follow one.
var ErrClosed = errors.New("ws: read after a close frame")

type protocolError string

func (e protocolError) Error() string { return ErrProtocol.Error() + ": " + string(e) }
func (e protocolError) Unwrap() error { return ErrProtocol }

// TooLargeError reports a message over the Reader's limit, found from a
// frame's header before its payload is read; the caller answers it with
// close 1009.
type TooLargeError struct {
	// Limit is the Reader's message limit.
	Limit int
}

func (e *TooLargeError) Error() string {
	return "ws: message over the limit of " + strconv.Itoa(e.Limit) + " bytes"
}
