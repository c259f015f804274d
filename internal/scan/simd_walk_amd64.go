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
// Integers are checked on a digit mask where they start (else run's SWAR test, or Number
// written out), and what follows them must not be part of them. A string is one token: its
// contents were checked by the masks, and a problem inside it is a token of its own.
//
// In blocks with three or more structural bytes, a ':' or ',' that sits right between the
// end of a value and the next token (compact JSON: `"name":1,"next"`) is not a token: the
// token after it carries a mark instead (sepC, sepM), which only the states a value ends in
// (colon, next) take, and which makes them go on with that token at once. The refill
// comment says why no other state can meet a marked token, and where errors are reported.
//
// Blocks (the NOTE's own paragraph, "the NOTE on blocks"). A compact block (no whitespace,
// control or non-ASCII byte outside strings, no problem inside them) with six structural
// bytes or more is checked whole on its masks instead, without taking its tokens one by
// one, from the state walk is in at its first byte and back to the state its last token
// leaves: every value or name starts right after '{', '[', ':' or ','; a name where a ','
// in an object or a '{' is (the kind of the innermost container at each ',' comes from
// one pass over the brackets alone, which keeps the container stack in one word: depth <
// 64); a ':' only right after a name's closing quote (the names' runs in the in-string
// mask, each plus its opening quote's bit, carry into their closing quote); a ',' or a
// closer only right after the end of a value, a '}' or ']' also right after its opener,
// and each closer of the innermost container's kind; numbers only as integers
// (-?(0|[1-9][0-9]*)) ending in the block (at its last byte too, when the byte after it
// cannot continue them: a tenth of LSP-like blocks end so). The state before the block
// stands for the byte before it (carryTab). Anything else, the depth limit, or the closer
// of the value walk scans, and the block is taken token by token as before, from the same
// state: the masks only ever accept what the tokens accept, and stop nothing the tokens
// would take.
// On LSP-like objects (13 structural bytes a block) this costs less than the tokens; on
// sparse blocks (strings, eth) the tokens cost less, hence the six.
//
// At anything it does not accept (a problem in a string, a token the state does not allow,
// a number or literal that is not valid, the depth limit) and when fewer than 64 bytes are
// left, walk hands back to Composite the state it was in before that token (before the
// string, for a problem inside one), with the offset to go on from. Composite's portable
// code then reports the error, or goes on (valid UTF-8, the last bytes), exactly as if it
// had scanned everything itself: walk accepted only what it would have accepted.

import (
	"encoding/binary"
	"math/bits"
	"simd/archsimd"
)

// walk's own states. The first four are the st* states of value.go Composite goes on from
// (last hands them back as they are); after '{' and '[' Composite goes on from stOpen.
const (
	wValue   = stValue
	wKey     = stKey
	wColon   = stColon
	wNext    = stNext
	wOpenObj = stScalar + 1 + iota
	wOpenArr
)

// walkState is what walk needs seldom: kept in the Scanner, in memory, it leaves the
// registers to what it needs for every token.
type walkState struct {
	inStr   uint64 // all ones when the next block starts inside a string
	escNext uint64 // 1 when the next block's first byte is escaped
	scNext  uint64 // 1 when the next block's first byte continues a number or literal
	resume  int    // the state refill goes back to
	openAt  int    // the bracket of the container just opened (wOpenObj, wOpenArr)
	strAt   int    // the opening quote of the last string
	strSt   int    // the state before that string (stKey or stValue)
	endAt   int    // the end of the last number or literal
	dig     uint64 // the block's digits
	sc      uint64 // the block's bytes of numbers and literals (outside strings)
	prob    uint64 // the block's problems inside strings (tokens)
	spaced  uint64 // whitespace outside strings in any block so far (Scanner.Spaced), OR'ed
}

// walkSpaced reports whether walk met whitespace outside strings since it was last called:
// in the value Composite scans, or (in the last block) after its end.
func (s *Scanner) walkSpaced() bool { return s.ws.spaced != 0 }

// scalarByte reports the bytes that can continue a number or a literal as far as the token
// masks are concerned: anything but whitespace, a structural byte or a quote.
var scalarByte = byteSet(func(b byte) bool { return !IsSpace(b) && !isStructural(b) && b != '"' })

func isStructural(b byte) bool {
	return b == '{' || b == '}' || b == '[' || b == ']' || b == ':' || b == ','
}

// walk goes on with the container at depth-1 (obj if an object) from data[i], in state st
// (stNext: a value ends at i; stValue: data[i] starts a value; stOpen: data[i] is the '{' or
// '[' just opened and pushed). It
// returns where and in which state (st* of value.go) Composite goes on; depth and obj as they
// are there (for stOpen, those before the container at i was opened).
//
// Stage 2 is a goto state machine, as Composite is: the state is where the code is, and each
// state takes the next token (tz of the mask) and checks only the bytes it allows.
func (s *Scanner) walk(data []byte, i, base, depth int, obj bool, st int) (int, int, bool, int) {
	i, depth, obj, st = s.walkLanes(data, i, base, depth, obj, st)
	archsimd.ClearAVXUpperBits() // see vzeroupper (simd_amd64.go)
	return i, depth, obj, st
}

// walkLanes is walk, which leaves the vector registers dirty.
func (s *Scanner) walkLanes(data []byte, i, base, depth int, obj bool, st int) (int, int, bool, int) {
	var (
		b    = i - 64  // the block's first byte (refill moves it on first)
		blk  *[64]byte // data[b:b+64]
		tok  uint64    // the tokens of the block not taken yet
		sepC uint64    // the tokens right after a ':' left out of tok (see refill)
		sepM uint64    // the tokens right after a ',' left out of tok
		k    int       // the bit of the token taken
		c    byte      // its byte
		at   int       // its offset, where the code needs it
		w    = &s.ws   // what is seldom needed lives in memory, leaving the registers to the above
	)
	*w = walkState{resume: wNext}
	switch st {
	case stOpen:
		w.openAt, b, w.resume = i, i+1-64, wOpenArr
		if obj {
			w.resume = wOpenObj
		}
	case stValue:
		w.resume = wValue
	}
	goto refill

value: // a value
	if tok == 0 {
		w.resume = wValue
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
valueAt: // the token at k, where a value may start
	if c = blk[k]; c == '"' {
		w.strAt, w.strSt = b+k, stValue
		goto next
	}
	if c == '{' || c == '[' {
		goto open
	}
	if c == ']' || c == '}' || c == ':' || c == ',' {
		return b + k, depth, obj, stValue
	}
	goto scalar

key: // a member name
	if tok == 0 {
		w.resume = wKey
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
keyAt: // the token at k, where a member name should start
	if blk[k] != '"' {
		return b + k, depth, obj, stKey
	}
	w.strAt, w.strSt = b+k, stKey
	goto colon

colon: // after a member name
	if tok == 0 {
		w.resume = wColon
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
	if sepC>>k&1 != 0 { // the ':' right before it was checked on the masks
		if c = blk[k]; c == '"' {
			w.strAt, w.strSt = b+k, stValue
			goto next
		}
		goto valueAt
	}
	if w.prob>>k&1 != 0 {
		return w.strAt, depth, obj, w.strSt
	}
	if blk[k] != ':' { // at the ',' left out right before it, if there is one
		return b + k - int(sepM>>k&1), depth, obj, stColon
	}
	goto value

next: // after a value
	if tok == 0 {
		w.resume = wNext
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
	if sepM>>k&1 != 0 { // the ',' right before it was checked on the masks
		if obj {
			if blk[k] == '"' {
				w.strAt, w.strSt = b+k, stKey
				goto colon
			}
			goto keyAt
		}
		goto valueAt
	}
	if w.prob>>k&1 != 0 {
		return w.strAt, depth, obj, w.strSt
	}
	if c = blk[k]; c == ',' {
		if obj {
			goto key
		}
		goto value
	}
	if c == '}' && obj || c == ']' && !obj {
		goto close
	}
	return b + k - int(sepC>>k&1), depth, obj, stNext // at the ':' left out right before it, if any

openObj: // after '{'
	if tok == 0 {
		w.resume = wOpenObj
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
	if c = blk[k]; c == '"' {
		w.strAt, w.strSt = b+k, stKey
		goto colon
	}
	if c == '}' {
		goto close
	}
	return w.openAt, depth - 1, obj, stOpen

openArr: // after '['
	if tok == 0 {
		w.resume = wOpenArr
		goto refill
	}
	k = bits.TrailingZeros64(tok) & 63
	tok &= tok - 1
	switch c = blk[k]; c {
	case '"':
		w.strAt, w.strSt = b+k, stValue
		goto next
	case '{', '[':
		goto open
	case ']':
		goto close
	case '}', ':', ',':
		return w.openAt, depth - 1, obj, stOpen
	}
	goto scalar

open: // c, bit k of the block, is '{' or '[', where a value may start
	if depth >= s.maxDepth {
		return b + k, depth, obj, stValue
	}
	obj = c == '{'
	s.push(depth, obj)
	depth++
	w.openAt = b + k
	if obj {
		goto openObj
	}
	goto openArr

close: // bit k of the block closes the innermost container
	depth--
	if depth == base {
		return b + k + 1, depth, obj, stDone
	}
	obj = s.isObject(depth - 1)
	goto next

scalar: // c, bit k of the block, should start a number or a literal, where a value may start
	at = b + k
	if d := w.dig >> k; c-'0' < 10 { // an integer that ends in this block, from the masks
		n := bits.TrailingZeros64(^d)
		if e := k + n; e < 64 && w.sc>>e&1 == 0 && (c != '0' || n == 1) {
			w.endAt = at + n
			if !obj && data[at+n] == ',' && at+n+64 <= len(data) {
				goto ints
			}
			goto next
		}
	}
	if at+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[at:])
		if c-'0' < 10 {
			if n := shortInt(x); n != 0 {
				w.endAt = at + n
				if !obj && data[at+n] == ',' && at+n+64 <= len(data) {
					goto ints
				}
				goto next
			}
		} else if uint32(x) == 't'|'r'<<8|'u'<<16|'e'<<24 || uint32(x) == 'n'|'u'<<8|'l'<<16|'l'<<24 {
			if scalarByte[byte(x>>32)] {
				return at, depth, obj, stScalar
			}
			w.endAt = at + 4
			goto next
		} else if uint32(x) == 'f'|'a'<<8|'l'<<16|'s'<<24 && byte(x>>32) == 'e' {
			if scalarByte[byte(x>>40)] {
				return at, depth, obj, stScalar
			}
			w.endAt = at + 5
			goto next
		}
	}
	if c == '-' || c-'0' < 10 {
		goto scalarSlow
	}
	return at, depth, obj, stScalar

ints: // data[at] starts an integer and a ',' follows, in an array: intBlocks, written out
	// (no call: a call anywhere in walk makes the compiler spill its registers on hot paths)
	k = at // the start of the next block
	for k+64 <= len(data) {
		var dig, comma, minus, zero uint64
		p := (*[64]byte)(data[k : k+64])
		if avx512 {
			v := archsimd.LoadUint8x64(p)
			dig = v.Sub(archsimd.LoadUint8x64(&k30)).Less(archsimd.LoadUint8x64(&k0A)).ToBits()
			comma = v.Equal(archsimd.LoadUint8x64(&kComma)).ToBits()
			minus = v.Equal(archsimd.LoadUint8x64(&kMinus)).ToBits()
			zero = v.Equal(archsimd.LoadUint8x64(&k30)).ToBits()
		} else {
			v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
			v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
			c := archsimd.LoadUint8x32((*[32]byte)(k30[:32]))
			n := archsimd.LoadUint8x32((*[32]byte)(k09[:32]))
			d0, d1 := v0.Sub(c), v1.Sub(c) // a digit when min(d, 9) == d: AVX2 compares only signed
			dig = uint64(d0.Min(n).Equal(d0).ToBits()) | uint64(d1.Min(n).Equal(d1).ToBits())<<32
			zero = uint64(v0.Equal(c).ToBits()) | uint64(v1.Equal(c).ToBits())<<32
			c = archsimd.LoadUint8x32((*[32]byte)(kComma[:32]))
			comma = uint64(v0.Equal(c).ToBits()) | uint64(v1.Equal(c).ToBits())<<32
			c = archsimd.LoadUint8x32((*[32]byte)(kMinus[:32]))
			minus = uint64(v0.Equal(c).ToBits()) | uint64(v1.Equal(c).ToBits())<<32
		}
		cm := comma
		if other := ^(dig | comma | minus); other != 0 {
			cm &= 1<<bits.TrailingZeros64(other) - 1
		}
		if cm == 0 {
			break
		}
		last := 63 - bits.LeadingZeros64(cm)
		if intBad(dig, comma, minus, zero)&(uint64(2)<<last-1) != 0 {
			break
		}
		k += last + 1
	}
	if k > at { // integers up to the ',' at k-1
		b, tok, w.inStr, w.escNext, w.scNext, w.resume = k-1-64, 0, 0, 0, 0, wNext
		goto refill
	}
	goto next

scalarSlow: // anything else than a short integer that a ',', ']' or '}' follows: Number,
	// written out (a call would cost the spills above). Anything it does not take, Composite
	// takes (and calls walk again after it). From openArr too: '[', whitespace, then anything
	// but ']' is a value for Composite.
	k = at
	if c == '-' {
		k++
	}
	if k >= len(data) {
		return at, depth, obj, stScalar
	}
	if c = data[k]; c == '0' {
		k++
	} else if c-'1' < 9 {
		for k++; k < len(data) && data[k]-'0' < 10; k++ {
		}
	} else {
		return at, depth, obj, stScalar
	}
	if k < len(data) && data[k] == '.' {
		if k++; k >= len(data) || data[k]-'0' >= 10 {
			return at, depth, obj, stScalar
		}
		for k++; k < len(data) && data[k]-'0' < 10; k++ {
		}
	}
	if k < len(data) && data[k]|0x20 == 'e' {
		if k++; k < len(data) && (data[k] == '+' || data[k] == '-') {
			k++
		}
		if k >= len(data) || data[k]-'0' >= 10 {
			return at, depth, obj, stScalar
		}
		for k++; k < len(data) && data[k]-'0' < 10; k++ {
		}
	}
	if k >= len(data) || scalarByte[data[k]] {
		return at, depth, obj, stScalar
	}
	w.endAt = k
	goto next

refill: // the next block's tokens, then back to state w.resume
	b += 64
	if b+64 > len(data) {
		goto last
	}
	{
		// classifyAll and classifyEscapes, written out: a call here would spill the walk's
		// state to the stack and back on every block.
		p := (*[64]byte)(data[b : b+64])
		blk = p
		var q, bs, low, stc, ws uint64
		if avx512 {
			v := archsimd.LoadUint8x64(p)
			c20 := archsimd.LoadUint8x64(&k20)
			q = v.Equal(archsimd.LoadUint8x64(&kQuote)).ToBits()
			bs = v.Equal(archsimd.LoadUint8x64(&kBackslash)).ToBits()
			low = v.AsInt8x64().Less(c20.AsInt8x64()).ToBits()
			ws = archsimd.LoadUint8x64(&tWS).PermuteOrZeroGrouped(v.AsInt8x64()).Equal(v).ToBits()
			stc = archsimd.LoadUint8x64(&tOp).PermuteOrZeroGrouped(v.AsInt8x64()).Equal(v.Or(c20)).ToBits()
		} else {
			v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
			v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
			c20 := archsimd.LoadUint8x32((*[32]byte)(k20[:32]))
			k := archsimd.LoadUint8x32((*[32]byte)(kQuote[:32]))
			q = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
			k = archsimd.LoadUint8x32((*[32]byte)(kBackslash[:32]))
			bs = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
			low = uint64(v0.AsInt8x32().Less(c20.AsInt8x32()).ToBits()) | uint64(v1.AsInt8x32().Less(c20.AsInt8x32()).ToBits())<<32
			k = archsimd.LoadUint8x32((*[32]byte)(tWS[:32]))
			ws = uint64(k.PermuteOrZeroGrouped(v0.AsInt8x32()).Equal(v0).ToBits()) |
				uint64(k.PermuteOrZeroGrouped(v1.AsInt8x32()).Equal(v1).ToBits())<<32
			k = archsimd.LoadUint8x32((*[32]byte)(tOp[:32]))
			stc = uint64(k.PermuteOrZeroGrouped(v0.AsInt8x32()).Equal(v0.Or(c20)).ToBits()) |
				uint64(k.PermuteOrZeroGrouped(v1.AsInt8x32()).Equal(v1.Or(c20)).ToBits())<<32
		}
		escaped := w.escNext
		if bs != 0 {
			pot := bs &^ w.escNext
			t := (pot<<1 | oddBits) - pot ^ oddBits
			escaped = t ^ (bs | w.escNext)
			w.escNext = (t & bs) >> 63
		} else {
			w.escNext = 0
		}
		qr := q &^ escaped
		in0 := w.inStr
		in := clmulXor(qr) ^ in0
		w.inStr = uint64(int64(in) >> 63)
		outside := ^(in | qr)
		w.spaced |= ws & outside
		sc := ^(stc | ws | q) & outside
		prob := in & low
		if e := escaped & in; e != 0 {
			var valid, u, hex uint64
			if avx512 {
				v := archsimd.LoadUint8x64(p)
				nib := archsimd.LoadUint8x64(&k0F)
				lo := archsimd.LoadUint8x64(&tEscLo).PermuteOrZeroGrouped(v.And(nib).AsInt8x64())
				hi := archsimd.LoadUint8x64(&tEscHi).PermuteOrZeroGrouped(v.AsUint32x16().ShiftRight(archsimd.LoadUint8x64(&k4d).AsUint32x16()).AsUint8x64().And(nib).AsInt8x64())
				m := lo.And(hi)
				zero := archsimd.Uint8x64{}
				valid = m.And(nib).NotEqual(zero).ToBits()
				hex = m.And(archsimd.LoadUint8x64(&k30)).NotEqual(zero).ToBits()
				u = v.Equal(archsimd.LoadUint8x64(&kU)).ToBits()
			} else {
				v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
				v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
				nib := archsimd.LoadUint8x32((*[32]byte)(k0F[:32]))
				tlo := archsimd.LoadUint8x32((*[32]byte)(tEscLo[:32]))
				thi := archsimd.LoadUint8x32((*[32]byte)(tEscHi[:32]))
				k4 := archsimd.LoadUint8x32((*[32]byte)(k4d[:32])).AsUint32x8()
				m0 := tlo.PermuteOrZeroGrouped(v0.And(nib).AsInt8x32()).And(thi.PermuteOrZeroGrouped(v0.AsUint32x8().ShiftRight(k4).AsUint8x32().And(nib).AsInt8x32()))
				m1 := tlo.PermuteOrZeroGrouped(v1.And(nib).AsInt8x32()).And(thi.PermuteOrZeroGrouped(v1.AsUint32x8().ShiftRight(k4).AsUint8x32().And(nib).AsInt8x32()))
				zero := archsimd.Uint8x32{}
				valid = ^(uint64(m0.And(nib).Equal(zero).ToBits()) | uint64(m1.And(nib).Equal(zero).ToBits())<<32)
				c30 := archsimd.LoadUint8x32((*[32]byte)(k30[:32]))
				hex = ^(uint64(m0.And(c30).Equal(zero).ToBits()) | uint64(m1.And(c30).Equal(zero).ToBits())<<32)
				cu := archsimd.LoadUint8x32((*[32]byte)(kU[:32]))
				u = uint64(v0.Equal(cu).ToBits()) | uint64(v1.Equal(cu).ToBits())<<32
			}
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
		ss := sc &^ (sc<<1 | w.scNext) // the first bytes of numbers and literals
		tok = stc&outside | qr&in | ss | prob
		w.prob = prob
		w.scNext = sc >> 63
		// A ':' or ',' at T-1 between the end of a value at T-2 (a closing quote, a number
		// or literal, a '}' or ']') and a token at T that is none of ':' ',' '}' ']', all in
		// this block, leaves tok; T is marked in sepC or sepM instead. The last token before
		// T is then that value's own (its opening quote, first byte or bracket), and walk,
		// having accepted it, is in colon (a name) or next: no other state meets a marked
		// token. Colon goes on with a value at T when a ':' was left out, next with a name
		// or a value when a ',' was. Otherwise T is nothing either state accepts (it is not
		// a separator or a closer), and the error is reported at T-1, the separator, where
		// the portable code reports it.
		sepC, sepM = 0, 0
		if x := stc & outside & (stc&outside - 1); x&(x-1) != 0 { // three or more: worth it
			// Six or more, compact, no problem in a string: the block on its masks (the NOTE
			// on blocks); anything it does not take, the tokens below.
			y := x & (x - 1)
			y &= y - 1
			y &= y - 1
			if y&(y-1)|blockAll != 0 && (ws|low)&outside|prob == 0 && depth < 64 {
				st := stc & outside
			fast: // (a loop only to break out of; no call: the spills above)
				for {
					var colon, comma, closer, b5 uint64
					if avx512 {
						v := archsimd.LoadUint8x64(p)
						c20 := archsimd.LoadUint8x64(&k20)
						colon = v.Equal(archsimd.LoadUint8x64(&kColon)).ToBits()
						comma = v.Equal(archsimd.LoadUint8x64(&kComma)).ToBits()
						closer = v.Or(c20).Equal(archsimd.LoadUint8x64(&kRBrace)).ToBits()
						b5 = v.And(c20).Equal(c20).ToBits()
					} else {
						v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
						v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
						c20 := archsimd.LoadUint8x32((*[32]byte)(k20[:32]))
						k := archsimd.LoadUint8x32((*[32]byte)(kColon[:32]))
						colon = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
						k = archsimd.LoadUint8x32((*[32]byte)(kComma[:32]))
						comma = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
						k = archsimd.LoadUint8x32((*[32]byte)(kRBrace[:32]))
						closer = uint64(v0.Or(c20).Equal(k).ToBits()) | uint64(v1.Or(c20).Equal(k).ToBits())<<32
						b5 = uint64(v0.And(c20).Equal(c20).ToBits()) | uint64(v1.And(c20).Equal(c20).ToBits())<<32
					}
					kk, mm, cz := colon&st, comma&st, closer&st
					oa := st &^ (kk | mm | cz) // '{' and '['
					qo := qr & in              // opening quotes
					r := uint64(carryTab[w.resume&15])
					// Every value or name starts after '{', '[', ':' or ','.
					bad := (qo | ss | oa) &^ ((oa|kk|mm)<<1 | r&cStart)
					if own := sc &^ (ss&-ss - 1); own != 0 { // the numbers and literals starting here
						var dig, minus, zero uint64
						if avx512 {
							v := archsimd.LoadUint8x64(p)
							c30 := archsimd.LoadUint8x64(&k30)
							dig = v.Sub(c30).Less(archsimd.LoadUint8x64(&k0A)).ToBits()
							minus = v.Equal(archsimd.LoadUint8x64(&kMinus)).ToBits()
							zero = v.Equal(c30).ToBits()
						} else {
							v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
							v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
							c := archsimd.LoadUint8x32((*[32]byte)(k30[:32]))
							n := archsimd.LoadUint8x32((*[32]byte)(k09[:32]))
							d0, d1 := v0.Sub(c), v1.Sub(c) // a digit when min(d, 9) == d: AVX2 compares only signed
							dig = uint64(d0.Min(n).Equal(d0).ToBits()) | uint64(d1.Min(n).Equal(d1).ToBits())<<32
							zero = uint64(v0.Equal(c).ToBits()) | uint64(v1.Equal(c).ToBits())<<32
							c = archsimd.LoadUint8x32((*[32]byte)(kMinus[:32]))
							minus = uint64(v0.Equal(c).ToBits()) | uint64(v1.Equal(c).ToBits())<<32
						}
						// Integers only, each ending in the block (-?(0|[1-9][0-9]*)): anything else is
						// left to the tokens. One that reaches the block's last byte ends there when
						// the byte after it cannot continue it (a '-' alone never does).
						d, mi := dig&own, minus&own
						bad |= own&^(d|mi) | mi&^ss | mi<<1&^d | (ss&^mi|mi<<1)&zero&(d>>1)
						if own>>63 != 0 && (mi>>63 != 0 || b+64 >= len(data) || scalarByte[data[b+64]]) {
							bad = 1
						}
					}
					if bad != 0 {
						break fast
					}
					// The brackets in order, on the container stack held in one word from the top (bit 63
					// the innermost container, depth < 64), noting where the innermost container's kind
					// changes (flips; cur is all ones in an object).
					dd := depth
					stk := s.small[0] << (64 - uint(dd)&63)
					cur := uint64(int64(stk) >> 63)
					obj0, flips, lim := cur, uint64(0), min(s.maxDepth, 63)
					for br := oa | cz; br != 0; br &= br - 1 {
						bit := br & -br
						ob := uint64(0)
						if b5&bit != 0 {
							ob = 1 << 63
						}
						if oa&bit != 0 {
							if dd++; dd > lim {
								break fast
							}
							stk = stk>>1 | ob
						} else {
							if dd--; (stk^ob)>>63 != 0 || dd == base {
								break fast
							}
							stk <<= 1
						}
						n := uint64(int64(stk) >> 63)
						flips |= bit & (n ^ cur)
						cur = n
					}
					mo := mm & (clmulXor(flips) ^ obj0) // the ',' in objects
					kx := (oa&b5|mo)<<1 | r>>1&1        // where a name must start
					ks := qo & kx                       // the names' opening quotes
					sum, _ := bits.Add64(in, ks, r>>3&1&in0)
					ke := sum &^ in                                    // their closing quotes
					ve := (cz|sc&^(sc>>1)|qr&^in&^ke)<<1 | r>>4&1&^in0 // after the end of a value
					if (ss|oa)&kx|kk&^(ke<<1|r>>3&1&^in0)|mm&^ve|cz&^(ve|oa<<1|r>>2&1) != 0 {
						break fast
					}
					s.small[0], depth = stk>>(64-uint(dd)&63), dd
					if all := st | qo | ss; all != 0 { // the state after the last token
						t := 63 - bits.LeadingZeros64(all)
						switch bit := uint64(1) << t; {
						case oa&bit != 0:
							w.openAt, w.resume = b+t, wOpenArr
							if b5&bit != 0 {
								w.resume = wOpenObj
							}
						case qo&bit != 0:
							w.strAt, w.strSt, w.resume = b+t, stValue, wNext
							if ks&bit != 0 {
								w.strSt, w.resume = stKey, wColon
							}
						case mo&bit != 0:
							w.resume = wKey
						case kk&bit != 0 || mm&bit != 0:
							w.resume = wValue
						default:
							w.resume = wNext
						}
					}
					obj = cur != 0
					goto refill

				}
			}
			var colon, comma, closer uint64
			if avx512 {
				v := archsimd.LoadUint8x64(p)
				colon = v.Equal(archsimd.LoadUint8x64(&kColon)).ToBits()
				comma = v.Equal(archsimd.LoadUint8x64(&kComma)).ToBits()
				closer = v.Or(archsimd.LoadUint8x64(&k20)).Equal(archsimd.LoadUint8x64(&kRBrace)).ToBits()
			} else {
				v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
				v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
				c20 := archsimd.LoadUint8x32((*[32]byte)(k20[:32]))
				k := archsimd.LoadUint8x32((*[32]byte)(kColon[:32]))
				colon = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
				k = archsimd.LoadUint8x32((*[32]byte)(kComma[:32]))
				comma = uint64(v0.Equal(k).ToBits()) | uint64(v1.Equal(k).ToBits())<<32
				k = archsimd.LoadUint8x32((*[32]byte)(kRBrace[:32]))
				closer = uint64(v0.Or(c20).Equal(k).ToBits()) | uint64(v1.Or(c20).Equal(k).ToBits())<<32
			}
			sep := (colon | comma) & outside & ((qr&^in | sc | closer&outside) << 1) & ((tok &^ (colon | comma | closer)) >> 1)
			tok &^= sep
			sepC, sepM = (sep&colon)<<1, (sep&comma)<<1
		}
		if sc != 0 { // for the numbers (scalar: only for a token in sc, so stale otherwise)
			w.sc = sc
			if avx512 {
				v := archsimd.LoadUint8x64(p)
				w.dig = v.Sub(archsimd.LoadUint8x64(&k30)).Less(archsimd.LoadUint8x64(&k0A)).ToBits()
			} else {
				v0 := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
				v1 := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
				c := archsimd.LoadUint8x32((*[32]byte)(k30[:32]))
				n := archsimd.LoadUint8x32((*[32]byte)(k09[:32]))
				d0, d1 := v0.Sub(c), v1.Sub(c) // a digit when min(d, 9) == d: AVX2 compares only signed
				w.dig = uint64(d0.Min(n).Equal(d0).ToBits()) | uint64(d1.Min(n).Equal(d1).ToBits())<<32
			}
		}
	}
	switch w.resume {
	case wValue:
		goto value
	case wKey:
		goto key
	case wColon:
		goto colon
	case wNext:
		goto next
	case wOpenObj:
		goto openObj
	}
	goto openArr

last: // fewer than 64 bytes left: Composite goes on from the first byte not scanned
	if w.inStr != 0 {
		return w.strAt, depth, obj, w.strSt
	}
	if w.resume == wOpenObj || w.resume == wOpenArr {
		return w.openAt, depth - 1, obj, stOpen
	}
	return max(b, w.endAt), depth, obj, w.resume
}

// clmulXor is prefixXor with one carry-less multiplication by all ones.
func clmulXor(x uint64) uint64 {
	return archsimd.BroadcastUint64x2(x).CarrylessMultiply(0, 0, archsimd.BroadcastUint64x2(^uint64(0))).GetElem(0)
}

// hex4 reports whether data[i:i+4] are four hex digits.
func hex4(data []byte, i int) bool {
	return i+4 <= len(data) && hexDigit[data[i]] && hexDigit[data[i+1]] && hexDigit[data[i+2]] && hexDigit[data[i+3]]
}

// blockAll makes walk check every compact block on its masks, however few its structural
// bytes (the tests set it to all ones).
var blockAll uint64

// carryTab holds, for each of walk's states, what its token before a block allows at the
// block's first byte (block's c* bits).
var carryTab = [16]uint8{
	wValue: cStart, wKey: cStart | cName, wColon: cColon, wNext: cNext,
	wOpenObj: cStart | cName | cOpen, wOpenArr: cStart | cOpen,
}

const (
	cStart = 1 << iota // after '{', '[', ':' or ',': a value or a name starts here
	cName              // after '{' or ',' in an object: a name
	cOpen              // after '{' or '[': the closer may follow
	cColon             // after a name (or inside one): ':'
	cNext              // after a value (or inside a string value): ',' or a closer
)
