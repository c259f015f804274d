package scan

// NOTE: run is the Scanner's fast lane. Composite's state machine keeps its state in registers
// only between calls: around each call to String or Number the Go compiler spills and reloads
// it, about 100 instructions per value. run is a leaf (no calls, so nothing spills) that scans,
// from one value, the values of the innermost container as long as each is simple: a string
// whose bytes need no attention (plain ASCII, no escapes), an integer of one to seven digits
// (optionally negative) that a ',', ']' or '}' follows, true, false or null; in an object, the
// members that follow it as long as each name is such a string and a ':' follows it at once.
// It stops, at the end of the last value it scanned, at anything else (whitespace, a container,
// an escape, a float, an error), and Composite goes on from there exactly as it would have: run
// accepts only what the state machine accepts, so strictness does not depend on it.

import (
	"encoding/binary"
	"math/bits"
)

// run scans the simple values from data[i] (the start of a value in a container, an object if
// obj) and returns the offset just past the last one, or i when the value at data[i] is not simple.
// When it stopped at a string value (not a name) whose bytes before at needed no attention, it
// returns at > 0 too: then everything before that string's opening quote was scanned, and the
// caller goes on with the string from at (stringRest) instead of scanning its start again.
func run(data []byte, i int, obj bool) (end, at int) {
	end = i
	for i+8 <= len(data) {
		// One simple value at data[i], or stop.
		x := binary.LittleEndian.Uint64(data[i : i+8])
		switch b := byte(x); {
		case b == '"':
			j := plainString(data, i)
			if j < 0 {
				return end, -j
			}
			i = j
		case b-'0' < 10:
			n := shortInt(x)
			if n == 0 {
				return end, -1
			}
			i += n
		case b == '-':
			n := shortInt(x >> 8)
			if n == 0 || n == 7 {
				return end, -1
			}
			i += 1 + n
		case b == 't' && uint32(x) == 't'|'r'<<8|'u'<<16|'e'<<24,
			b == 'n' && uint32(x) == 'n'|'u'<<8|'l'<<16|'l'<<24:
			i += 4
		case b == 'f' && uint32(x>>8) == 'a'|'l'<<8|'s'<<16|'e'<<24:
			i += 5
		default:
			return end, -1
		}
		end = i
		// ",", then (in an object) a plain name and ':', then the next value.
		if i+1 >= len(data) || data[i] != ',' {
			return end, -1
		}
		i++
		if obj {
			if data[i] != '"' {
				return end, -1
			}
			if i = plainString(data, i); i < 0 || i+1 >= len(data) || data[i] != ':' {
				return end, -1
			}
			i++
		}
	}
	return end, -1
}

// shortInt returns the length of the unsigned integer (one to seven digits, no leading zero)
// at the start of x (8 bytes, little endian) when a ',', ']' or '}' follows it within x, else 0.
func shortInt(x uint64) int {
	y := x ^ '0'*lsb // digits become 0..9
	// A byte is not a digit when y >= 10: bit 7 of y&0x7f + 0x76 (no carry between bytes) or of y.
	n := uint(bits.TrailingZeros64(((y&(0x7f*lsb)+0x76*lsb)|y)&msb)) >> 3
	if n-1 >= 7 || n > 1 && byte(y) == 0 {
		return 0
	}
	if b := byte(x >> (n * 8)); b == ',' || b == ']' || b == '}' {
		return int(n)
	}
	return 0
}

// plainString returns the end of the string opening at data[i] when none of its bytes needs
// attention (see special), else -k where k > 0 is the offset of the first byte that does, or
// of the end of the bytes it could read 16 at a time. Two words a step, as String.
func plainString(data []byte, i int) int {
	i++
	for i+16 <= len(data) {
		w := data[i : i+16 : i+16]
		if m := special(binary.LittleEndian.Uint64(w)); m != 0 {
			if i += bits.TrailingZeros64(m) >> 3; data[i] == '"' {
				return i + 1
			}
			return -i
		}
		if m := special(binary.LittleEndian.Uint64(w[8:])); m != 0 {
			if i += 8 + bits.TrailingZeros64(m)>>3; data[i] == '"' {
				return i + 1
			}
			return -i
		}
		i += 16
		if simdOn && i+64 <= len(data) { // a long string: 64 bytes a step
			var end int
			if end, i = plainBlocks(data, i); end != 0 {
				return end
			}
		}
	}
	return -i
}
