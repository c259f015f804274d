package decode

// NOTE: the tokens and nested values are validated by internal/scan, the module's one JSON
// scanner (SkipWS, String, Number, Scalar, Scanner.Composite). This file builds the envelope
// object and the batch array on top of it and classifies. fastKey recognises the usual
// spellings of the known member names ("method", "params", "id", ...) with one 8-byte load, so
// most envelope keys are never scanned as strings. record is the one rule for a known member,
// for a single message and a batch member alike: a member is recorded into a Message (on the
// stack of array) and packed into its compact form afterwards (batch.go).

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
	"github.com/jetrpc/jetrpc/internal/scan"
)

// Defaults applied when the Parser's limits are zero.
const (
	DefaultMaxDepth = scan.DefaultMaxDepth
	DefaultMaxBatch = 1000
)

// noCopy makes go vet's copylocks check flag copies of a Parser.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Parser scans messages. The zero value is ready to use. A Parser is not safe for concurrent use;
// keep one per goroutine and reuse it: it keeps its buffers, so it allocates nothing in steady
// state. It must not be copied after first use.
type Parser struct {
	// MaxDepth is the nesting limit: the number of open containers. The envelope object is
	// depth 1; a batch array is depth 1 and its member objects depth 2. 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxBatch is the most members a batch may have. 0 means DefaultMaxBatch.
	MaxBatch int

	noCopy  noCopy
	sc      scan.Scanner
	msg     Message
	isBatch bool     // the last Parse returned Kind Batch
	scratch []byte   // unescaped method names and unknown member names
	keys    [][]byte // unknown member names of the envelopes being scanned
	err     SyntaxError

	// A batch's (batch.go).
	members members   // the last batch's members, compact
	bm      *bmember  // the member being scanned
	batch   []Message // the last batch's members as Messages, once Batch was called
	built   bool      // batch holds the last batch's members
	data    []byte    // the last batch's input
	in      []byte    // the last single message's input (Moved)
}

// Reset drops all references to the last input and keeps the buffers' capacity, up to
// what a batch of about a thousand members needs: a larger batch's tables are let go.
func (p *Parser) Reset() {
	p.msg, p.in = Message{}, nil
	p.endBatch()
	p.scratch = p.scratch[:0]
	clear(p.keys)
	p.keys = p.keys[:0]
	p.err = SyntaxError{}
}

// Parse scans one complete message: a JSON value with optional JSON whitespace around it.
//
// For valid JSON it returns the classified Message, owned by the Parser and valid (with all its
// slices) until the next Parse or Reset. When the bytes are not valid JSON or not UTF-8, are
// empty or truncated, or nest deeper than MaxDepth, it returns a *SyntaxError (also owned by the
// Parser). A SyntaxError always wins over a classification problem anywhere in the message.
//
// When several classification problems exist, the Reason is the first that applies in this order:
//  1. ReasonDuplicate: a known member appears twice;
//  2. ReasonVersion: jsonrpc absent or not "2.0";
//  3. with method: ReasonMethod (not a string), ReasonMixed (with result or error),
//     ReasonParams, ReasonID;
//  4. without method, with result or error: ReasonMixed (both), ReasonResponse (no id),
//     ReasonID, ReasonResponse (error not an object);
//  5. otherwise ReasonNoMethod.
func (p *Parser) Parse(data []byte) (*Message, error) {
	p.sc.SetLimit(p.MaxDepth)
	p.scratch = p.scratch[:0]
	if p.keys = p.keys[:0]; cap(p.keys) > maxKeptKeys {
		p.keys = nil // a hostile message had many members: do not keep its table
	}
	if p.isBatch {
		p.endBatch()
	}
	m := &p.msg
	*m = Message{}
	if usualOn {
		var env envelope
		j := p.usual(data, 0, 0, m, &env)
		if j == 0 {
			j = p.usualResponse(data, 0, 0, m, &env)
		}
		if j > 0 {
			if scan.SkipWS(data, j) == len(data) {
				if env.seen&HasMethod == 0 { // a response
					p.classify(m, &env)
				} else {
					m.Seen, m.Kind = env.seen, Notification
					if env.seen&HasID != 0 {
						m.Kind, m.ID = Call, env.id
					}
				}
				p.in = data
				return m, nil
			}
			*m = Message{} // more after it: the general path says what
		}
	}
	i := scan.SkipWS(data, 0)
	if i >= len(data) {
		return p.fail(i, scan.Truncated)
	}
	var c scan.Code
	switch data[i] {
	case '{':
		i, c = p.object(data, i, 0, m)
	case '[':
		i, c = p.array(data, i, m)
	default:
		i, c = scan.Scalar(data, i)
		m.Reason = ReasonNotObject
	}
	if c != scan.OK {
		return p.fail(i, c)
	}
	if i = scan.SkipWS(data, i); i < len(data) {
		return p.fail(i, scan.Syntax)
	}
	if m.Kind == Batch {
		p.isBatch, p.data = true, data
	} else {
		p.in = data
	}
	return m, nil
}

// usualOn is the test hook that turns the fast path (Parser.usual) off.
var usualOn = true

// usualPrefix is how the usual call or notification begins; rawUsual0 and rawUsual1 are its
// first 16 bytes read little-endian.
const (
	usualPrefix = `{"jsonrpc":"2.0",`
	rawUsual0   = 0x70726e6f736a227b // {"jsonrp
	rawUsual1   = 0x22302e32223a2263 // c":"2.0"
)

// usualStart reports whether data[i:] begins with usualPrefix and has room for at least rest
// bytes after it.
func usualStart(data []byte, i, rest int) bool {
	return len(data)-i >= len(usualPrefix)+rest && binary.LittleEndian.Uint64(data[i:]) == rawUsual0 &&
		binary.LittleEndian.Uint64(data[i+8:]) == rawUsual1 && data[i+16] == ','
}

// usual is the fast path of Parse and of a batch's members: the object at data[i] (depth
// containers open around it) when it is a call or notification written the usual way, compact:
// `{"jsonrpc":"2.0",` then method, params and id in any order (method required, params an array
// or object, id a string, number or null), each once, nothing else, no whitespace inside the
// envelope (values may hold it), no escape in the method's name. It sets m's Method, Params
// and compact and fills env as object would, and returns the offset after the closing brace;
// or 0, having written nothing, for anything else, valid or not, which the general path
// (object) then scans from the start. Each value is checked as object checks it (the same
// scanner calls, at the same depth), so that a message it takes is what object makes of it.
func (p *Parser) usual(data []byte, i, depth int, m *Message, env *envelope) int {
	s := &p.sc
	if depth >= s.Limit() || !usualStart(data, i, len(`"method":""}`)) {
		return 0
	}
	depth++
	var (
		seen               Members
		method, params, id []byte
		compact, esc       bool
		c                  scan.Code
	)
	i += len(usualPrefix)
	for {
		k, end := fastKey(data, i)
		if k&(HasMethod|HasParams|HasID) == 0 || seen&k != 0 || end+1 >= len(data) || data[end] != ':' {
			return 0
		}
		i = end + 1
		vs := i
		// The values are scanned as object scans them, written out here for the types each
		// member may have (one helper for both cost 3-5% on small calls: it is not inlined).
		switch b := data[i]; {
		case k == HasMethod:
			if b != '"' {
				return 0
			}
			if i, esc, c = scan.String(data, i); c != scan.OK || esc {
				return 0
			}
			v := data[vs:i:i]
			method = v[1 : len(v)-1 : len(v)-1] // as record slices it (an empty name included)
		case k == HasParams:
			switch {
			case b == '[':
				if j := s.IntArray(data, i, depth); j > i {
					i = j
				} else {
					i, c = s.Composite(data, i, depth)
				}
			case b == '{':
				i, c = s.Composite(data, i, depth)
			default:
				return 0
			}
			if c != scan.OK {
				return 0
			}
			params, compact = data[vs:i:i], !s.Spaced()
		default: // id
			switch {
			case b == '"':
				i, _, c = scan.String(data, i)
			case b-'1' < 9: // an integer the usual way: digits, then ',' or '}'
				j := i + 1
				for j < len(data) && data[j]-'0' < 10 {
					j++
				}
				if j < len(data) && (data[j] == ',' || data[j] == '}') {
					i = j
				} else {
					i, c = scan.Number(data, i)
				}
			case b == '-' || b == '0':
				i, c = scan.Number(data, i)
			case b == 'n' && i+4 < len(data) && string(data[i:i+4]) == "null":
				i += 4
			default:
				return 0
			}
			if c != scan.OK {
				return 0
			}
			id = data[vs:i:i]
		}
		seen |= k
		if i >= len(data) {
			return 0
		}
		if data[i] == ',' {
			i++
			continue
		}
		if data[i] != '}' || seen&HasMethod == 0 {
			return 0
		}
		m.Method, m.Params, m.compact = method, params, compact
		*env = envelope{seen: seen | HasJSONRPC, version: true, methodStr: true, paramsOK: params != nil,
			idOK: true, id: id, nameAt: -1}
		return i + 1
	}
}

// usualResponse is usual for a response, as a client reads it: `{"jsonrpc":"2.0",` then id and
// result, or id and error (an object), in any order, each once, nothing else, no whitespace
// inside the envelope. It sets m's Result or Error and fills env as object would, and returns
// the offset after the closing brace, or 0, having written nothing. Each value is scanned by
// scan.Value, which takes what object's own switch takes.
func (p *Parser) usualResponse(data []byte, i, depth int, m *Message, env *envelope) int {
	s := &p.sc
	if depth >= s.Limit() || !usualStart(data, i, len(`"id":0,"result":0}`)) {
		return 0
	}
	depth++
	var (
		seen             Members
		id, result, errv []byte
		c                scan.Code
	)
	i += len(usualPrefix)
	for {
		k, end := fastKey(data, i)
		if k&(HasID|HasResult|HasError) == 0 || seen&k != 0 || end+1 >= len(data) || data[end] != ':' {
			return 0
		}
		vs, b := end+1, data[end+1]
		if i = scan.PlainInt(data, vs); i == vs { // the usual id, without a call
			if i, c = s.Value(data, vs, depth); c != scan.OK { // whitespace before it too: for object
				return 0
			}
		}
		switch v := data[vs:i:i]; k {
		case HasID:
			if b != '"' && b != 'n' && b != '-' && b-'0' >= 10 {
				return 0 // an id of another type: the general path says why
			}
			id = v
		case HasResult:
			result = v
		default:
			if b != '{' {
				return 0
			}
			errv = v
		}
		seen |= k
		if i >= len(data) {
			return 0
		}
		if data[i] == ',' {
			i++
			continue
		}
		if data[i] != '}' || seen&HasID == 0 || seen&(HasResult|HasError) == 0 {
			return 0
		}
		m.Result, m.Error = result, errv
		*env = envelope{seen: seen | HasJSONRPC, version: true, idOK: true, errorObj: errv != nil, id: id, nameAt: -1}
		return i + 1
	}
}

// Input returns the input of the last Parse (as Moved last set it).
func (p *Parser) Input() []byte {
	if p.isBatch {
		return p.data
	}
	return p.in
}

// Message returns the message the last Parse returned (after Moved, its
// slices refer to the moved input). It is valid until the next Parse.
func (p *Parser) Message() *Message { return &p.msg }

// Moved tells p that the input of the last Parse, which returned no error,
// now lives in data: a copy of the same bytes. The last message (or batch)
// and the slices it hands out refer to data from then on. A transport that
// parsed a message in its read buffer and keeps a copy to run it elsewhere
// calls Moved instead of parsing the copy again.
func (p *Parser) Moved(data []byte) {
	if p.isBatch {
		p.data = data
		return
	}
	m, in := &p.msg, p.in
	for _, f := range [...]*[]byte{&m.Method, &m.ID, &m.Params, &m.Result, &m.Error, &m.Meta} {
		if *f == nil {
			continue
		}
		if off, ok := bytesconv.Offset(*f, in); ok { // else in the scratch buffer: it stays
			n := off + len(*f)
			*f = data[off:n:n]
		}
	}
	p.in = data
}

// Batch returns the classified members of the last Parse if its Kind was Batch, in order, else
// nil. The slice and the messages are owned by the Parser and valid until the next Parse.
//
// The Parser keeps a batch's members compact and builds this slice of Messages (152 bytes
// each) on the first call; BatchLen and BatchMember read them without it.
func (p *Parser) Batch() []Message {
	if !p.isBatch {
		return nil
	}
	if !p.built {
		n := p.members.n
		p.batch = slices.Grow(p.batch[:0], n)[:n]
		for i := range p.batch {
			p.BatchMember(i, &p.batch[i])
		}
		p.built = true
	}
	return p.batch[:len(p.batch):len(p.batch)]
}

func (p *Parser) fail(i int, c scan.Code) (*Message, error) {
	if p.members.n > 0 {
		p.members.reset() // a batch that turned out not to be JSON
	}
	p.err = SyntaxError{Offset: i, Err: errOf(c)}
	return nil, &p.err
}

// array scans a top-level array at data[i] as a batch.
func (p *Parser) array(data []byte, i int, m *Message) (int, scan.Code) {
	s := &p.sc
	if s.Limit() < 1 {
		return i, scan.Depth
	}
	if i = scan.SkipWS(data, i+1); i >= len(data) {
		return i, scan.Truncated
	}
	if data[i] == ']' {
		m.Reason = ReasonEmptyBatch
		return i + 1, scan.OK
	}
	maxBatch := p.MaxBatch
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	if uint64(len(data)) > maxSpan {
		maxBatch = 0 // member offsets would not fit in a span: over any limit
	}
	p.members.reset()
	var (
		c   scan.Code
		cls Message // the member being scanned, as record fills it, before it is packed
	)
	for n := 1; ; n++ {
		if n > maxBatch {
			// Over the limit: keep validating, stop recording.
			i, c = s.Value(data, i, 1)
		} else {
			bm := p.members.add()
			switch data[i] {
			case '{':
				if usualOn {
					var env envelope
					j := p.usual(data, i, 1, &cls, &env)
					if j == 0 {
						j = p.usualResponse(data, i, 1, &cls, &env)
					}
					if j > 0 {
						p.classifyMember(bm, &cls, &env, data)
						i = j
						break
					}
				}
				p.bm = bm
				i, c = p.object(data, i, 1, &cls)
				p.bm = nil
			case '[':
				i, c = s.Composite(data, i, 1)
				bm.reason = ReasonNestedBatch
			default:
				i, c = scan.Scalar(data, i)
				bm.reason = ReasonNotObject
			}
		}
		if c != scan.OK {
			return i, c
		}
		if i = scan.SkipWS(data, i); i >= len(data) {
			return i, scan.Truncated
		}
		switch data[i] {
		case ',':
			if i = scan.SkipWS(data, i+1); i >= len(data) {
				return i, scan.Truncated
			}
			continue
		case ']':
			if n > maxBatch {
				m.Reason = ReasonBatchLimit
				p.members.reset()
			} else {
				m.Kind = Batch
			}
			return i + 1, scan.OK
		}
		return i, scan.Syntax
	}
}

// envelope is what object learns about the known members on its way.
type envelope struct {
	seen, dup Members
	version   bool // jsonrpc is "2.0"
	methodStr bool // method is a string
	paramsOK  bool // params is an array or object
	idOK      bool // id is a string, number or null
	errorObj  bool // error is an object
	id        []byte
	nameAt    int // where the unescaped method name begins in the scratch buffer, or -1
}

// object scans the message object at data[i] (depth containers open around it), recording its
// members in m and classifying it; for a batch member (p.bm set), m is packed into p.bm once
// classified.
func (p *Parser) object(data []byte, i, depth int, m *Message) (int, scan.Code) {
	s := &p.sc
	if depth >= s.Limit() {
		return i, scan.Depth
	}
	depth++
	keys0 := len(p.keys)
	var (
		env  = envelope{nameAt: -1}
		c    scan.Code
		esc  bool
		vesc bool
	)
	if i = scan.SkipWS(data, i+1); i >= len(data) {
		return i, scan.Truncated
	}
	if data[i] == '}' {
		p.done(m, &env, data)
		return i + 1, scan.OK
	}
	for {
		if data[i] != '"' {
			return i, scan.Syntax
		}
		k, end := fastKey(data, i)
		if end == i {
			if end, esc, c = scan.String(data, i); c != scan.OK {
				return end, c
			}
			if key := data[i+1 : end-1]; esc {
				k = memberSlow(key)
				if k == 0 {
					p.addKey(key, true)
				}
			} else if k = member(key); k == 0 {
				p.addKey(key, false)
			}
		}
		i = end
		if i+1 < len(data) && data[i] == ':' && data[i+1] > ' ' {
			i++
		} else if i, c = scan.ColonSlow(data, i); c != scan.OK {
			return i, c
		}
		vs := i
		vesc = false
		switch b := data[i]; {
		case b == '"':
			if k == HasJSONRPC && i+5 <= len(data) && string(data[i:i+5]) == `"2.0"` {
				i += 5
			} else {
				i, vesc, c = scan.String(data, i)
			}
		case b == '[':
			if j := s.IntArray(data, i, depth); j > i {
				i = j // positional integers, the usual params
			} else {
				i, c = s.Composite(data, i, depth)
			}
		case b == '{':
			i, c = s.Composite(data, i, depth)
		case b == '-' || b-'0' < 10:
			if j := scan.PlainInt(data, i); j > i {
				i = j
			} else {
				i, c = scan.Number(data, i)
			}
		default:
			i, c = scan.Scalar(data, i)
		}
		if c != scan.OK {
			return i, c
		}
		if k != 0 {
			if env.seen&k != 0 {
				env.dup |= k
			} else {
				env.seen |= k
				p.record(m, &env, k, data[vs:i:i], vesc)
			}
		}
		if i = scan.SkipWS(data, i); i >= len(data) {
			return i, scan.Truncated
		}
		switch data[i] {
		case ',':
			if i = scan.SkipWS(data, i+1); i >= len(data) {
				return i, scan.Truncated
			}
			continue
		case '}':
			if len(p.keys)-keys0 > 1 && hasDuplicate(p.keys[keys0:]) {
				env.dup |= dupUnknown
			}
			p.dropKeys(keys0)
			if p.bm == nil { // done's, without its call level
				p.classify(m, &env)
			} else {
				p.classifyMember(p.bm, m, &env, data)
			}
			return i + 1, scan.OK
		}
		return i, scan.Syntax
	}
}

// Known member names as they are usually written, quotes included, read little-endian.
const (
	rawMethod  = 0x22646f6874656d22 // "method"
	rawParams  = 0x22736d6172617022 // "params"
	rawResult  = 0x22746c7573657222 // "result"
	rawJSONRPC = 0x6370726e6f736a22 // "jsonrpc (its closing quote is the 9th byte)
	rawID      = 0x22646922         // "id"
	rawError   = 0x22726f72726522   // "error"
	rawMeta    = 0x226174656d5f22   // "_meta"
	low7       = 1<<56 - 1
)

// fastKey recognises a known member name written without escapes at data[i] (a quote) with one
// 8-byte load and returns its bit and the offset after its closing quote, or (0, i) when it
// cannot tell: then the name must be scanned.
func fastKey(data []byte, i int) (Members, int) {
	if i+9 > len(data) { // the last member, too short for the load: "id" is the one it can be
		if i+4 <= len(data) && binary.LittleEndian.Uint32(data[i:]) == rawID {
			return HasID, i + 4
		}
		return 0, i
	}
	w := binary.LittleEndian.Uint64(data[i : i+8])
	switch {
	case w == rawMethod:
		return HasMethod, i + 8
	case w == rawParams:
		return HasParams, i + 8
	case uint32(w) == rawID:
		return HasID, i + 4
	case w == rawJSONRPC && data[i+8] == '"':
		return HasJSONRPC, i + 9
	case w == rawResult:
		return HasResult, i + 8
	case w&low7 == rawError:
		return HasError, i + 7
	case w&low7 == rawMeta:
		return HasMeta, i + 7
	}
	return 0, i
}

// member returns the bit of the known member named key (raw, without escapes), or 0.
func member(key []byte) Members {
	switch len(key) {
	case 2:
		if key[0] == 'i' && key[1] == 'd' {
			return HasID
		}
	case 5:
		switch string(key) {
		case "error":
			return HasError
		case "_meta":
			return HasMeta
		}
	case 6:
		switch string(key) {
		case "method":
			return HasMethod
		case "params":
			return HasParams
		case "result":
			return HasResult
		}
	case 7:
		if string(key) == "jsonrpc" {
			return HasJSONRPC
		}
	}
	return 0
}

var memberNames = [...]string{"jsonrpc", "method", "params", "id", "result", "error", "_meta"}

// memberSlow is member for a key with escapes.
func memberSlow(key []byte) Members {
	for k, name := range memberNames {
		if KeyEquals(key, name) {
			return 1 << k
		}
	}
	return 0
}

// done classifies the object just scanned into m; a batch member's is then packed into p.bm.
func (p *Parser) done(m *Message, env *envelope, data []byte) {
	if p.bm == nil {
		p.classify(m, env)
	} else {
		p.classifyMember(p.bm, m, env, data)
	}
}

// record notes the first occurrence of known member k with raw value v (vesc: v is a string
// with escapes) in env and m: the one rule for a message and a batch member (whose m
// classifyMember packs).
func (p *Parser) record(m *Message, env *envelope, k Members, v []byte, vesc bool) {
	switch k {
	case HasJSONRPC:
		env.version = string(v) == `"2.0"` || vesc && KeyEquals(v[1:len(v)-1], "2.0")
	case HasMethod:
		if v[0] != '"' {
			return
		}
		env.methodStr = true
		name := v[1 : len(v)-1 : len(v)-1]
		if vesc {
			start := len(p.scratch)
			p.scratch, _ = scan.AppendUnescaped(p.scratch, name)
			name = p.scratch[start:len(p.scratch):len(p.scratch)]
			env.nameAt = start
		}
		m.Method = name
	case HasParams:
		m.Params = v
		env.paramsOK = v[0] == '{' || v[0] == '['
		m.compact = env.paramsOK && !p.sc.Spaced() // the Composite just scanned v
	case HasID:
		b := v[0]
		env.id = v
		env.idOK = b == '"' || b == 'n' || b == '-' || b-'0' < 10
	case HasResult:
		m.Result = v
	case HasError:
		m.Error = v
		env.errorObj = v[0] == '{'
	case HasMeta:
		m.Meta = v
	}
}

// classify sets m's Kind, Seen, Reason and ID from env; see Parse for the order of checks.
func (p *Parser) classify(m *Message, env *envelope) {
	seen := env.seen
	m.Seen = seen
	if seen&HasID != 0 && env.dup&HasID == 0 && env.idOK {
		m.ID = env.id
	}
	kind, reason := Invalid, ReasonNone
	switch {
	case env.dup != 0:
		reason = ReasonDuplicate
	case !env.version:
		reason = ReasonVersion
	case seen&HasMethod != 0:
		switch {
		case !env.methodStr:
			reason = ReasonMethod
		case seen&(HasResult|HasError) != 0:
			reason = ReasonMixed
		case seen&HasParams != 0 && !env.paramsOK:
			reason = ReasonParams
		case seen&HasID == 0:
			kind = Notification
		case !env.idOK:
			reason = ReasonID
		default:
			kind = Call
		}
	case seen&(HasResult|HasError) == HasResult|HasError:
		reason = ReasonMixed
	case seen&(HasResult|HasError) != 0:
		switch {
		case seen&HasID == 0:
			reason = ReasonResponse
		case !env.idOK:
			reason = ReasonID
		case seen&HasResult != 0:
			kind = Result
		case !env.errorObj:
			reason = ReasonResponse
		default:
			kind = ErrorResponse
		}
	default:
		reason = ReasonNoMethod
	}
	m.Kind, m.Reason = kind, reason
}

// dupUnknown marks, in envelope.dup, an unknown member that appears twice.
const dupUnknown Members = 1 << 15

// maxKeptKeys caps the unknown-member table a Parser keeps between messages.
const maxKeptKeys = 256

// addKey remembers the name of an unknown envelope member (unescaped), so
// that a name given twice is rejected like a known one: two parsers must
// never read one message two ways.
func (p *Parser) addKey(raw []byte, esc bool) {
	if esc {
		start := len(p.scratch)
		p.scratch, _ = scan.AppendUnescaped(p.scratch, raw)
		raw = p.scratch[start:]
	}
	p.keys = append(p.keys, raw)
}

func (p *Parser) dropKeys(n int) {
	clear(p.keys[n:])
	p.keys = p.keys[:n]
}

// hasDuplicate sorts names and reports whether two are equal: O(n log n)
// for an envelope with many unknown members, nothing for the usual none.
func hasDuplicate(names [][]byte) bool {
	slices.SortFunc(names, bytes.Compare)
	for i := 1; i < len(names); i++ {
		if bytes.Equal(names[i-1], names[i]) {
			return true
		}
	}
	return false
}
