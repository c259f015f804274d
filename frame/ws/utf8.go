package ws

import (
	"encoding/binary"
	"unicode/utf8"
)

// NOTE: how the UTF-8 check is organised.
//
// A text message reaches the Reader in pieces (the bytes of a frame that
// one read brought, the frames of a fragmented message), and a character
// may be cut between two of them. utf8State is where the check stands
// after a piece: between characters (the zero value), or inside a sequence
// with need bytes still to come, the next one within lo..hi (RFC 3629's
// table: after E0 it is A0..BF, after ED 80..9F, after F0 90..BF, after F4
// 80..8F, else 80..BF).
//
// check splits a piece in three: the end of a character the last piece
// cut (resume), the whole characters, and a character this piece cuts
// (unfinished finds it in the last 3 bytes). The whole characters, all but
// a few bytes of the piece, go to utf8.Valid, whose ASCII path reads 8
// bytes at a time; only the cut ends, and a piece it finds bad (to say
// where), go through scan, one sequence at a time.
//
// The Reader calls check only for a piece with a byte over 0x7F, or after
// a piece that cut a character: it sees ASCII from the OR of the bytes,
// which maskBytes returns while unmasking and orBytes takes otherwise.

// utf8State is where a UTF-8 check stands between two pieces of a text.
type utf8State struct {
	need   uint8 // continuation bytes still to come
	have   uint8 // bytes of the unfinished sequence seen
	lo, hi uint8 // the range of the next byte
}

// check checks b, the next piece of a text, going on from s. ok is false
// when b breaks the rules; bad is then where the ill-formed sequence
// begins, relative to b (negative when it began in an earlier piece).
func (s *utf8State) check(b []byte) (bad int, ok bool) {
	i := 0
	if s.need > 0 {
		if i, ok = s.resume(b); !ok || s.need > 0 {
			return i, ok
		}
	}
	cut := len(b) - unfinished(b[i:])
	if utf8.Valid(b[i:cut]) {
		if cut == len(b) {
			return 0, true
		}
		i = cut
	}
	bad, ok = s.scan(b[i:])
	return i + bad, ok
}

// unfinished returns the length of the sequence that b ends inside of: 0
// when b ends with a whole character, or with bytes that cannot be one
// (which utf8.Valid finds).
func unfinished(b []byte) int {
	for k := 1; k <= min(3, len(b)); k++ {
		switch c := b[len(b)-k]; {
		case c < 0x80:
			return 0
		case c >= 0xf0 && k < 4, c >= 0xe0 && k < 3, c >= 0xc0 && k < 2:
			return k
		case c >= 0xc0:
			return 0
		}
	}
	return 0
}

// scan checks b one sequence at a time, from a state between characters;
// when b ends inside a sequence, s records it.
func (s *utf8State) scan(b []byte) (bad int, ok bool) {
	for i := 0; i < len(b); {
		if b[i] < 0x80 {
			i++
			continue
		}
		if *s, ok = lead(b[i]); !ok {
			return i, false
		}
		n, ok := s.resume(b[i+1:])
		if !ok {
			return i, false
		}
		i += 1 + n
	}
	return 0, true
}

// lead returns the state after c, the first byte of a multi-byte sequence;
// ok is false when c cannot begin one.
func lead(c byte) (s utf8State, ok bool) {
	s = utf8State{have: 1, lo: 0x80, hi: 0xbf}
	switch {
	case c < 0xc2: // a continuation byte, or an overlong 2-byte form
		return s, false
	case c < 0xe0:
		s.need = 1
	case c < 0xf0:
		s.need = 2
		if c == 0xe0 {
			s.lo = 0xa0 // overlong
		} else if c == 0xed {
			s.hi = 0x9f // surrogates
		}
	case c < 0xf5:
		s.need = 3
		if c == 0xf0 {
			s.lo = 0x90 // overlong
		} else if c == 0xf4 {
			s.hi = 0x8f // above U+10FFFF
		}
	default: // above U+10FFFF, or the 5- and 6-byte forms
		return s, false
	}
	return s, true
}

// resume goes on with the unfinished sequence of s in b: n is the bytes it
// took from b or, when they break the rules, where the sequence began.
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

const msb = 0x8080808080808080 // the high bit of each of 8 bytes

// orBytes returns the OR of the bytes of b, 8 at a time: its high bits
// (msb) are clear when b is ASCII. It reads 16 bytes a step and has no
// early way out, which suits ASCII; for other text it is one extra pass,
// at a small part of the cost of check.
func orBytes(b []byte) (or uint64) {
	for len(b) >= 16 {
		or |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:])
		b = b[16:]
	}
	switch n := len(b); {
	case n >= 8:
		or |= binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		or |= uint64(binary.LittleEndian.Uint32(b) | binary.LittleEndian.Uint32(b[n-4:]))
	default:
		for _, c := range b {
			or |= uint64(c)
		}
	}
	return or
}

// validUTF8 reports whether b is a whole text of valid UTF-8.
func validUTF8(b []byte) bool {
	var s utf8State
	_, ok := s.check(b)
	return ok && s.need == 0
}
