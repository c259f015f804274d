package mcp

import "sync/atomic"

// sessionExt is a session's logging state (logging.go).
type sessionExt struct {
	level atomic.Int32 // 1 + the LogLevel logging/setLevel set; 0: none (debug)
}

func (e *sessionExt) logLevel() LogLevel {
	if l := e.level.Load(); l > 0 {
		return LogLevel(l - 1)
	}
	return LevelDebug
}
