//go:build !unix

package rawio

import "net"

// Conn is a socket read and written with system calls of its own; only on
// Unix.
type Conn struct{}

// Of returns nil here: the caller reads and writes nc itself.
func Of(nc net.Conn) *Conn { return nil }

// OfWriter returns nil here: the caller writes nc itself.
func OfWriter(nc net.Conn) *Conn { return nil }

// Read is never called: Of returns no Conn on this platform.
func (c *Conn) Read(p []byte) (int, error) { panic("rawio: no Conn on this platform") }

// Write is never called: Of returns no Conn on this platform.
func (c *Conn) Write(p []byte) (int, error) { panic("rawio: no Conn on this platform") }

// TryWrite is never called: Of returns no Conn on this platform.
func (c *Conn) TryWrite(p []byte) (int, error) { panic("rawio: no Conn on this platform") }
