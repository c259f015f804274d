package marshal

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

type MyInt int

type myInt int

type Inner struct {
	A int
	B int `json:"b"`
	C int
}

type inner struct {
	D int
	e int
	F int `json:"f"`
}

type Other struct {
	A int // conflicts with Inner.A at the same depth: dropped
	B int // loses to Inner's tagged "b"? no: name "B" differs from "b"
	C int `json:"C"`
}

type Deep struct{ Inner }

type embeds struct {
	Inner
	*Other
	inner
	MyInt
	myInt
	*Deep
	Z int
	A int `json:"-"`
}

type embedsPtr struct {
	*Inner
	*inner
	X string
}

type tagged struct {
	Inner  `json:"in"`
	*Other `json:"other,omitempty"`
	inner  `json:"-"`
}

type Rec struct {
	*Rec
	N int
}

// Plain is embedded twice at one depth (through DupA and DupB): its fields
// cancel out. (Untagged: vet rejects a repeated json tag.)
type Plain struct{ A, C int }

type DupA struct {
	Plain
	X int
}
type DupB struct{ Plain }

type dup struct {
	DupA
	DupB
	C string
}

type shallow struct {
	Deep
	A string
}

type PtrMInner struct{ P ptrM }

type embedsPtrM struct {
	*ptrM
	PtrMInner
}

func TestEmbedded(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	in := Inner{1, 2, 3}
	f(ptr(embeds{}))
	f(ptr(embeds{Inner: in, Other: &Other{4, 5, 6}, inner: inner{7, 8, 9}, MyInt: 10, myInt: 11, Deep: &Deep{in}, Z: 12, A: 13}))
	f(ptr(embedsPtr{}))
	f(ptr(embedsPtr{Inner: &in, inner: &inner{1, 2, 3}, X: "x"}))
	f(ptr(tagged{Inner: in}))
	f(ptr(tagged{Other: &Other{1, 2, 3}, inner: inner{D: 1}}))
	f(ptr(Rec{&Rec{nil, 2}, 1}))
	f(ptr(dup{DupA{Plain{1, 2}, 3}, DupB{Plain{4, 5}}, "c"}))
	f(ptr(shallow{Deep{in}, "a"}))
	f(ptr(embedsPtrM{&ptrM{1}, PtrMInner{ptrM{2}}}))
	f(ptr(map[string]embedsPtrM{"k": {&ptrM{1}, PtrMInner{ptrM{2}}}}))
	f(ptr(map[string]embedsPtrM{"k": {}}))
	f(ptr(struct {
		*time.Location
		time.Duration
	}{nil, 5}))
	seven := MyInt(7)
	f(ptr(struct {
		*MyInt
		fmt.Stringer
		error
		*inner `json:"pi"`
	}{&seven, time.Second, nil, nil}))
	f(ptr(struct {
		*MyInt
		fmt.Stringer
		Inner `json:"in,omitzero"`
	}{}))
}

type quotedT struct {
	I   int         `json:"i,string"`
	I8  int8        `json:",string"`
	U   uint64      `json:"u,string"`
	F   float64     `json:"f,string"`
	F32 float32     `json:"f32,string"`
	B   bool        `json:"b,string"`
	S   string      `json:"s,string"`
	P   *int        `json:"p,string"`
	PN  *int        `json:"pn,string"`
	PP  **int       `json:"pp,string"`
	N   json.Number `json:"n,string"`
	Sl  []int       `json:"sl,string"`
	St  Inner       `json:"st,string"`
	M   valM        `json:"m,string"`
	T   intKey      `json:"t,string"`
	O   int         `json:"o,string,omitempty"`
	A   any         `json:"a,string"`
	MI  MyInt       `json:"mi,string"`
	Ptm *ptrM       `json:"ptm,string"`
}

func TestQuoted(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	n := 7
	pn := &n
	f(ptr(quotedT{M: "1", A: 3}))
	for _, s := range []string{"", "plain", `a"b\c`, "<&>\n\t\x01\u2028\xff", `\"`, "é"} {
		f(ptr(quotedT{I: -1, I8: 8, U: math.MaxUint64, F: 1e-7, F32: 1.5, B: true, S: s, P: &n, PP: &pn,
			N: "12", Sl: []int{1}, St: Inner{A: 1}, M: "2", T: 3, O: 4, A: "x", MI: 5, Ptm: &ptrM{1}}))
	}
	f(ptr(quotedT{M: "1", F: math.NaN()}))
	f(ptr(quotedT{M: "1", N: "x"}))
}

type zeroer struct{ V int }

func (z zeroer) IsZero() bool { return z.V == 42 }

type ptrZeroer struct{ V int }

func (z *ptrZeroer) IsZero() bool { return z.V == 42 }

type isZ interface{ IsZero() bool }

type withFloat struct{ F float64 }

type omitZ struct {
	I    int            `json:"i,omitzero"`
	F    float64        `json:"f,omitzero"`
	S    string         `json:"s,omitzero"`
	Sl   []int          `json:"sl,omitzero"`
	M    map[string]int `json:"m,omitzero"`
	P    *int           `json:"p,omitzero"`
	A    any            `json:"a,omitzero"`
	Arr  [2]int         `json:"arr,omitzero"`
	St   Inner          `json:"st,omitzero"`
	WF   withFloat      `json:"wf,omitzero"`
	T    time.Time      `json:"t,omitzero"`
	Z    zeroer         `json:"z,omitzero"`
	PZ   ptrZeroer      `json:"pz,omitzero"`
	PPZ  *ptrZeroer     `json:"ppz,omitzero"`
	IZ   isZ            `json:"iz,omitzero"`
	Both []int          `json:"both,omitempty,omitzero"`
	B    bool           `json:"b,omitzero"`
}

func TestOmitZero(t *testing.T) {
	f := func(v any) { t.Helper(); check(t, v) }
	n := 0
	f(ptr(omitZ{}))
	f(ptr(omitZ{F: math.Copysign(0, -1), Sl: []int{}, M: map[string]int{}, P: &n, A: 0, WF: withFloat{math.Copysign(0, -1)},
		Z: zeroer{42}, PZ: ptrZeroer{42}, PPZ: &ptrZeroer{42}, IZ: (*ptrZeroer)(nil), Both: []int{}}))
	f(ptr(omitZ{I: 1, F: 0.5, S: "s", Arr: [2]int{0, 1}, St: Inner{C: 1}, T: time.Unix(1, 0).UTC(), Z: zeroer{0},
		PZ: ptrZeroer{1}, PPZ: &ptrZeroer{1}, IZ: zeroer{1}, Both: []int{1}, B: true}))
	f(ptr(map[string]omitZ{"k": {PZ: ptrZeroer{42}, IZ: zeroer{42}}}))
	f(ptr([]any{omitZ{PZ: ptrZeroer{42}}}))
}
