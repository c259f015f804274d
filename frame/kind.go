package frame

import (
	"errors"
	"strconv"
)

// Kind is a framing: how messages are delimited on a byte stream.
type Kind uint8

// The framings. Auto is only meaningful for reading: the Reader picks one of
// the others from the first byte of the stream. Writers treat Auto as NDJSON.
const (
	Auto   Kind = iota // detect from the first byte: 0x00 Len32, 'C'/'c' Header, else NDJSON
	NDJSON             // one message per line
	Header             // "Content-Length: N\r\n...\r\n" then N bytes
	Len32              // 4-byte big-endian length then that many bytes
)

var kindNames = [...]string{Auto: "auto", NDJSON: "ndjson", Header: "header", Len32: "len32"}

// String returns the name of k as accepted by ParseKind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind returns the Kind named s: "auto", "ndjson", "header" or "len32".
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if s == name {
			return Kind(k), nil
		}
	}
	return Auto, errors.New("frame: unknown framing " + strconv.Quote(s) +
		" (valid: auto, ndjson, header, len32)")
}

// detect picks the framing of a stream whose first byte is c.
func detect(c byte) Kind {
	switch c {
	case 0:
		return Len32
	case 'C', 'c':
		return Header
	}
	return NDJSON
}
