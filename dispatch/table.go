package dispatch

import (
	"encoding/binary"
	"math/bits"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// NOTE: the frozen method table is an open-addressing array sized to a power
// of two at least twice the method count. A name's slot comes from a cheap
// mix of its length and three of its bytes (no loop), and a lookup compares
// at most a few names: by two words for names of 4 to 16 bytes (slot), as
// strings otherwise. It beats a map[string] lookup by skipping the general
// string hash; names are never copied.

type table struct {
	slots []slot
	mask  uint64
}

// slot is a method in the table with what lookup compares first: the
// name's length and words (nameWords), so that names of 4 to 16 bytes,
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
		w1, w2, _ := nameWords([]byte(m.name))
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

// nameWords returns two words that, with its length, tell a name of 4 to
// 16 bytes from every other name of that length: its first and last 8 or 4
// bytes (overlapping), by the larger that fits, in both words or the
// first. ok is false for other lengths (compared as strings). Inlined.
func nameWords(b []byte) (w1, w2 uint64, ok bool) {
	le := binary.LittleEndian
	switch n := len(b); {
	case n >= 8 && n <= 16:
		return le.Uint64(b), le.Uint64(b[n-8:]), true
	case n >= 4 && n < 8:
		return uint64(le.Uint32(b)) | uint64(le.Uint32(b[n-4:]))<<32, 0, true
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
