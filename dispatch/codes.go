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
// endpoint's, with a prebuilt *Error per condition.

import "github.com/jetrpc/jetrpc/encode"

// Codes are the error codes an engine answers its own conditions with. A
// zero field means the engine's default code for that condition (the one
// named in its comment). Set Options.Codes on the engine of an endpoint
// whose protocol uses codes in -32000..-32099 of its own, so that no
// condition is answered with a code that means something else there.
type Codes struct {
	Overloaded       Code // encode.CodeOverloaded: no worker free for the call
	ShuttingDown     Code // encode.CodeShuttingDown: cancelled by shutdown or disconnect
	Timeout          Code // encode.CodeTimeout: the call ran over CallTimeout
	LimitExceeded    Code // encode.CodeLimitExceeded: a client's rate or connection limit
	Unauthorized     Code // encode.CodeUnauthorized: no or a refused credential
	Forbidden        Code // encode.CodeForbidden: the identity may not call the method
	ResponseTooLarge Code // CodeResponseTooLarge: a batch member over MaxBatchResponse
}

// conditions lists the engine's conditions by their default codes, in the
// order of the fields of Codes.
var conditions = [...]Code{
	encode.CodeOverloaded, encode.CodeShuttingDown, encode.CodeTimeout,
	encode.CodeLimitExceeded, encode.CodeUnauthorized, encode.CodeForbidden,
	CodeResponseTooLarge,
}

// codes returns c's fields in the order of conditions.
func (c *Codes) list() [len(conditions)]Code {
	if c == nil {
		return [len(conditions)]Code{}
	}
	return [...]Code{c.Overloaded, c.ShuttingDown, c.Timeout, c.LimitExceeded,
		c.Unauthorized, c.Forbidden, c.ResponseTooLarge}
}

// condErrs holds the error an engine answers each condition with.
type condErrs [len(conditions)]*Error

// newCondErrs builds the engine's condition errors from its Codes; data
// gives a condition's error.data (nil: none).
func newCondErrs(c *Codes, data func(Code) []byte) condErrs {
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
func (e *Engine) conditionError(def Code) *Error {
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
func (e *Engine) ConditionCode(def Code) Code {
	if ce := e.conditionError(def); ce != nil {
		return ce.Code
	}
	return def
}
