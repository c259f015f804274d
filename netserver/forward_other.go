//go:build !unix

package netserver

// tryWriter is unused where sockets are not written without waiting.
type tryWriter struct{}

// tryWrite cannot write without waiting here: writeRest writes.
func (c *core) tryWrite(b []byte) (int, error) { return 0, nil }
