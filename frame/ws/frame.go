package ws

import (
	"encoding/binary"
	"unicode/utf8"
)

// Opcode is a frame's opcode (RFC 6455 section 5.2).
type Opcode byte

// The opcodes. A Reader hands out OpText and OpBinary for whole messages
// and never OpContinuation.
const (
	OpContinuation Opcode = 0x0
	OpText         Opcode = 0x1
	OpBinary       Opcode = 0x2
	OpClose        Opcode = 0x8
	OpPing         Opcode = 0x9
	OpPong         Opcode = 0xA
)

// IsControl reports whether op is a control opcode (close, ping, pong and
// the reserved 0xB-0xF).
func (op Opcode) IsControl() bool { return op&0x8 != 0 }

// Close status codes (RFC 6455 section 7.4.1) the endpoints use.
const (
	// CloseNormal ends a connection that has done its work.
	CloseNormal = 1000
	// CloseGoingAway ends a connection whose endpoint goes away (a server
	// shutting down).
	CloseGoingAway = 1001
	// CloseProtocolError answers a broken rule (ErrProtocol).
	CloseProtocolError = 1002
	// CloseNoStatus is what ParseClose returns for a close frame without a
	// code; it is never sent (AppendClose sends an empty payload for it).
	CloseNoStatus = 1005
	// CloseInvalidData answers a text message that is not UTF-8
	// (ErrInvalidUTF8).
	CloseInvalidData = 1007
	// CloseTooBig answers a message over the limit (*TooLargeError).
	CloseTooBig = 1009
)

const (
	// MaxHeaderLen is the length of the longest frame header: 2 bytes, a
	// 64-bit length and a 4-byte masking key.
	MaxHeaderLen = 14
	// MaxControlPayload is the longest payload of a control frame.
	MaxControlPayload = 125
	// MaxCloseReason is the longest reason a close frame can carry.
	MaxCloseReason = MaxControlPayload - 2

	finBit  = 0x80
	rsvBits = 0x70
	maskBit = 0x80
)

// Mask says whether a frame is masked and with which key. The zero Mask
// leaves frames unmasked, as a server sends them; a client masks each frame
// with a fresh key: MaskWith(random).
type Mask struct {
	key uint32
	on  bool
}

// MaskWith returns the Mask with key, whose little-endian bytes are the
// masking key on the wire.
func MaskWith(key uint32) Mask { return Mask{key: key, on: true} }

// Apply masks (or unmasks: it is its own inverse) b, a frame's payload from
// its first byte. The zero Mask leaves b as it is.
func (m Mask) Apply(b []byte) {
	if m.on {
		maskBytes(b, m.key)
	}
}

// maskBytes XORs byte i of b with byte i%4 of key, little-endian. It
// returns the OR of the bytes it wrote, 8 at a time: the high bits (msb)
// are clear when they are all ASCII.
func maskBytes(b []byte, key uint32) (or uint64) {
	k := uint64(key) | uint64(key)<<32
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b) ^ k
		binary.LittleEndian.PutUint64(b, w)
		or |= w
		b = b[8:]
	}
	for i := range b {
		b[i] ^= byte(key >> (8 * (i & 3)))
	}
	return or | orBytes(b)
}

// AppendHeader appends the header of a frame with opcode op and an n-byte
// payload to dst: final when fin is set, masked as m says. The caller then
// appends the payload and applies m to it.
func AppendHeader(dst []byte, op Opcode, fin bool, n int, m Mask) []byte {
	b0 := byte(op)
	if fin {
		b0 |= finBit
	}
	var b1 byte
	if m.on {
		b1 = maskBit
	}
	switch {
	case n < 126:
		dst = append(dst, b0, b1|byte(n))
	case n < 1<<16:
		dst = binary.BigEndian.AppendUint16(append(dst, b0, b1|126), uint16(n))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, b0, b1|127), uint64(n))
	}
	if m.on {
		dst = binary.LittleEndian.AppendUint32(dst, m.key)
	}
	return dst
}

// AppendFrame appends payload to dst as one final frame with opcode op,
// masked as m says.
func AppendFrame(dst []byte, op Opcode, payload []byte, m Mask) []byte {
	dst = AppendHeader(dst, op, true, len(payload), m)
	start := len(dst)
	dst = append(dst, payload...)
	m.Apply(dst[start:])
	return dst
}

// AppendClose appends a close frame with code and reason to dst, masked as
// m says. Code 0 or CloseNoStatus gives an empty payload (and no reason); a
// reason over MaxCloseReason bytes is cut at a character boundary.
func AppendClose(dst []byte, code int, reason string, m Mask) []byte {
	if code == 0 || code == CloseNoStatus {
		return AppendHeader(dst, OpClose, true, 0, m)
	}
	reason = cutReason(reason)
	dst = AppendHeader(dst, OpClose, true, 2+len(reason), m)
	start := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, uint16(code))
	dst = append(dst, reason...)
	m.Apply(dst[start:])
	return dst
}

// cutReason cuts s to at most MaxCloseReason bytes, at the start of a
// character.
func cutReason(s string) string {
	if len(s) <= MaxCloseReason {
		return s
	}
	n := MaxCloseReason
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ParseClose returns the code and the reason of a close frame's payload as
// a Reader hands it out (checked): CloseNoStatus and no reason when the
// payload is empty. reason is a slice of payload.
func ParseClose(payload []byte) (code int, reason []byte) {
	if len(payload) < 2 {
		return CloseNoStatus, nil
	}
	return int(binary.BigEndian.Uint16(payload)), payload[2:]
}

// checkClose checks a received close payload: empty, or a code a peer may
// send followed by a UTF-8 reason (ErrCloseReason when it is not).
func checkClose(payload []byte) error {
	switch {
	case len(payload) == 0:
		return nil
	case len(payload) == 1:
		return ErrClosePayload
	}
	code, reason := ParseClose(payload)
	switch {
	case !validCloseCode(code):
		return ErrClosePayload
	case !validUTF8(reason):
		return ErrCloseReason
	}
	return nil
}

// validCloseCode reports whether a peer may send code (RFC 6455 section
// 7.4 and the IANA registry): 1000-1003, 1007-1014, 3000-4999.
func validCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	}
	return code >= 3000 && code <= 4999
}
