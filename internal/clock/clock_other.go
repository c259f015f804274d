//go:build !amd64

package clock

func init() { settled.Store(true) }

// Now returns the nanoseconds since the process started, never negative.
func Now() int64 { return since() }
