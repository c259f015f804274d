//go:build goexperiment.simd && amd64

package scan

// NOTE on walk, Composite's SIMD lane (simdjson's two stages, fused block by block).
//
// Stage 1 classifies 64 bytes into masks (classifyAll): quotes, backslashes, control and
// non-ASCII bytes, structural bytes, whitespace. Backslash runs give the escaped bytes
// (carrying an odd run into the next block), the unescaped quotes give by prefix XOR the
// bytes inside strings (carried too), and from those: the structural bytes outside strings,
// the opening quotes, the first byte of each run of other bytes outside strings (a number
// or a literal), and the "problems" inside strings: control and non-ASCII bytes, escapes
// of anything else than "\/bfnrtu, \u without four hex digits. These are the tokens.
//
// Stage 2 walks the tokens in order through the state machine Composite has (value, key,
// colon, next, and the two just-opened states), pushing and popping the same bit stack.
// Numbers and literals are checked where they start (run's SWAR integer test, else Scalar),
// and what follows them must not be part of them. A string is one token: its contents were
// checked by the masks, and a problem inside it is a token of its own.
//
// At anything it does not accept (a problem in a string, a token the state does not allow,
// a number or literal that is not valid, the depth limit) and when fewer than 64 bytes are
// left, walk hands back to Composite the state it was in before that token (before the
// string, for a problem inside one), with the offset to go on from. Composite's portable
// code then reports the error, or goes on (valid UTF-8, the last bytes), exactly as if it
// had scanned everything itself: walk accepted only what it would have accepted.

import "math/bits"

// walk's own states; those Composite goes on from are the st* constants of value.go.
const (
	wValue = iota
	wKey
	wColon
	wNext
	wOpenObj
	wOpenArr
)

// scalarByte reports the bytes that can continue a number or a literal as far as the token
// masks are concerned: anything but whitespace, a structural byte or a quote.
var scalarByte = byteSet(func(b byte) bool { return !IsSpace(b) && !isStructural(b) && b != '"' })

func isStructural(b byte) bool {
	return b == '{' || b == '}' || b == '[' || b == ']' || b == ':' || b == ','
}

// walk goes on with the container at depth-1 (obj if an object) from data[i], in state st
// (stNext: a value ends at i; stOpen: data[i] is the '{' or '[' just opened and pushed). It
// returns where and in which state (st* of value.go) Composite goes on; depth and obj as they
// are there (for stOpen, those before the container at i was opened).
func (s *Scanner) walk(data []byte, i, base, depth int, obj bool, st int) (int, int, bool, int) {
	var (
		w       = wNext
		openAt  int    // the bracket of the container just opened (wOpenObj, wOpenArr)
		strAt   int    // the opening quote of the last string
		strSt   int    // the state before that string (stKey or stValue)
		endAt   int    // the end of the last number or literal
		inStr   uint64 // all ones when the block starts inside a string
		escNext uint64 // 1 when the block's first byte is escaped
		scNext  uint64 // 1 when the block's first byte continues a number or literal
		b       = i
	)
	if st == stOpen {
		openAt, b, w = i, i+1, wOpenArr
		if obj {
			w = wOpenObj
		}
	}
blocks:
	for b+64 <= len(data) {
		p := (*[64]byte)(data[b : b+64])
		q, bs, low, stc, ws := classifyAll(p)
		escaped := escNext
		if bs != 0 {
			pot := bs &^ escNext
			t := (pot<<1 | oddBits) - pot ^ oddBits
			escaped = t ^ (bs | escNext)
			escNext = (t & bs) >> 63
		} else {
			escNext = 0
		}
		qr := q &^ escaped
		in := prefixXor(qr) ^ inStr
		inStr = uint64(int64(in) >> 63)
		outside := ^(in | qr)
		sc := ^(stc | ws | q) & outside
		prob := in & low
		if e := escaped & in; e != 0 {
			valid, u, hex := classifyEscapes(p)
			us := e & u
			nh := ^hex
			prob |= e&^valid | us&(nh>>1|nh>>2|nh>>3|nh>>4)
			for late := us >> 60; late != 0; late &= late - 1 { // hex digits past the block
				k := 60 + bits.TrailingZeros64(late)
				if !hex4(data, b+k+1) {
					prob |= 1 << k
				}
			}
		}
		tok := stc&outside | qr&in | sc&^(sc<<1|scNext) | prob
		scNext = sc >> 63
		for tok != 0 {
			k := bits.TrailingZeros64(tok)
			tok &= tok - 1
			at := b + k
			if prob>>k&1 != 0 {
				return strAt, depth, obj, strSt
			}
			switch c := data[at]; c {
			case '"':
				strAt = at
				switch w {
				case wKey, wOpenObj:
					strSt, w = stKey, wColon
				case wValue, wOpenArr:
					strSt, w = stValue, wNext
				default:
					goto stop
				}
			case ':':
				if w != wColon {
					goto stop
				}
				w = wValue
			case ',':
				if w != wNext {
					goto stop
				}
				w = wValue
				if obj {
					w = wKey
				}
			case '{', '[':
				if w != wValue && w != wOpenArr || depth >= s.maxDepth {
					goto stop
				}
				obj = c == '{'
				s.push(depth, obj)
				depth++
				openAt, w = at, wOpenArr
				if obj {
					w = wOpenObj
				}
			case '}', ']':
				if (c == '}') != obj || w != wNext && w != wOpenObj && w != wOpenArr {
					goto stop
				}
				depth--
				if depth == base {
					return at + 1, depth, obj, stDone
				}
				obj = s.isObject(depth - 1)
				w = wNext
			default: // a number or a literal
				if w != wValue && w != wOpenArr {
					goto stop
				}
				if !obj && (c-'0' < 10 || c == '-') { // a run of integers in an array
					if j := intBlocks(data, at); j > at {
						w, b, inStr, escNext, scNext = wNext, j, 0, 0, 0
						continue blocks // on from the ',' at j
					}
				}
				end := scalarEnd(data, at)
				if end < 0 {
					goto stop
				}
				endAt, w = end, wNext
			}
			continue
		stop: // hand the token at `at` back to Composite in state w
			switch w {
			case wValue:
				return at, depth, obj, stValue
			case wKey:
				return at, depth, obj, stKey
			case wColon:
				return at, depth, obj, stColon
			case wNext:
				return at, depth, obj, stNext
			}
			return openAt, depth - 1, obj, stOpen
		}
		b += 64
	}
	// Fewer than 64 bytes left: Composite goes on from the first byte not scanned.
	if inStr != 0 {
		return strAt, depth, obj, strSt
	}
	b = max(b, endAt)
	switch w {
	case wValue:
		return b, depth, obj, stValue
	case wKey:
		return b, depth, obj, stKey
	case wColon:
		return b, depth, obj, stColon
	case wNext:
		return b, depth, obj, stNext
	}
	return openAt, depth - 1, obj, stOpen
}

// hex4 reports whether data[i:i+4] are four hex digits.
func hex4(data []byte, i int) bool {
	return i+4 <= len(data) && hexDigit[data[i]] && hexDigit[data[i+1]] && hexDigit[data[i+2]] && hexDigit[data[i+3]]
}

// scalarEnd returns the end of the valid number or literal at data[i] when a byte that cannot
// continue it follows, else -1.
func scalarEnd(data []byte, i int) int {
	if i+8 <= len(data) {
		x := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24 |
			uint64(data[i+4])<<32 | uint64(data[i+5])<<40 | uint64(data[i+6])<<48 | uint64(data[i+7])<<56
		switch b := byte(x); {
		case b-'0' < 10:
			if n := shortInt(x); n != 0 {
				return i + n
			}
		case b == 't' && uint32(x) == 't'|'r'<<8|'u'<<16|'e'<<24,
			b == 'n' && uint32(x) == 'n'|'u'<<8|'l'<<16|'l'<<24:
			if !scalarByte[byte(x>>32)] {
				return i + 4
			}
			return -1
		case b == 'f' && uint32(x>>8) == 'a'|'l'<<8|'s'<<16|'e'<<24:
			if !scalarByte[byte(x>>40)] {
				return i + 5
			}
			return -1
		}
	}
	end, c := Scalar(data, i)
	if c != OK || end >= len(data) || scalarByte[data[end]] {
		return -1
	}
	return end
}
