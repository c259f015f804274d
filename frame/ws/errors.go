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
	// ErrReserved is a frame with a reserved bit set: RSV2 or RSV3, or
	// RSV1 without permessage-deflate (see SetDeflate).
	ErrReserved error = protocolError("reserved bits set that no extension agreed")
	// ErrOpcode is a frame with a reserved opcode.
	ErrOpcode error = protocolError("unknown opcode")
	// ErrControl is a control frame in fragments or over MaxControlPayload.
	ErrControl error = protocolError("fragmented or oversized control frame")
	// ErrFragment is a continuation frame outside a message, or a new
	// message before the last one's final fragment.
	ErrFragment error = protocolError("bad fragment sequence")
	// ErrMasked is a masked frame read by a Client.
	ErrMasked error = protocolError("masked frame from a server")
	// ErrUnmasked is an unmasked frame read by a Server.
	ErrUnmasked error = protocolError("unmasked frame from a client")
	// ErrLength is a 64-bit payload length with its top bit set.
	ErrLength error = protocolError("frame length with the top bit set")
	// ErrClosePayload is a close frame with a 1-byte payload or a code a
	// peer may not send.
	ErrClosePayload error = protocolError("malformed close frame payload")
	// ErrCloseReason is a close frame whose reason is not UTF-8 (RFC 6455
	// section 5.5.1): a malformed control frame, hence a protocol error
	// (close 1002), not ErrInvalidUTF8, whose close 1007 is for data within
	// a message (section 7.4.1).
	ErrCloseReason error = protocolError("close reason not valid UTF-8")
)

// ErrInvalidUTF8 is what a text message that is not valid UTF-8 (RFC 3629)
// gives, wrapped in a *UTF8Error (test with errors.Is); the caller answers
// it with close 1007 (CloseInvalidData). It is not a protocol error.
var ErrInvalidUTF8 = errors.New("ws: invalid UTF-8 in a text message")

// UTF8Error reports a text message that is not valid UTF-8, found as soon
// as the Reader read its bad bytes. It wraps ErrInvalidUTF8.
type UTF8Error struct {
	// Offset is where in the message (its fragments joined) the ill-formed
	// sequence begins: the bad byte, or the lead byte of the sequence it
	// breaks or, at the end of the message, leaves unfinished.
	Offset int
}

// Error says what was wrong and where.
func (e *UTF8Error) Error() string {
	return ErrInvalidUTF8.Error() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns ErrInvalidUTF8.
func (e *UTF8Error) Unwrap() error { return ErrInvalidUTF8 }

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

// Error says what the limit is.
func (e *TooLargeError) Error() string {
	return "ws: message over the limit of " + strconv.Itoa(e.Limit) + " bytes"
}

// CloseCode returns the close code that answers an error of a Reader's
// Next: CloseProtocolError (1002) for ErrProtocol, CloseInvalidData (1007)
// for ErrInvalidUTF8 and ErrInflate, CloseTooBig (1009) for a
// *TooLargeError; 0 for the others (the connection broke or was closed),
// which no close frame answers.
func CloseCode(err error) int {
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return CloseTooBig
	case errors.Is(err, ErrProtocol):
		return CloseProtocolError
	case errors.Is(err, ErrInvalidUTF8), errors.Is(err, ErrInflate):
		return CloseInvalidData
	}
	return 0
}
