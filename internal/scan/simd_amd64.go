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
// backslash ("\/bfnrtu), of 'u', and of hex digits.
func classifyEscapes(p *[64]byte) (valid, u, hex uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		mu := v.Equal(archsimd.BroadcastUint8x64('u'))
		m := mu.Or(v.Equal(archsimd.BroadcastUint8x64('"'))).Or(v.Equal(archsimd.BroadcastUint8x64('\\')))
		m = m.Or(v.Equal(archsimd.BroadcastUint8x64('/'))).Or(v.Equal(archsimd.BroadcastUint8x64('b')))
		m = m.Or(v.Equal(archsimd.BroadcastUint8x64('f'))).Or(v.Equal(archsimd.BroadcastUint8x64('n')))
		m = m.Or(v.Equal(archsimd.BroadcastUint8x64('r'))).Or(v.Equal(archsimd.BroadcastUint8x64('t')))
		dig := v.Sub(archsimd.BroadcastUint8x64('0')).Less(archsimd.BroadcastUint8x64(10))
		af := v.Or(archsimd.BroadcastUint8x64(0x20)).Sub(archsimd.BroadcastUint8x64('a')).Less(archsimd.BroadcastUint8x64(6))
		return m.ToBits(), mu.ToBits(), dig.Or(af).ToBits()
	}
	v0, u0, h0 := escapes32((*[32]byte)(p[:32]))
	v1, u1, h1 := escapes32((*[32]byte)(p[32:]))
	return uint64(v0) | uint64(v1)<<32, uint64(u0) | uint64(u1)<<32, uint64(h0) | uint64(h1)<<32
}

// escapes32 is classifyEscapes for 32 bytes with AVX2.
func escapes32(p *[32]byte) (valid, u, hex uint32) {
	v := archsimd.LoadUint8x32(p)
	mu := v.Equal(archsimd.BroadcastUint8x32('u'))
	m := mu.Or(v.Equal(archsimd.BroadcastUint8x32('"'))).Or(v.Equal(archsimd.BroadcastUint8x32('\\')))
	m = m.Or(v.Equal(archsimd.BroadcastUint8x32('/'))).Or(v.Equal(archsimd.BroadcastUint8x32('b')))
	m = m.Or(v.Equal(archsimd.BroadcastUint8x32('f'))).Or(v.Equal(archsimd.BroadcastUint8x32('n')))
	m = m.Or(v.Equal(archsimd.BroadcastUint8x32('r'))).Or(v.Equal(archsimd.BroadcastUint8x32('t')))
	// Unsigned x < n as min(x, n-1) == x (AVX2 compares only signed).
	d := v.Sub(archsimd.BroadcastUint8x32('0'))
	dig := d.Min(archsimd.BroadcastUint8x32(9)).Equal(d)
	a := v.Or(archsimd.BroadcastUint8x32(0x20)).Sub(archsimd.BroadcastUint8x32('a'))
	af := a.Min(archsimd.BroadcastUint8x32(5)).Equal(a)
	return m.ToBits(), mu.ToBits(), dig.Or(af).ToBits()
}

// classifyInts returns the masks of digits, ',', '-' and '0' among the 64 bytes at p.
func classifyInts(p *[64]byte) (dig, comma, minus, zero uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		dig = v.Sub(archsimd.BroadcastUint8x64('0')).Less(archsimd.BroadcastUint8x64(10)).ToBits()
		comma = v.Equal(archsimd.BroadcastUint8x64(',')).ToBits()
		minus = v.Equal(archsimd.BroadcastUint8x64('-')).ToBits()
		zero = v.Equal(archsimd.BroadcastUint8x64('0')).ToBits()
		return dig, comma, minus, zero
	}
	d0, c0, m0, z0 := ints32((*[32]byte)(p[:32]))
	d1, c1, m1, z1 := ints32((*[32]byte)(p[32:]))
	return uint64(d0) | uint64(d1)<<32, uint64(c0) | uint64(c1)<<32, uint64(m0) | uint64(m1)<<32, uint64(z0) | uint64(z1)<<32
}

// ints32 is classifyInts for 32 bytes with AVX2.
func ints32(p *[32]byte) (dig, comma, minus, zero uint32) {
	v := archsimd.LoadUint8x32(p)
	d := v.Sub(archsimd.BroadcastUint8x32('0'))
	dig = d.Min(archsimd.BroadcastUint8x32(9)).Equal(d).ToBits()
	comma = v.Equal(archsimd.BroadcastUint8x32(',')).ToBits()
	minus = v.Equal(archsimd.BroadcastUint8x32('-')).ToBits()
	zero = v.Equal(archsimd.BroadcastUint8x32('0')).ToBits()
	return dig, comma, minus, zero
}

// stringBlocks scans string contents from data[i] (not inside an escape), 64 bytes a step
// while 64 bytes remain. It returns done and the offset after the closing quote, or the
// offset the portable scanner goes on from: the first byte it must look at (a control or
// non-ASCII byte, the backslash of an escape that is not valid) or the last bytes. esc
// reports a backslash before the offset returned.
func stringBlocks(data []byte, i int) (j int, esc, done bool) {
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

// intBlocks validates, 64 bytes a step, the integers (-?(0|[1-9][0-9]*)) that follow one
// another with a ',' and nothing else between them, from data[i], the start of a value in
// an array. It returns the offset of the ',' after the last integer it validated, or i.
func intBlocks(data []byte, i int) int {
	end := i
	for i+64 <= len(data) {
		dig, comma, minus, zero := classifyInts((*[64]byte)(data[i : i+64]))
		other := ^(dig | comma | minus)
		c := comma
		if other != 0 {
			c &= 1<<bits.TrailingZeros64(other) - 1
		}
		if c == 0 {
			break
		}
		last := 63 - bits.LeadingZeros64(c)
		upto := uint64(2)<<last - 1 // offsets 0..last (all of them when last is 63)
		// A '-' is at the start of a value, a ',' after a digit (so a '-' is before a digit), a '0'
		// that starts a number is not followed by a digit. Offset 0 starts a value.
		bad := minus&^(comma<<1|1) | comma&^(dig<<1) | zero&^(dig<<1)&(dig>>1)
		if bad&upto != 0 {
			break
		}
		end = i + last
		i = end + 1
	}
	return end
}

// classifyAll returns the masks of '"', '\\', the bytes below 0x20 or above 0x7F, the
// structural bytes {}[]:, and JSON whitespace among the 64 bytes at p.
func classifyAll(p *[64]byte) (q, bs, low, st, ws uint64) {
	if avx512 {
		v := archsimd.LoadUint8x64(p)
		q = v.Equal(archsimd.BroadcastUint8x64('"')).ToBits()
		bs = v.Equal(archsimd.BroadcastUint8x64('\\')).ToBits()
		low = v.AsInt8x64().Less(archsimd.BroadcastInt8x64(0x20)).ToBits()
		// '[' ']' '{' '}' are 0x5B 0x5D 0x7B 0x7D: with 0x20 set, 0x7B or 0x7D.
		v20 := v.Or(archsimd.BroadcastUint8x64(0x20))
		m := v20.Equal(archsimd.BroadcastUint8x64('{')).Or(v20.Equal(archsimd.BroadcastUint8x64('}')))
		m = m.Or(v.Equal(archsimd.BroadcastUint8x64(':'))).Or(v.Equal(archsimd.BroadcastUint8x64(',')))
		w := v.Equal(archsimd.BroadcastUint8x64(' ')).Or(v.Equal(archsimd.BroadcastUint8x64('\n')))
		w = w.Or(v.Equal(archsimd.BroadcastUint8x64('\r'))).Or(v.Equal(archsimd.BroadcastUint8x64('\t')))
		return q, bs, low, m.ToBits(), w.ToBits()
	}
	q0, b0, l0, s0, w0 := all32((*[32]byte)(p[:32]))
	q1, b1, l1, s1, w1 := all32((*[32]byte)(p[32:]))
	return uint64(q0) | uint64(q1)<<32, uint64(b0) | uint64(b1)<<32, uint64(l0) | uint64(l1)<<32,
		uint64(s0) | uint64(s1)<<32, uint64(w0) | uint64(w1)<<32
}

// all32 is classifyAll for 32 bytes with AVX2.
func all32(p *[32]byte) (q, bs, low, st, ws uint32) {
	v := archsimd.LoadUint8x32(p)
	q = v.Equal(archsimd.BroadcastUint8x32('"')).ToBits()
	bs = v.Equal(archsimd.BroadcastUint8x32('\\')).ToBits()
	low = v.AsInt8x32().Less(archsimd.BroadcastInt8x32(0x20)).ToBits()
	v20 := v.Or(archsimd.BroadcastUint8x32(0x20))
	m := v20.Equal(archsimd.BroadcastUint8x32('{')).Or(v20.Equal(archsimd.BroadcastUint8x32('}')))
	m = m.Or(v.Equal(archsimd.BroadcastUint8x32(':'))).Or(v.Equal(archsimd.BroadcastUint8x32(',')))
	w := v.Equal(archsimd.BroadcastUint8x32(' ')).Or(v.Equal(archsimd.BroadcastUint8x32('\n')))
	w = w.Or(v.Equal(archsimd.BroadcastUint8x32('\r'))).Or(v.Equal(archsimd.BroadcastUint8x32('\t')))
	return q, bs, low, m.ToBits(), w.ToBits()
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
