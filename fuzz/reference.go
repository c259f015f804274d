package fuzz

// NOTE: this file is the reference, written to be obviously right rather than fast. It is NOT on
// any hot path: it allocates on every call, builds maps and decodes with encoding/json. It reads
// the message the way PROTOCOL.md describes it, in three steps:
//
//  1. bytes: the first container that opens deeper than maxDepth (found with a small string-aware
//     bracket counter, confirmed by encoding/json on the prefix up to it, completed), else
//     json.Valid plus utf8.Valid (json.Valid accepts invalid UTF-8 inside strings);
//  2. shape: top-level object, array (batch) or anything else, with encoding/json's decoder;
//  3. envelope: every member name unescaped by encoding/json, counted in a map, and the checks
//     applied in the order decode.Parser.Parse documents.

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/decode"
)

// Outcome is what the bytes of a message are, before any classification.
type Outcome uint8

const (
	// OK: one valid JSON value (RFC 8259, UTF-8) nesting at most maxDepth containers. The
	// Result's Kind and Reason say what message it is.
	OK Outcome = iota
	// ParseError: not one valid JSON value (syntax, truncated, empty, invalid UTF-8 together with
	// other problems, ...). Answered -32700 with id null. decode returns a *decode.SyntaxError
	// wrapping ErrSyntax, ErrTruncated or ErrUTF8.
	ParseError
	// UTF8Error: syntactically valid JSON whose only problem is invalid UTF-8 (before any
	// container too deep). Answered -32700; decode's error wraps decode.ErrUTF8.
	UTF8Error
	// DepthError: a container opens deeper than maxDepth before any other problem appears.
	// decode returns a *decode.SyntaxError with Err == decode.ErrDepth; the engine answers
	// -32700 with id null and error.data naming the limit.
	DepthError
)

var outcomeNames = [...]string{OK: "ok", ParseError: "parse error", UTF8Error: "UTF-8 error", DepthError: "depth error"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown outcome"
}

// Message is the reference's reading of one message (or one batch member), in the terms of
// decode.Message: the same Kind, Seen, Reason and member bytes. Raw members hold the value's
// bytes exactly as sent; absent members are nil.
type Message struct {
	Kind   decode.Kind
	Seen   decode.Members // known envelope members present (objects only)
	Reason decode.Reason  // why, when Kind is decode.Invalid
	// ID is the id as sent, when present once and a string, number or null; else nil (the answer's
	// id is then null).
	ID []byte
	// Method is the unescaped method name when the first method member is a string (empty and
	// non-nil for ""), else nil.
	Method []byte
	// Params, Result, Error and Meta are the raw values of the first params, result, error and
	// _meta members, whatever their type.
	Params, Result, Error, Meta []byte
}

// Result is the reference's verdict on a complete message.
type Result struct {
	Outcome Outcome
	// Message is the message itself when Outcome is OK. A batch is Kind decode.Batch with no
	// member bytes; [] and a batch over maxBatch are Kind decode.Invalid with ReasonEmptyBatch
	// and ReasonBatchLimit.
	Message
	// Batch holds one Message per member, in order, when Kind is decode.Batch.
	Batch []Message
}

// Code is the error code the engine must answer the whole message with: -32700 for a parse
// (or UTF-8) error or a depth error, -32600 for an Invalid message, 0 otherwise (a call, a
// notification, a response, or a batch whose members are answered one by one).
func (r *Result) Code() int {
	switch {
	case r.Outcome == ParseError || r.Outcome == UTF8Error || r.Outcome == DepthError:
		return -32700
	case r.Kind == decode.Invalid:
		return -32600
	}
	return 0
}

// The limits Classify applies when given values <= 0, as decode.Parser does.
const (
	DefaultMaxDepth = decode.DefaultMaxDepth
	DefaultMaxBatch = decode.DefaultMaxBatch
	// MaxDepthLimit is the deepest limit the reference can check: encoding/json refuses to nest
	// deeper than 10000. Larger maxDepth values are treated as this one.
	MaxDepthLimit = 10000
)

// Classify reads data as one JSON-RPC 2.0 message (single or batch) following PROTOCOL.md and
// returns its outcome and classification. maxDepth is the most containers that may be open at
// once (the envelope object is depth 1; a batch array is depth 1 and its members depth 2);
// maxBatch the most members a batch may have. Values <= 0 mean the defaults (1000), like
// decode.Parser's.
//
// Classify is the project's reference: NOT on any hot path, slow, and allocating.
func Classify(data []byte, maxDepth, maxBatch int) Result {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	maxDepth = min(maxDepth, MaxDepthLimit)
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	if q, closers := tooDeep(data, maxDepth); q >= 0 && validPrefix(data[:q], closers) {
		return Result{Outcome: DepthError}
	}
	switch {
	case !json.Valid(data):
		return Result{Outcome: ParseError}
	case !utf8.Valid(data):
		return Result{Outcome: UTF8Error}
	}
	return classifyValue(bytes.TrimLeft(data, " \t\r\n"), maxBatch)
}

// tooDeep finds the first '{' or '[' outside strings that opens container number maxDepth+1,
// counting the open ones. It returns its offset and the closers of the maxDepth containers
// open around it, innermost first, or -1. On invalid JSON the count may be wrong, but only
// after a point where the input already stopped being a valid JSON prefix, which validPrefix
// then catches.
func tooDeep(data []byte, maxDepth int) (int, []byte) {
	var stack []byte
	inString, escaped := false, false
	for i, b := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if len(stack) == maxDepth {
				closers := make([]byte, len(stack))
				for k := range stack {
					closers[k] = stack[len(stack)-1-k]
				}
				return i, closers
			}
			stack = append(stack, b+2) // '{'+2 == '}', '['+2 == ']'
		case b == '}' || b == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return -1, nil
}

// validPrefix reports whether prefix followed by a container is the start of some valid UTF-8
// JSON text: a value there and the closers of the open containers give valid JSON. The value
// is null, not a container, so that the check never nests deeper than maxDepth; and not a
// number, which could extend a number the prefix ends with.
func validPrefix(prefix, closers []byte) bool {
	closed := append(append(bytes.Clone(prefix), "null"...), closers...)
	return utf8.Valid(prefix) && json.Valid(closed)
}

// classifyValue classifies the valid JSON value v (no leading whitespace).
func classifyValue(v []byte, maxBatch int) Result {
	switch v[0] {
	case '{':
		return Result{Message: classifyObject(v)}
	case '[':
		var members []json.RawMessage
		mustDecode(json.Unmarshal(v, &members))
		switch {
		case len(members) == 0:
			return invalid(decode.ReasonEmptyBatch)
		case len(members) > maxBatch:
			return invalid(decode.ReasonBatchLimit)
		}
		r := Result{Message: Message{Kind: decode.Batch}}
		for _, m := range members {
			r.Batch = append(r.Batch, classifyMember(m))
		}
		return r
	}
	return invalid(decode.ReasonNotObject)
}

// classifyMember classifies one batch member.
func classifyMember(m []byte) Message {
	switch m[0] {
	case '{':
		return classifyObject(m)
	case '[':
		return Message{Kind: decode.Invalid, Reason: decode.ReasonNestedBatch}
	}
	return Message{Kind: decode.Invalid, Reason: decode.ReasonNotObject}
}

func invalid(reason decode.Reason) Result {
	return Result{Message: Message{Kind: decode.Invalid, Reason: reason}}
}

// knownMembers maps the envelope member names to their bits.
var knownMembers = map[string]decode.Members{
	"jsonrpc": decode.HasJSONRPC,
	"method":  decode.HasMethod,
	"params":  decode.HasParams,
	"id":      decode.HasID,
	"result":  decode.HasResult,
	"error":   decode.HasError,
	"_meta":   decode.HasMeta,
}

// classifyObject classifies the valid JSON object obj as a message.
func classifyObject(obj []byte) Message {
	dec := json.NewDecoder(bytes.NewReader(obj))
	_, err := dec.Token() // '{'
	mustDecode(err)
	count := map[string]int{}    // every name, unescaped, known or not
	first := map[string][]byte{} // the first value of each known member
	var seen decode.Members      // known members present
	for dec.More() {
		tok, err := dec.Token()
		mustDecode(err)
		var v json.RawMessage
		mustDecode(dec.Decode(&v))
		name := tok.(string)
		count[name]++
		if bit, ok := knownMembers[name]; ok && count[name] == 1 {
			seen |= bit
			first[name] = v
		}
	}

	m := Message{Kind: decode.Invalid, Seen: seen}
	m.Params, m.Result, m.Error, m.Meta = first["params"], first["result"], first["error"], first["_meta"]
	method, hasMethod := first["method"]
	methodString := hasMethod && method[0] == '"'
	if methodString {
		var s string
		mustDecode(json.Unmarshal(method, &s))
		m.Method = append([]byte{}, s...)
	}
	id, hasID := first["id"]
	idOK := hasID && (id[0] == '"' || id[0] == 'n' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
	if idOK && count["id"] == 1 {
		m.ID = id
	}
	version := false
	if v, ok := first["jsonrpc"]; ok && v[0] == '"' {
		var s string
		mustDecode(json.Unmarshal(v, &s))
		version = s == "2.0"
	}
	duplicate := false
	for _, n := range count {
		duplicate = duplicate || n > 1
	}
	params, hasParams := first["params"]
	_, hasResult := first["result"]
	errv, hasError := first["error"]

	// The order of decode.Parser.Parse's documentation.
	switch {
	case duplicate:
		m.Reason = decode.ReasonDuplicate
	case !version:
		m.Reason = decode.ReasonVersion
	case hasMethod:
		switch {
		case !methodString:
			m.Reason = decode.ReasonMethod
		case hasResult || hasError:
			m.Reason = decode.ReasonMixed
		case hasParams && params[0] != '[' && params[0] != '{':
			m.Reason = decode.ReasonParams
		case !hasID:
			m.Kind = decode.Notification
		case !idOK:
			m.Reason = decode.ReasonID
		default:
			m.Kind = decode.Call
		}
	case hasResult && hasError:
		m.Reason = decode.ReasonMixed
	case hasResult || hasError:
		switch {
		case !hasID:
			m.Reason = decode.ReasonResponse
		case !idOK:
			m.Reason = decode.ReasonID
		case hasResult:
			m.Kind = decode.Result
		case errv[0] != '{':
			m.Reason = decode.ReasonResponse
		default:
			m.Kind = decode.ErrorResponse
		}
	default:
		m.Reason = decode.ReasonNoMethod
	}
	return m
}

// mustDecode panics on an error from encoding/json, which cannot happen on input json.Valid
// accepted: it would be a bug in the reference.
func mustDecode(err error) {
	if err != nil {
		panic("fuzz: reference: encoding/json rejected validated input: " + err.Error())
	}
}
