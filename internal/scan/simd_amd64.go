//go:build goexperiment.simd && amd64

package scan

// NOTE on the SIMD path (built only with GOEXPERIMENT=simd on amd64; simd_other.go is the
// default build). It classifies 64 bytes at a time into bit masks (one bit a byte, bit k the
// byte at offset k), with AVX-512 when the CPU has it and two AVX2 halves otherwise, and
// answers from the masks with scalar bit arithmetic, as simdjson's stage 1 does:
//
//   - stringBlocks: the contents of a string, escapes included. Backslash runs are resolved
//     with simdjson's odd-run trick (an escaping backslash is one that ends an odd run); the
//     escaped bytes must be one of "\/bfnrtu and a \u must be followed by four hex digits.
//   - plainBlocks: run's plain strings (no escape, nothing to look at but the closing quote).
//   - intBlocks: runs of integers separated by commas in an array, with the number grammar
//     (optional '-', no leading zero) checked on the masks.
//
// Each only ever accepts what the portable code accepts and stops, at a place the portable
// code reaches in the same state, at anything else: a control or non-ASCII byte (UTF-8 is
// checked by scanRune), an escape that is not valid, whitespace, the last 63 bytes. The
// portable code then finds the error, or goes on, exactly as it would have. So every
// answer, error offsets included, is the portable one (FuzzSIMD checks it on every input).
// A block never starts inside an escape: a block whose last bytes are an unfinished escape
// ends before that escape's backslash, so no state is carried from one block to the next.

import (
	"math/bits"
	"simd/archsimd"
)

// vzeroupper: every lane (walk, stringBlocks, plainBlocks) clears the upper halves of the
// vector registers (VZEROUPPER, archsimd.ClearAVXUpperBits) before it returns, and no lane
// uses, after its first vector instruction, an instruction with a legacy SSE encoding that
// writes an XMM register (ShiftAllRight does: it moves its count with MOVQ). The Go compiler
// inserts no VZEROUPPER, and Go code and the runtime use SSE everywhere (MOVUPS, memmove): an
// SSE instruction that writes an XMM register while the upper halves are dirty waits on
// them, and on the Sapphire Rapids class machines of our benchmarks that made the escape
// shapes 10 times slower (0.46 GB/s against 4.7 with the count in a vector; BENCHMARKS.md,
// round 16).

// CPU features, read at start-up. simdOn is the switch every caller tests; the tests turn
// it off to compare the SIMD path with the portable one.
var (
	simdOn = archsimd.X86.AVX2()
	avx512 = archsimd.X86.AVX512()
)

// oddBits has the bits at odd offsets set.
const oddBits = 0xAAAAAAAAAAAAAAAA

// classify returns the masks of '"', of '\\', and of the bytes below 0x20 or above 0x7F
// (a signed compare with 0x20 finds both) among the 64 bytes at p.
func classify(p *[64]byte) (q, bs, low uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		q = v.Equal(archsimd.BroadcastUint8x64('"')).ToBits()
		bs = v.Equal(archsimd.BroadcastUint8x64('\\')).ToBits()
		low = v.AsInt8x64().Less(archsimd.BroadcastInt8x64(0x20)).ToBits()
		return q, bs, low
	}
	a := archsimd.LoadUint8x32((*[32]byte)(p[:32]))
	b := archsimd.LoadUint8x32((*[32]byte)(p[32:]))
	cq, cb, cl := archsimd.BroadcastUint8x32('"'), archsimd.BroadcastUint8x32('\\'), archsimd.BroadcastInt8x32(0x20)
	q = uint64(a.Equal(cq).ToBits()) | uint64(b.Equal(cq).ToBits())<<32
	bs = uint64(a.Equal(cb).ToBits()) | uint64(b.Equal(cb).ToBits())<<32
	low = uint64(a.AsInt8x32().Less(cl).ToBits()) | uint64(b.AsInt8x32().Less(cl).ToBits())<<32
	return q, bs, low
}

// classifyEscapes returns, for the 64 bytes at p, the masks of the bytes that may follow a
// backslash ("\\/bfnrtu), of 'u', and of hex digits: two nibble lookups (VPSHUFB) whose AND
// has bits 0-3 set for the escape bytes and bits 4-5 for the hex digits.
func classifyEscapes(p *[64]byte) (valid, u, hex uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		nib := archsimd.LoadUint8x64(&k0F)
		lo := archsimd.LoadUint8x64(&tEscLo).PermuteOrZeroGrouped(v.And(nib).AsInt8x64())
		hi := archsimd.LoadUint8x64(&tEscHi).PermuteOrZeroGrouped(v.AsUint32x16().ShiftRight(archsimd.LoadUint8x64(&k4d).AsUint32x16()).AsUint8x64().And(nib).AsInt8x64())
		m := lo.And(hi)
		zero := archsimd.Uint8x64{}
		valid = m.And(nib).NotEqual(zero).ToBits()
		hex = m.And(archsimd.LoadUint8x64(&k30)).NotEqual(zero).ToBits()
		return valid, v.Equal(archsimd.LoadUint8x64(&kU)).ToBits(), hex
	}
	v0, u0, h0 := escapes32((*[32]byte)(p[:32]))
	v1, u1, h1 := escapes32((*[32]byte)(p[32:]))
	return uint64(v0) | uint64(v1)<<32, uint64(u0) | uint64(u1)<<32, uint64(h0) | uint64(h1)<<32
}

// escapes32 is classifyEscapes for 32 bytes with AVX2.
func escapes32(p *[32]byte) (valid, u, hex uint32) {
	v := archsimd.LoadUint8x32(p)
	nib := archsimd.LoadUint8x32((*[32]byte)(k0F[:32]))
	lo := archsimd.LoadUint8x32((*[32]byte)(tEscLo[:32])).PermuteOrZeroGrouped(v.And(nib).AsInt8x32())
	hi := archsimd.LoadUint8x32((*[32]byte)(tEscHi[:32])).PermuteOrZeroGrouped(v.AsUint32x8().ShiftRight(archsimd.LoadUint8x32((*[32]byte)(k4d[:32])).AsUint32x8()).AsUint8x32().And(nib).AsInt8x32())
	m := lo.And(hi)
	zero := archsimd.Uint8x32{}
	valid = ^m.And(nib).Equal(zero).ToBits()
	hex = ^m.And(archsimd.LoadUint8x32((*[32]byte)(k30[:32]))).Equal(zero).ToBits()
	return valid, v.Equal(archsimd.LoadUint8x32((*[32]byte)(kU[:32]))).ToBits(), hex
}

// stringBlocks scans string contents from data[i] (not inside an escape), 64 bytes a step
// while 64 bytes remain. It returns done and the offset after the closing quote, or the
// offset the portable scanner goes on from: the first byte it must look at (a control or
// non-ASCII byte, the backslash of an escape that is not valid) or the last bytes. esc
// reports a backslash before the offset returned.
func stringBlocks(data []byte, i int) (j int, esc, done bool) {
	j, esc, done = stringLanes(data, i)
	archsimd.ClearAVXUpperBits() // see vzeroupper
	return j, esc, done
}

func stringLanes(data []byte, i int) (j int, esc, done bool) {
	for i+64 <= len(data) {
		p := (*[64]byte)(data[i : i+64])
		q, bs, low := classify(p)
		if bs == 0 { // the common case: no escape in these 64 bytes
			if stop := q | low; stop != 0 {
				k := bits.TrailingZeros64(stop)
				return i + k + int(q>>k&1), esc, q>>k&1 != 0
			}
			i += 64
			continue
		}
		// escape: the backslashes that escape the next byte (those ending an odd run);
		// escaped: the bytes they escape (simdjson's json_escape_scanner, no carry in).
		t := (bs<<1 | oddBits) - bs ^ oddBits
		escape, escaped := t&bs, t^bs
		valid, u, hex := classifyEscapes(p)
		lim := ^uint64(0) // the offsets this block answers for
		if escape>>63 != 0 {
			lim = 1<<63 - 1 // the last backslash escapes a byte of the next block
		}
		us := escaped & u
		if late := us >> 60; late != 0 { // a \u whose hex digits run past the block
			lim &= 1<<(59+bits.TrailingZeros64(late)) - 1
		}
		nh := ^hex
		badU := us & (nh>>1 | nh>>2 | nh>>3 | nh>>4)
		// Where the portable scanner must look: a raw control or non-ASCII byte; the
		// backslash of an escape of anything else than "\/bfnrtu, or of a \u without its
		// four hex digits.
		look := low&^escaped | (escaped&^valid|badU)>>1
		end := q &^ escaped
		if stop := (look | end) & lim; stop != 0 {
			k := bits.TrailingZeros64(stop)
			fin := end>>k&1 != 0
			return i + k + int(end>>k&1), esc || bs&(1<<k-1) != 0, fin
		}
		esc = true                      // a backslash below lim, or at it (where the next block starts)
		i += bits.TrailingZeros64(^lim) // 64, or the backslash the next block starts at
	}
	return i, esc, false
}

// plainBlocks is plainString's SIMD lane from data[i], inside the string: the end of the
// string when none of its bytes needs attention, -k for the first byte k that does, or 0
// when fewer than 64 bytes remain from the offset it stopped at (returned as from).
func plainBlocks(data []byte, i int) (end, from int) {
	end, from = plainLanes(data, i)
	archsimd.ClearAVXUpperBits() // see vzeroupper
	return end, from
}

func plainLanes(data []byte, i int) (end, from int) {
	for i+64 <= len(data) {
		q, bs, low := classify((*[64]byte)(data[i : i+64]))
		if stop := q | bs | low; stop != 0 {
			k := bits.TrailingZeros64(stop)
			if q>>k&1 != 0 {
				return i + k + 1, i
			}
			return -(i + k), i
		}
		i += 64
	}
	return 0, i
}

// intBad returns the offsets, among 64 bytes of digits, ',' and '-' (bit masks) that start
// a run of integers separated by ',' (-?(0|[1-9][0-9]*)), where that grammar is broken: a
// '-' not at the start of a value, a ',' not after a digit (so a '-' is before a digit), a
// '0' that starts a number and a digit follows. Offset 0 starts a value.
func intBad(dig, comma, minus, zero uint64) uint64 {
	return minus&^(comma<<1|1) | comma&^(dig<<1) | zero&^(dig<<1)&(dig>>1)
}

// classifyAll returns the masks of '"', '\\', the bytes below 0x20 or above 0x7F (a signed
// compare with 0x20 finds both), the structural bytes and JSON whitespace among the 64 bytes
// at p. Whitespace and structural bytes are found with one VPSHUFB lookup each, as simdjson
// does: the table entry at a byte's low nibble equals the byte (or the byte | 0x20, which
// turns '[' and ']' into '{' and '}') only for those bytes. The structural lookup also
// matches the control bytes 0x0C and 0x1A (as ',' and ':'); walk reads the byte of every
// token, so they are rejected there all the same.
func classifyAll(p *[64]byte) (q, bs, low, st, ws uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		c20 := archsimd.LoadUint8x64(&k20)
		q = v.Equal(archsimd.LoadUint8x64(&kQuote)).ToBits()
		bs = v.Equal(archsimd.LoadUint8x64(&kBackslash)).ToBits()
		low = v.AsInt8x64().Less(c20.AsInt8x64()).ToBits()
		ws = archsimd.LoadUint8x64(&tWS).PermuteOrZeroGrouped(v.AsInt8x64()).Equal(v).ToBits()
		st = archsimd.LoadUint8x64(&tOp).PermuteOrZeroGrouped(v.AsInt8x64()).Equal(v.Or(c20)).ToBits()
		return q, bs, low, st, ws
	}
	q0, b0, l0, s0, w0 := all32((*[32]byte)(p[:32]))
	q1, b1, l1, s1, w1 := all32((*[32]byte)(p[32:]))
	return uint64(q0) | uint64(q1)<<32, uint64(b0) | uint64(b1)<<32, uint64(l0) | uint64(l1)<<32,
		uint64(s0) | uint64(s1)<<32, uint64(w0) | uint64(w1)<<32
}

// all32 is classifyAll for 32 bytes with AVX2.
func all32(p *[32]byte) (q, bs, low, st, ws uint32) {
	v := archsimd.LoadUint8x32(p)
	c20 := archsimd.LoadUint8x32((*[32]byte)(k20[:32]))
	q = v.Equal(archsimd.LoadUint8x32((*[32]byte)(kQuote[:32]))).ToBits()
	bs = v.Equal(archsimd.LoadUint8x32((*[32]byte)(kBackslash[:32]))).ToBits()
	low = v.AsInt8x32().Less(c20.AsInt8x32()).ToBits()
	ws = archsimd.LoadUint8x32((*[32]byte)(tWS[:32])).PermuteOrZeroGrouped(v.AsInt8x32()).Equal(v).ToBits()
	st = archsimd.LoadUint8x32((*[32]byte)(tOp[:32])).PermuteOrZeroGrouped(v.AsInt8x32()).Equal(v.Or(c20)).ToBits()
	return q, bs, low, st, ws
}

// Constants loaded as vectors (one load each, cheaper than a broadcast): a byte repeated,
// or a 16-byte VPSHUFB table repeated in each 128-bit lane. Read-only after initialisation.
var (
	kQuote, kBackslash, k20, k0F, k30, kU = splat('"'), splat('\\'), splat(0x20), splat(0x0F), splat(0x30), splat('u')
	k0A, k09, kComma, kMinus              = splat(10), splat(9), splat(','), splat('-')
	kColon, kRBrace                       = splat(':'), splat('}')
	// k4d is 4 in every 32-bit lane: the count of VPSRLVD, which shifts each byte's high
	// nibble down (the bits that come in from the next byte are masked off). ShiftAllRight
	// would move its count into an XMM register with a legacy SSE MOVQ (see vzeroupper).
	k4d = lanes([16]byte{4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0})

	// tWS[n] is the whitespace byte whose low nibble is n, else a byte whose low nibble is not n.
	tWS = lanes([16]byte{' ', 100, 100, 100, 17, 100, 113, 2, 100, '\t', '\n', 112, 100, '\r', 100, 100})
	// tOp[n] is the structural byte (with 0x20 set) whose low nibble is n, else 0.
	tOp = lanes([16]byte{10: ':', 11: '{', 12: ',', 13: '}'})
	// Escape bytes: bit 0 '"' '/', bit 1 '\\', bit 2 'b' 'f' 'n', bit 3 'r' 't' 'u' (by high
	// nibble 2, 5, 6, 7); hex digits: bit 4 '0'-'9', bit 5 'A'-'F' 'a'-'f' (high nibble 3; 4, 6).
	tEscLo = lanes([16]byte{16, 16 | 32, 13 | 16 | 32, 16 | 32, 8 | 16 | 32, 8 | 16 | 32, 4 | 16 | 32, 16, 16, 16, 0, 0, 2, 0, 4, 1})
	tEscHi = lanes([16]byte{2: 1, 3: 16, 4: 32, 5: 2, 6: 4 | 32, 7: 8})
)

func splat(c byte) (v [64]byte) {
	for k := range v {
		v[k] = c
	}
	return v
}

func lanes(t [16]byte) (v [64]byte) {
	for k := range v {
		v[k] = t[k%16]
	}
	return v
}

// prefixXor returns x with bit k the XOR of bits 0..k of x.
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// walk is Composite's SIMD lane: see simd_walk.go's NOTE.
