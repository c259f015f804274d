package ws

import (
	"bytes"
	"net"
)

// HandshakeConn is a client's connection under an HTTP library's WebSocket
// dialer (one whose reader buffers ahead, as bufio does). Until the end of
// the server's answer to the opening handshake (its header block, up to the
// first empty line) it hands out no byte beyond that end, so that the
// library's buffer holds nothing of what follows; what it read past the end
// it hands out afterwards, before reading the connection again. A Reader
// over the HandshakeConn thus reads the frames from their first byte.
//
// Only its Read differs from the embedded net.Conn's.
type HandshakeConn struct {
	net.Conn
	done      bool // the header block has ended
	lineStart bool // the last byte ended a line
	rest      []byte
}

// Read reads up to the end of the header block, then what lies beyond it.
func (c *HandshakeConn) Read(b []byte) (int, error) {
	if c.done {
		if len(c.rest) > 0 {
			n := copy(b, c.rest)
			c.rest = c.rest[n:]
			if len(c.rest) == 0 {
				c.rest = nil
			}
			return n, nil
		}
		return c.Conn.Read(b)
	}
	n, err := c.Conn.Read(b)
	for i, ch := range b[:n] {
		switch {
		case ch == '\n' && c.lineStart:
			c.done = true
			if i+1 < n {
				c.rest = bytes.Clone(b[i+1 : n])
			}
			return i + 1, err
		case ch == '\n':
			c.lineStart = true
		case ch != '\r':
			c.lineStart = false
		}
	}
	return n, err
}
