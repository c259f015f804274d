//go:build !linux

package netserver

// parker parks nothing here: an idle connection waits in a read on a small
// goroutine of its own (park.go).
type parker struct {
	off bool // tests: as on Linux, parking off
}

// parkState is a connection's parking: none here.
type parkState struct{}

func (p *parker) park(c *conn) bool { return false }

// unpark does nothing: no connection is ever parked here.
func (c *conn) unpark() {}
