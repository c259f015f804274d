//go:build !race

package marshal

import "testing"

type flat struct {
	A, B int
	X    float64
	Ok   bool
	S    string `json:"s"`
}

func TestAppendDoesNotAllocate(t *testing.T) {
	dst := make([]byte, 0, 4096)
	f := func(name string, run func() error) {
		t.Helper()
		var err error
		if n := testing.AllocsPerRun(100, func() { err = run() }); n != 0 || err != nil {
			t.Errorf("%s: %v allocs per run, err %v", name, n, err)
		}
	}
	ei, _ := CompileFor[int]()
	ef, _ := CompileFor[flat]()
	ep, _ := CompileFor[pair]()
	es, _ := CompileFor[[]int]()
	i, fl, pr, sl := 42, flat{1, 2, 3.5, true, "x\"y"}, pair{[2]float64{1, 2}, [2]float64{3, 4}}, []int{1, 2, 3}
	f("int", func() (err error) { dst, err = AppendValue(ei, dst[:0], &i); return })
	f("struct", func() (err error) { dst, err = AppendValue(ef, dst[:0], &fl); return })
	f("pair", func() (err error) { dst, err = AppendValue(ep, dst[:0], &pr); return })
	f("[]int", func() (err error) { dst, err = AppendValue(es, dst[:0], &sl); return })
}
