package bench_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

func newEngine(tb testing.TB) *dispatch.Engine {
	tb.Helper()
	e := dispatch.New(nil)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

func BenchmarkEngine(b *testing.B) { benchCases(b, newEngine(b)) }

// benchCases runs e.Process on every case of bench.Cases.
func benchCases(b *testing.B, e *dispatch.Engine) {
	for _, c := range bench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			dst := make([]byte, 0, 4096)
			b.SetBytes(int64(len(c.Msg)))
			b.ReportAllocs()
			for b.Loop() {
				dst = e.Process(dst[:0], c.Msg)
			}
		})
	}
}

// BenchmarkEngineTyped runs the cases of BenchmarkEngine on typed
// handlers (bench.RegisterTyped), the API most users write.
func BenchmarkEngineTyped(b *testing.B) {
	e := dispatch.New(nil)
	if err := bench.RegisterTyped(e); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	benchCases(b, e)
}

func BenchmarkStdlib(b *testing.B) {
	s := bench.NewStdlib()
	for _, c := range bench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Msg)))
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Process(c.Msg)
			}
		})
	}
}

// TestTypedCases: the typed handlers answer every case as the raw demo
// handlers do (the same bytes, up to the order of a batch's members).
func TestTypedCases(t *testing.T) {
	raw := newEngine(t)
	typed := dispatch.New(nil)
	if err := bench.RegisterTyped(typed); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(typed.Close)
	for _, c := range bench.Cases() {
		want, got := raw.Process(nil, c.Msg), typed.Process(nil, c.Msg)
		if c.Name == "batch10" {
			want, got = sortedBatch(t, want), sortedBatch(t, got)
		}
		if string(got) != string(want) {
			t.Errorf("%s: typed %s, raw %s", c.Name, got, want)
		}
	}
}

// sortedBatch returns a batch response's members sorted, one per line.
func sortedBatch(t *testing.T, b []byte) []byte {
	t.Helper()
	var ms []json.RawMessage
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatalf("batch response %s: %v", b, err)
	}
	ss := make([]string, len(ms))
	for i, m := range ms {
		ss[i] = string(m)
	}
	slices.Sort(ss)
	return []byte(strings.Join(ss, "\n"))
}
