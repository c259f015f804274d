package scan

// NOTE: (*Scanner).Composite validates any array or object, iteratively. The kind of each open
// container (object or array) is one bit in a bit stack (a fixed array covering 1024 levels, a
// slice beyond that), so nesting is bounded by the depth limit, never by the goroutine stack.
// It is a small state machine written with goto (open, key, value, next, closed) so that the
// state lives in registers. A lax Scanner lets strings hold bytes that are not UTF-8 (as
// encoding/json does); that case is handled only where a string scan failed, so the strict
// path pays nothing for it. Built with GOEXPERIMENT=simd, Composite hands its value to the SIMD
// lane (walk, simd_walk_amd64.go) once it is 64 bytes into it, and goes on from the state walk
// hands back (resume); without the experiment simdOn is false and those branches compile away.
// Composite also notes whether the value holds whitespace between its tokens (Spaced), for
// free: only the paths that skip whitespace (skipWS's slow half, colonSlow) set it, and
// compact input never takes them; walk ORs each block's whitespace outside strings into one
// word (which may take in whitespace after the value's end: Spaced may be true for a compact
// value, never false for one that is not).

// smallStack is how many 64-level words of the container bit stack live inside the Scanner.
const smallStack = 16

// Scanner validates nested values: it holds the depth limit, whether it is lax, and the bit
// stack of open container kinds (1 = object; bit d is the container at depth d+1). The zero
// value is not ready: call SetLimit first. A Scanner is not safe for concurrent use.
type Scanner struct {
	maxDepth int
	lax      bool // let bytes that are not UTF-8 through inside strings
	badUTF8  bool // lax: a string held some since SetLimit
	spaced   bool // the last Composite met whitespace between tokens (see Spaced)
	small    [smallStack]uint64
	ws       walkState // the SIMD lane's (empty without it; not last, so it takes no room)
	big      []uint64  // words beyond small, only when maxDepth > 64*smallStack
}

// SetLimit applies maxDepth (<= 0 means DefaultMaxDepth), makes the Scanner strict and sizes the
// bit stack; it allocates only the first time a limit above 1024 is used.
func (s *Scanner) SetLimit(maxDepth int) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	s.maxDepth, s.lax, s.badUTF8 = maxDepth, false, false
	if need := (maxDepth+63)>>6 - smallStack; need > len(s.big) {
		s.big = make([]uint64, need)
	}
}

// Limit returns the depth limit SetLimit applied.
func (s *Scanner) Limit() int { return s.maxDepth }

// SetLax makes the Scanner let bytes that are not UTF-8 through inside strings, as
// encoding/json does (call it after SetLimit). BadUTF8 then tells whether there were any.
func (s *Scanner) SetLax() { s.lax = true }

// BadUTF8 reports whether a lax Scanner let bytes that are not UTF-8 through since SetLimit.
func (s *Scanner) BadUTF8() bool { return s.badUTF8 }

// Spaced reports whether the value the last Composite call scanned (without error) may hold
// whitespace between its tokens, outside its strings. When it reports false the value holds
// none: it is compact, as encoding/json's Compact would write it. It may report true for a
// compact value (the SIMD lane counts whole 64-byte blocks, which may reach past the value's
// end into whitespace after it), never false for one that is not. It costs nothing on compact input: it is set on the paths that skip
// whitespace, which compact input never takes.
func (s *Scanner) Spaced() bool { return s.spaced }

// IntArray returns the end of the array at data[i] (a '[') when it is a compact array of
// plain integers, the usual positional params ([42,23]): an optional '-', then '0' or a digit
// run without a leading zero, each followed by ',' or the closing ']', at a depth the limit
// allows. For anything else (whitespace, an empty array, a fraction, an exponent, a leading
// zero, any other value, an error) it returns i and the caller scans the value with Composite,
// which gives every answer and error: IntArray only accepts what Composite accepts. Spaced is
// false after it, as after Composite on compact input.
func (s *Scanner) IntArray(data []byte, i, depth int) int {
	if depth >= s.maxDepth {
		return i
	}
	for j := i + 1; j < len(data); j++ {
		if data[j] == '-' {
			if j++; j >= len(data) {
				return i
			}
		}
		switch d := data[j]; {
		case d == '0':
			j++
		case d-'1' < 9:
			for j++; j < len(data) && data[j]-'0' < 10; j++ {
			}
		default:
			return i
		}
		if j >= len(data) || data[j] != ',' {
			if j < len(data) && data[j] == ']' {
				s.spaced = false
				return j + 1
			}
			return i
		}
	}
	return i
}

// skipWS is SkipWS noting, when it skips any, that the value holds whitespace.
func (s *Scanner) skipWS(data []byte, i int) int {
	if i < len(data) && data[i] > ' ' {
		return i
	}
	return s.skipWSSlow(data, i)
}

func (s *Scanner) skipWSSlow(data []byte, i int) int {
	j := skipWSSlow(data, i)
	if j != i {
		s.spaced = true
	}
	return j
}

// colonSlow is ColonSlow (at data[i], after a member name) noting whitespace around the ':'.
func (s *Scanner) colonSlow(data []byte, i int) (int, Code) {
	j, c := ColonSlow(data, i)
	if j != i+1 {
		s.spaced = true
	}
	return j, c
}

func (s *Scanner) push(d int, obj bool) {
	w, bit := d>>6, uint64(1)<<(d&63)
	if w < smallStack {
		if obj {
			s.small[w] |= bit
		} else {
			s.small[w] &^= bit
		}
		return
	}
	if obj {
		s.big[w-smallStack] |= bit
	} else {
		s.big[w-smallStack] &^= bit
	}
}

func (s *Scanner) isObject(d int) bool {
	w, bit := d>>6, uint64(1)<<(d&63)
	if w < smallStack {
		return s.small[w]&bit != 0
	}
	return s.big[w-smallStack]&bit != 0
}

// Value scans any value starting at data[i] (i < len(data)); depth containers are open around it.
func (s *Scanner) Value(data []byte, i, depth int) (int, Code) {
	if b := data[i]; b == '{' || b == '[' {
		return s.Composite(data, i, depth)
	}
	i, c := Scalar(data, i)
	if c == UTF8 {
		i, c = s.lenient(data, i, c)
	}
	return i, c
}

// Whole scans data as one value with optional whitespace around it.
func (s *Scanner) Whole(data []byte) (int, Code) {
	i := SkipWS(data, 0)
	if i >= len(data) {
		return i, Truncated
	}
	i, c := s.Value(data, i, 0)
	if c != OK {
		return i, c
	}
	if i = SkipWS(data, i); i < len(data) {
		return i, Syntax
	}
	return i, OK
}

// Valid reports whether data is one valid JSON value (RFC 8259, UTF-8) with optional whitespace
// around it, nesting at most maxDepth containers (0 means DefaultMaxDepth). It allocates only
// when maxDepth is above 1024.
func Valid(data []byte, maxDepth int) bool {
	if Int(data) { // the most common result of all, in a few instructions
		return true
	}
	return validSlow(data, maxDepth)
}

// Int reports whether data is exactly one integer without exponent or fraction, nothing around
// it: a strict subset of what Number (and Valid) accepts, checked in a few instructions. It
// inlines, so that a caller can spare the common result a call to Valid.
func Int(data []byte) bool {
	if len(data) > 1 && data[0] == '-' {
		data = data[1:]
	}
	if len(data) == 0 || data[0] == '0' && len(data) > 1 {
		return false
	}
	for _, b := range data {
		if b-'0' >= 10 {
			return false
		}
	}
	return true
}

// validSlow is Valid for any value.
func validSlow(data []byte, maxDepth int) bool {
	i := SkipWS(data, 0)
	if i >= len(data) {
		return false
	}
	var c Code
	if b := data[i]; b != '{' && b != '[' { // a scalar needs no container stack
		i, c = Scalar(data, i)
	} else {
		var s Scanner
		s.SetLimit(maxDepth)
		i, c = s.Composite(data, i, 0)
	}
	return c == OK && SkipWS(data, i) == len(data)
}

// lenient goes on after a string scan stopped at data[i] with c: a lax Scanner goes past the
// bytes that are not UTF-8.
func (s *Scanner) lenient(data []byte, i int, c Code) (int, Code) {
	if c != UTF8 || !s.lax {
		return i, c
	}
	i, _, c = laxRest(data, i, false, c)
	if c == UTF8 {
		s.badUTF8, c = true, OK
	}
	return i, c
}

// The states Composite goes on from after its SIMD lane (walk, in simd_walk_amd64.go).
const (
	stValue  = iota // data[i:], after whitespace, should start a value
	stKey           // ... a member name
	stColon         // a member name ends at or before i: the ':' and whitespace
	stNext          // a value ends at i
	stOpen          // data[i] is a '{' or '[' to open (again)
	stDone          // the container Composite scans ends at i
	stScalar        // data[i] should start a value the lane did not take: go back to it after
)

// runData is data as far as run may go: with the SIMD lane, up to where the lane takes over
// (so that run does not scan a whole large container on its own), else all of it.
func (s *Scanner) runData(data []byte, simdAt int) []byte {
	if simdOn && simdAt < len(data) {
		return data[:simdAt]
	}
	return data
}

// Composite scans the array or object opening at data[i]; depth containers are open around it.
func (s *Scanner) Composite(data []byte, i, depth int) (int, Code) {
	var (
		base   = depth
		obj    bool
		c      Code
		b      byte
		st     int
		simdAt = i + 64 // the SIMD lane is tried from this offset on: not on small containers
	)
	s.spaced = false
open: // data[i] is '{' or '['
	if depth >= s.maxDepth {
		return i, Depth
	}
	obj = data[i] == '{'
	s.push(depth, obj)
	depth++
	if simdOn && i >= simdAt && i+65 <= len(data) {
		i, depth, obj, st = s.walk(data, i, base, depth, obj, stOpen)
		goto resume
	}
	i = s.skipWS(data, i+1)
	if i >= len(data) {
		return i, Truncated
	}
	if b = data[i]; b == '}' && obj || b == ']' && !obj {
		i++
		goto closed
	}
	if !obj {
		goto value
	}
key: // data[i] should open a member name
	if data[i] != '"' {
		return i, Syntax
	}
	if i, _, c = String(data, i); c != OK {
		if i, c = s.lenient(data, i, c); c != OK {
			return i, c
		}
	}
	if i+1 < len(data) && data[i] == ':' && data[i+1] > ' ' {
		i++
	} else if i, c = s.colonSlow(data, i); c != OK {
		return i, c
	}
value: // data[i] should start a value
	if simdOn && i >= simdAt && i+64 <= len(data) {
		i, depth, obj, st = s.walk(data, i, base, depth, obj, stValue)
		goto resume
	}
	switch b = data[i]; b {
	case '{', '[':
		goto open
	case '"':
		j, at := run(s.runData(data, simdAt), i, obj)
		if at > 0 { // a string value from data[at] on needs more than run does
			i, _, c = stringRest(data, at, false)
			break
		}
		if j > i {
			i = j
			goto next
		}
		i, _, c = String(data, i)
	default:
		if j := PlainInt(data, i); j > i {
			i = j // the common small integer, without a call
			goto next
		}
		if j, at := run(s.runData(data, simdAt), i, obj); at > 0 {
			i, _, c = stringRest(data, at, false)
			break
		} else if j > i {
			i = j
			goto next
		}
		if b == '-' || b-'0' < 10 {
			i, c = Number(data, i)
		} else {
			i, c = Scalar(data, i)
		}
	}
	if c != OK {
		if i, c = s.lenient(data, i, c); c != OK {
			return i, c
		}
	}
next: // after a value inside the innermost open container
	if simdOn && i >= simdAt && i+64 <= len(data) {
		i, depth, obj, st = s.walk(data, i, base, depth, obj, stNext)
		goto resume
	}
	if i = s.skipWS(data, i); i >= len(data) {
		return i, Truncated
	}
	b = data[i]
	if b == ',' {
		if i = s.skipWS(data, i+1); i >= len(data) {
			return i, Truncated
		}
		if obj {
			goto key
		}
		goto value
	}
	if !(b == '}' && obj || b == ']' && !obj) {
		return i, Syntax
	}
	i++
closed: // a container just closed
	depth--
	if depth == base {
		return i, OK
	}
	obj = s.isObject(depth - 1)
	goto next
resume: // after the SIMD lane: go on in state st from data[i]
	if s.walkSpaced() {
		s.spaced = true
	}
	simdAt = i + 64
	switch st {
	case stScalar: // a number or literal the lane leaves to Number: back to it at once after
		simdAt = i + 1
		goto value
	case stDone:
		return i, OK
	case stOpen:
		goto open
	case stColon: // as after String in key (no label there: it costs the portable path)
		if i, c = s.colonSlow(data, i); c != OK {
			return i, c
		}
		goto value
	case stNext:
		goto next
	}
	if i = s.skipWS(data, i); i >= len(data) {
		return i, Truncated
	}
	if st == stKey {
		goto key
	}
	goto value
}
