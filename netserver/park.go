package netserver

// park lets c, idle with its buffers given back (releaseIdle), wait for
// input without a goroutine of its own where it can: its Server's parker
// watches it and starts a goroutine that resumes it when input or the end
// of input arrives, or when the sweeper or Shutdown wakes it (unpark). Where
// it cannot (park_other.go, TLS, a net.Conn that is neither a *net.TCPConn
// nor a *net.UnixConn), it waits in a read on a new goroutine, which starts
// small (see serveTracked). Either way the goroutine that called park ends.
func (c *conn) park() {
	if !c.srv.parker.park(c) {
		go c.serveTracked()
	}
}
