package mcp

// NOTE: logging (the logging capability): a handler logs with Log, which
// sends notifications/message on the call's own stream (so a message sent
// before the result arrives before it, in order) when its level is at
// least the session's level, set by logging/setLevel (default: debug,
// everything).

import (
	"context"
	"encoding/json"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

// LogLevel is a syslog severity as MCP names them, debug lowest.
type LogLevel int32

// The levels, in increasing severity.
const (
	LevelDebug LogLevel = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the level's MCP name.
func (l LogLevel) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "debug"
	}
	return levelNames[l]
}

// ParseLogLevel returns the level named name, and whether it is one.
func ParseLogLevel(name string) (LogLevel, bool) {
	for i, n := range levelNames {
		if n == name {
			return LogLevel(i), true
		}
	}
	return 0, false
}

// Log sends notifications/message about the call of ctx: data (encoded as
// encoding/json would; any JSON value) at level, from logger ("" leaves it
// out). It sends nothing when the session asked for a higher level with
// logging/setLevel.
func Log(ctx context.Context, level LogLevel, logger string, data any) error {
	c := callOf(ctx)
	if c == nil {
		return ErrNoStream
	}
	if !c.logs(level) {
		return nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	b := getBuf()
	defer putBuf(b)
	b.B = encode.AppendString(append(b.B, `{"level":`...), level.String())
	if logger != "" {
		b.B = encode.AppendString(append(b.B, `,"logger":`...), logger)
	}
	b.B = append(append(append(b.B, `,"data":`...), raw...), '}')
	return c.notify("notifications/message", b.B)
}

// EnableLogging declares the logging capability (initialize's and
// server/discover's capabilities), telling clients that tools log with Log
// and that logging/setLevel is answered. It fails once serving.
func (s *Server) EnableLogging() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return ErrFrozen
	}
	s.ext.logging = true
	return nil
}

func (s *Server) setLevel(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	if err != nil {
		return dst, err
	}
	var in struct {
		Level string `json:"level"`
	}
	_ = json.Unmarshal(params, &in)
	l, ok := ParseLogLevel(in.Level)
	if !ok {
		return dst, invalidParams("logging/setLevel: unknown level " + in.Level)
	}
	if c.sess != nil {
		c.sess.ext.level.Store(int32(l) + 1)
	}
	return emptyResult(dst, c.modern), nil
}
