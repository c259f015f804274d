package dispatch

// NOTE: the engine's own conditions and the codes an endpoint answers them
// with. The engine answers a few conditions of its own (a call over
// CallTimeout, a handler cancelled at shutdown, a message refused because
// the workers are busy or a client is over its limit, ...). On a plain
// JSON-RPC endpoint they have the codes of package encode (CodeOverloaded
// ...). A protocol served on top of the engine (A2A, MCP) may give some of
// those numbers meanings of its own, so its engine is configured with
// Options.Codes: every place that answers one of these conditions goes
// through Engine.conditionError, which maps the engine's code to the
// endpoint's, with a prebuilt *encode.Error per condition. Transports that answer
// a condition themselves ask Engine.ConditionCode (or their connection's);
// a handler or middleware that answers one (auth.Authorize: Forbidden)
// returns a Condition, which conditionFor maps. Each protocol package has
// its table (mcp, a2a, acp: EngineCodes; the last two start from
// EndOfRangeCodes); docs/errors.md lists every endpoint's codes.

import (
	"errors"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/encode"
)

// Codes are the error codes an engine answers its own conditions with. A
// zero field means the engine's default code for that condition (the one
// named in its comment). Set Options.Codes on the engine of an endpoint
// whose protocol uses codes in -32000..-32099 of its own, so that no
// condition is answered with a code that means something else there.
type Codes struct {
	Overloaded       encode.Code // encode.CodeOverloaded: no worker free for the call
	ShuttingDown     encode.Code // encode.CodeShuttingDown: cancelled by shutdown or disconnect
	Timeout          encode.Code // encode.CodeTimeout: the call ran over CallTimeout
	LimitExceeded    encode.Code // encode.CodeLimitExceeded: a client's rate or connection limit
	Unauthorized     encode.Code // encode.CodeUnauthorized: no or a refused credential
	Forbidden        encode.Code // encode.CodeForbidden: the identity may not call the method
	ResponseTooLarge encode.Code // CodeResponseTooLarge: a batch member over MaxBatchResponse
}

// conditions lists the engine's conditions by their default codes, in the
// order of the fields of Codes.
var conditions = [...]encode.Code{
	encode.CodeOverloaded, encode.CodeShuttingDown, encode.CodeTimeout,
	encode.CodeLimitExceeded, encode.CodeUnauthorized, encode.CodeForbidden,
	CodeResponseTooLarge,
}

// list returns c's fields in the order of conditions.
func (c *Codes) list() [len(conditions)]encode.Code {
	if c == nil {
		return [len(conditions)]encode.Code{}
	}
	return [...]encode.Code{c.Overloaded, c.ShuttingDown, c.Timeout, c.LimitExceeded,
		c.Unauthorized, c.Forbidden, c.ResponseTooLarge}
}

// condErrs holds the error an engine answers each condition with.
type condErrs [len(conditions)]*encode.Error

// newCondErrs builds the engine's condition errors from its Codes; data
// gives a condition's error.data (nil: none).
func newCondErrs(c *Codes, data func(encode.Code) []byte) condErrs {
	var errs condErrs
	mapped := c.list()
	for i, def := range conditions {
		code := def
		if mapped[i] != 0 {
			code = mapped[i]
		}
		errs[i] = NewError(code, def.String(), data(def))
		if def == CodeResponseTooLarge {
			errs[i].Message = "Response too large"
		}
	}
	return errs
}

// conditionError returns the error the engine answers the condition with
// default code def (one of conditions); nil when def is not one.
func (e *Engine) conditionError(def encode.Code) *encode.Error {
	for i, c := range conditions {
		if c == def {
			return e.conds[i]
		}
	}
	return nil
}

// ConditionCode returns the code the engine answers the condition whose
// default code is def with (Options.Codes); any other code is returned as
// it is. Transports that answer a condition themselves (a refused
// credential, a rate limit) use it.
func (e *Engine) ConditionCode(def encode.Code) encode.Code {
	if ce := e.conditionError(def); ce != nil {
		return ce.Code
	}
	return def
}

// EndOfRangeCodes returns Codes that move every condition to the far end
// of the server error range: -32090 plus the last digit of its default
// code (Overloaded -32091, ShuttingDown -32092, Timeout -32093,
// LimitExceeded -32095, Unauthorized -32096, Forbidden -32097,
// ResponseTooLarge -32090). They suit a protocol that claims the whole
// range for itself and allocates its codes upward from -32001 (A2A, ACP):
// its endpoint starts from these and replaces the conditions that the
// protocol has a code of its own for.
func EndOfRangeCodes() *Codes {
	return &Codes{Overloaded: -32091, ShuttingDown: -32092, Timeout: -32093, LimitExceeded: -32095,
		Unauthorized: -32096, Forbidden: -32097, ResponseTooLarge: -32090}
}

// Condition returns the error a handler or middleware returns to answer
// its call with one of the engine's conditions: def is the condition's
// default code (encode.CodeForbidden ...), data its error.data (raw JSON,
// nil for none). The engine answers it with the endpoint's code for def
// (Options.Codes) and def's message. Build it once and return it as often
// as needed: answering it allocates nothing. Outside an engine it is the
// *encode.Error with code def (errors.As), which is also what CodeOf reports.
func Condition(def encode.Code, data []byte) error {
	return &condition{def: NewError(def, def.String(), data)}
}

// condition is a handler's error that names an engine condition.
type condition struct {
	def    *encode.Error                // the answer with the default code
	mapped atomic.Pointer[encode.Error] // the answer with the last engine's code for it
}

func (c *condition) Error() string { return c.def.Error() }
func (c *condition) Unwrap() error { return c.def }

// conditionFor returns the answer to a handler's error that is (or wraps)
// a Condition, with this engine's code for it; nil for any other error.
func (e *Engine) conditionFor(err error) *encode.Error {
	c, ok := err.(*condition)
	if !ok {
		if c = asCondition(err); c == nil {
			return nil
		}
	}
	code := e.ConditionCode(c.def.Code)
	if code == c.def.Code {
		return c.def
	}
	if m := c.mapped.Load(); m != nil && m.Code == code {
		return m
	}
	m := NewError(code, c.def.Message, c.def.Data)
	c.mapped.Store(m)
	return m
}

// asCondition is conditionFor's slow path, for a wrapped Condition (its
// errors.As target escapes: the fast path must not declare it).
func asCondition(err error) *condition {
	var c *condition
	if errors.As(err, &c) {
		return c
	}
	return nil
}
