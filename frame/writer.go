package frame

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
)

const (
	contentLength = "Content-Length: "
	// headerReserve is what BeginFrame reserves for Header framing: room for
	// the longest length (20 digits) so EndFrame only ever shifts left.
	headerReserve = len(contentLength) + 20 + len("\r\n\r\n")
)

// AppendFrame appends msg framed as kind to dst and returns the extended
// slice.
//
//   - NDJSON (and Auto): msg, then '\n'. Every '\n' or '\r' byte inside msg is
//     written as ' ', so the frame never splits; in valid JSON such bytes
//     can only be insignificant whitespace.
//   - Header: "Content-Length: N\r\n\r\n", then msg.
//   - Len32: len(msg) as 4 bytes big-endian, then msg. It panics if msg is
//     4 GiB or longer.
func AppendFrame(dst []byte, kind Kind, msg []byte) []byte {
	switch kind {
	case Header:
		dst = appendHeader(dst, len(msg))
		return append(dst, msg...)
	case Len32:
		dst = binary.BigEndian.AppendUint32(dst, len32(len(msg)))
		return append(dst, msg...)
	}
	start := len(dst)
	dst = append(dst, msg...)
	flatten(dst[start:])
	return append(dst, '\n')
}

// BeginFrame starts a frame of the given kind at the end of dst: it appends
// room for the frame's prefix and returns the extended slice and a mark to
// pass to EndFrame. The caller appends the message to out, then calls
// EndFrame, which completes the frame. This saves encoding the message into a
// separate buffer and copying it.
//
// For Header framing the width of the length is not known in advance:
// BeginFrame reserves room for the longest one and EndFrame moves the message
// left by the unused bytes (one memmove of the message, usually 15-20 bytes
// shorter). The output is exactly what AppendFrame writes.
func BeginFrame(dst []byte, kind Kind) (out []byte, mark int) {
	mark = len(dst)
	switch kind {
	case Header:
		dst = append(dst, make([]byte, headerReserve)...)
	case Len32:
		dst = append(dst, 0, 0, 0, 0)
	}
	return dst, mark
}

// EndFrame completes the frame begun by BeginFrame(dst[:mark], kind): the
// message is dst[mark+reserved:]. It returns the slice holding the whole
// frame, which may be shorter than dst (Header framing).
func EndFrame(dst []byte, kind Kind, mark int) []byte {
	switch kind {
	case Header:
		start := mark + headerReserve
		var tmp [headerReserve]byte
		h := appendHeader(tmp[:0], len(dst)-start)
		copy(dst[mark:], h)
		n := copy(dst[mark+len(h):], dst[start:])
		return dst[:mark+len(h)+n]
	case Len32:
		binary.BigEndian.PutUint32(dst[mark:], len32(len(dst)-mark-4))
		return dst
	}
	flatten(dst[mark:])
	return append(dst, '\n')
}

func appendHeader(dst []byte, n int) []byte {
	dst = append(dst, contentLength...)
	dst = strconv.AppendUint(dst, uint64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

func len32(n int) uint32 {
	if uint64(n) > math.MaxUint32 {
		panic("frame: message too long for len32 framing")
	}
	return uint32(n)
}

// flatten replaces '\n' and '\r' in b with ' '.
func flatten(b []byte) {
	for _, c := range [2]byte{'\n', '\r'} {
		for i := 0; ; {
			j := bytes.IndexByte(b[i:], c)
			if j < 0 {
				break
			}
			i += j
			b[i] = ' '
			i++
		}
	}
}
