package nethttp

import "time"

// SetSSEKeepAlive sets how often an idle event stream writes a comment, for
// tests of external packages; it returns the old value's restore.
func SetSSEKeepAlive(d time.Duration) (restore func()) {
	old := sseKeepAlive
	sseKeepAlive = d
	return func() { sseKeepAlive = old }
}
