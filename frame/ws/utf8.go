package ws

import (
	"encoding/binary"
	"math/bits"
)

// NOTE: how the UTF-8 check is organised.
//
// A text message reaches the Reader in pieces (the bytes of a frame that
// one read brought, the frames of a fragmented message), and a character
// may be cut between two of them. utf8State is where the check stands
// after a piece: between characters (the zero value), or inside a sequence
// with need bytes still to come, the next one within lo..hi (RFC 3629's
// table: after E0 it is A0..BF, after ED 80..9F, after F0 90..BF, after F4
// 80..8F, else 80..BF). utf8State.check takes the next piece: 8 bytes at a
// time while they are ASCII, one sequence at a time (checkRune) otherwise,
// so that JSON costs about one load and a test per 8 bytes.

// utf8State is where a UTF-8 check stands between two pieces of a text.
type utf8State struct {
	need   uint8 // continuation bytes still to come
	have   uint8 // bytes of the unfinished sequence seen
	lo, hi uint8 // the range of the next byte
}

const msb = 0x8080808080808080 // the high bit of each of 8 bytes

// check checks b, the next piece of a text, going on from s. ok is false
// when b breaks the rules; bad is then where the ill-formed sequence
// begins, relative to b (negative when it began in an earlier piece).
func (s *utf8State) check(b []byte) (bad int, ok bool) {
	i := 0
	if s.need > 0 {
		if i, ok = s.resume(b); !ok {
			return i, false
		}
	}
	for {
		for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&msb == 0 {
			i += 8
		}
		if i+8 <= len(b) {
			i += bits.TrailingZeros64(binary.LittleEndian.Uint64(b[i:])&msb) / 8
		} else {
			for i < len(b) && b[i] < 0x80 {
				i++
			}
			if i == len(b) {
				return 0, true
			}
		}
		n, ok := s.checkRune(b, i)
		if !ok {
			return i, false
		}
		i += n
		if s.need > 0 {
			return 0, true // the rest comes in the next piece
		}
	}
}

// resume goes on with the unfinished sequence of s in b; bad is where it
// began when it breaks the rules, else n is the bytes it took from b.
func (s *utf8State) resume(b []byte) (n int, ok bool) {
	for s.need > 0 {
		if n == len(b) {
			return n, true
		}
		if c := b[n]; c < s.lo || c > s.hi {
			return n - int(s.have), false
		}
		s.need, s.have, s.lo, s.hi = s.need-1, s.have+1, 0x80, 0xbf
		n++
	}
	s.have = 0
	return n, true
}

// checkRune checks the sequence that begins at b[i] (b[i] >= 0x80) and
// returns its length; when b ends inside it, s records it and n is the
// bytes left in b.
func (s *utf8State) checkRune(b []byte, i int) (n int, ok bool) {
	c := b[i]
	lo, hi := uint8(0x80), uint8(0xbf)
	switch {
	case c < 0xc2: // a continuation byte, or an overlong 2-byte lead
		return 0, false
	case c < 0xe0:
		n = 2
	case c < 0xf0:
		n = 3
		if c == 0xe0 {
			lo = 0xa0 // overlong
		} else if c == 0xed {
			hi = 0x9f // surrogates
		}
	case c < 0xf5:
		n = 4
		if c == 0xf0 {
			lo = 0x90 // overlong
		} else if c == 0xf4 {
			hi = 0x8f // above U+10FFFF
		}
	default: // above U+10FFFF, or the 5- and 6-byte forms
		return 0, false
	}
	if i+n <= len(b) {
		if d := b[i+1]; d < lo || d > hi || n > 2 && b[i+2]&0xc0 != 0x80 || n > 3 && b[i+3]&0xc0 != 0x80 {
			return 0, false
		}
		return n, true
	}
	*s = utf8State{need: uint8(n - 1), have: 1, lo: lo, hi: hi}
	if _, ok := s.resume(b[i+1:]); !ok {
		return 0, false
	}
	return len(b) - i, true
}

// validUTF8 reports whether b is a whole text of valid UTF-8.
func validUTF8(b []byte) bool {
	var s utf8State
	_, ok := s.check(b)
	return ok && s.need == 0
}
