package mcp

// NOTE: what 2026-07-28 asks of a request beyond its routing (SEP-2575):
// the methods it removed (answered "Method not found", on HTTP with 404),
// the client's capabilities and log level that each request's _meta
// declares for itself (read here into the call, as slices of its params,
// valid while its handler runs), the MissingRequiredClientCapability error
// (HTTP 400) and the rule that a request without a log level gets no log
// messages.

import (
	"context"
	"errors"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

const metaLogLevel = "io.modelcontextprotocol/logLevel"

// removedInModern reports whether 2026-07-28 removed method: the handshake,
// ping, logging/setLevel (the log level is per request) and the resource
// subscriptions (subscriptions/listen replaces them).
func removedInModern[T string | []byte](method T) bool {
	switch string(method) {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return true
	}
	return false
}

// modernMethod reports whether a request of the Modern revision for method
// is served (else the HTTP endpoint answers 404).
func modernMethod(method []byte) bool {
	return (knownMethod(method) || string(method) == methodListen) && !removedInModern(method)
}

// callMeta is what a Modern request's _meta declares for its call.
type callMeta struct {
	caps  []byte // io.modelcontextprotocol/clientCapabilities, raw
	level int8   // 1 + the LogLevel of io.modelcontextprotocol/logLevel; 0: none
}

// modernCheck checks a Modern call beyond its routing (nothing for the
// others): its method was not removed, its _meta's log level is one.
func (c *call) modernCheck(ctx context.Context, params []byte) error {
	if !c.modern {
		return nil
	}
	if removedInModern(dispatch.MethodName(ctx)) {
		return methodNotFound()
	}
	return c.readMeta(params)
}

// readMeta reads the _meta of a Modern call's params: its client
// capabilities and log level. An unknown log level is Invalid params.
func (c *call) readMeta(params []byte) error {
	c.meta = callMeta{}
	if !c.modern {
		return nil
	}
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return nil
	}
	for it.Next() {
		if decode.KeyEquals(it.Key(), "_meta") {
			return c.meta.read(it.Value())
		}
	}
	return nil
}

func (m *callMeta) read(meta []byte) error {
	var it decode.Iter
	if !it.Reset(meta) || !it.IsObject() {
		return nil
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, proto.MetaCaps):
			m.caps = v
		case decode.KeyEquals(k, metaLogLevel):
			name, esc := proto.Str(v)
			l, ok := logLevelOf(name)
			if esc || !ok {
				return dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
					encode.AppendString(nil, "_meta[\""+metaLogLevel+"\"] is not a log level: "+string(v)))
			}
			m.level = int8(l) + 1
		}
	}
	return nil
}

// logLevelOf is ParseLogLevel of a name's bytes, without converting them.
func logLevelOf(name []byte) (LogLevel, bool) {
	for i, n := range levelNames {
		if string(name) == n {
			return LogLevel(i), true
		}
	}
	return 0, false
}

// logs reports whether a log message at level goes out about the call: on
// 2026-07-28 only when its request asked for a level at most that one; on
// the initialize-based revisions unless its session set a higher one.
func (c *call) logs(level LogLevel) bool {
	if c.modern {
		return c.meta.level > 0 && int8(level) >= c.meta.level-1
	}
	return c.sess == nil || level >= c.sess.ext.logLevel()
}

// RequireClientCapabilities checks that the client of the call of ctx
// declared each of the named client capabilities (such as "sampling",
// "elicitation" or "roots") in its request, as 2026-07-28 requests do.
// When one is missing it returns the MissingRequiredClientCapability error
// (-32021) naming the missing ones; a handler returns it as its error (on
// HTTP it is answered with 400 Bad Request). Requests of the
// initialize-based revisions declared their capabilities once, at
// initialize, which the server does not keep: for them, and outside a
// call, it returns nil.
func RequireClientCapabilities(ctx context.Context, names ...string) error {
	c := callOf(ctx)
	if c == nil || !c.modern {
		return nil
	}
	var missing []string
	for _, n := range names {
		if !hasCapability(c.meta.caps, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := "Missing required client capability: "
	data := []byte(`{"requiredCapabilities":{`)
	for i, n := range missing {
		if i > 0 {
			msg += ", "
			data = append(data, ',')
		}
		msg += n
		data = append(encode.AppendString(data, n), ":{}"...)
	}
	return dispatch.NewError(CodeMissingRequiredCapability, msg, append(data, "}}"...))
}

// hasCapability reports whether caps (a ClientCapabilities object) has
// member name, an object.
func hasCapability(caps []byte, name string) bool {
	var it decode.Iter
	if !it.Reset(caps) || !it.IsObject() {
		return false
	}
	for it.Next() {
		if v := it.Value(); decode.KeyEquals(it.Key(), name) && len(v) > 0 && v[0] == '{' {
			return true
		}
	}
	return false
}

// failed notes, for a Modern request on HTTP, the status its error is
// answered with (MissingRequiredClientCapability: 400), and returns err.
func (c *call) failed(err error) error {
	if err != nil && c.modern {
		c.noteStatus(err)
	}
	return err
}

// noteStatus is failed's slow path (re escapes: it is allocated only here).
func (c *call) noteStatus(err error) {
	var re *encode.Error
	if errors.As(err, &re) && re.Code == CodeMissingRequiredCapability && c.tr != nil {
		c.tr.SetStatus(400)
	}
}
