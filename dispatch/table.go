package dispatch

import (
	"encoding/binary"
	"math/bits"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// NOTE: the frozen method table is an open-addressing array sized to a power
// of two at least twice the method count. A name's slot comes from a cheap
// mix of its length and three of its bytes (no loop), and a lookup compares
// at most a few names: by two words for names of up to 16 bytes (slot), byte
// for byte beyond. It beats a map[string] lookup by skipping the general
// string hash; names are never copied.

type table struct {
	slots []slot
	mask  uint64
}

// slot is a method in the table with what lookup compares first: the
// name's length and words (nameWords), so that names of up to 16 bytes,
// most of them, are told apart without a call to compare bytes.
type slot struct {
	m      *method
	n      int
	w1, w2 uint64
}

func newTable(ms []*method) table {
	n := 1 << bits.Len(uint(2*len(ms)))
	t := table{slots: make([]slot, n), mask: uint64(n - 1)}
	for _, m := range ms {
		i := hashName(m.name) & t.mask
		for t.slots[i].m != nil {
			i = (i + 1) & t.mask
		}
		padded := make([]byte, len(m.name), max(len(m.name), 8))
		copy(padded, m.name)
		w1, w2, _ := nameWords(padded)
		t.slots[i] = slot{m: m, n: len(m.name), w1: w1, w2: w2}
	}
	return t
}

// lookup returns the method named name, or nil.
func (t *table) lookup(name []byte) *method {
	if len(t.slots) == 0 {
		return nil
	}
	w1, w2, words := nameWords(name)
	for i := hashName(bytesconv.B2S(name)) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.m == nil {
			return nil
		}
		if s.n == len(name) && (words && s.w1 == w1 && s.w2 == w2 || !words && s.m.name == string(name)) {
			return s.m
		}
	}
}

// nameWords returns two words that, with its length, tell a name of up to
// 16 bytes from every other: from 8 bytes on its first and last 8
// (overlapping), under 8 its bytes in the first word, zero-padded, read
// as one word when b's capacity allows (a name in a message is followed
// by its closing quote and more). ok is false when they cannot tell (a
// longer name, or a short one at the end of its memory).
func nameWords(b []byte) (w1, w2 uint64, ok bool) {
	switch n := len(b); {
	case n >= 8 && n <= 16:
		return binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:]), true
	case n < 8 && cap(b) >= 8:
		return binary.LittleEndian.Uint64(b[:8]) & (1<<(8*n) - 1), 0, true
	}
	return 0, 0, false
}

// hashName mixes a name's length with its first and last bytes: no loop,
// inlinable. Names that share all three only cost a longer probe, bounded
// by the number of methods.
func hashName(s string) uint64 {
	h := uint64(len(s))
	if len(s) > 0 {
		h |= uint64(s[0])<<8 | uint64(s[len(s)-1])<<16 | uint64(s[len(s)/2])<<24
	}
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>29
}
