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

// newEngine is an engine with the demo methods as demo.Register registers
// them (demo.Inline).
func newEngine(tb testing.TB) *dispatch.Engine { return newEngineAs(tb, demo.Inline) }

// newEngineAs is an engine with the demo methods registered the way m says
// (demo.RegisterAs), closed when tb ends.
func newEngineAs(tb testing.TB, m demo.Mode) *dispatch.Engine {
	tb.Helper()
	e := dispatch.New(nil)
	if err := demo.RegisterAs(e, m); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// BenchmarkEngine runs e.Process on every case of bench.Cases, the demo
// methods registered by demo.Register: raw handlers marked Inline (the
// stable name; BenchmarkEngineDefault and BenchmarkEngineTyped are the
// registrations a user gets without asking).
func BenchmarkEngine(b *testing.B) { benchCases(b, newEngine(b)) }

// BenchmarkEngineDefault runs the cases of BenchmarkEngine on the same raw
// handlers registered the default way, without Inline
// (demo.RegisterAs(e, demo.Default)).
func BenchmarkEngineDefault(b *testing.B) { benchCases(b, newEngineAs(b, demo.Default)) }

// benchCases runs e.Process on every case of bench.Cases.
func benchCases(b *testing.B, e *dispatch.Engine) { benchCasesOf(b, e, bench.Cases()) }

// benchCasesOf runs e.Process on every case of cases.
func benchCasesOf(b *testing.B, e *dispatch.Engine, cases []bench.Case) {
	for _, c := range cases {
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

// BenchmarkEngineTyped runs the cases of BenchmarkEngine on typed handlers
// (dispatch.Typed) registered the default way, without Inline
// (demo.RegisterAs(e, demo.Typed), whose methods of the cases are
// bench.RegisterTyped's): the API most users write. It adds the typed-only
// cases of bench.TypedCases (strings: typed string decoding).
func BenchmarkEngineTyped(b *testing.B) {
	e := newEngineAs(b, demo.Typed)
	if err := bench.RegisterProfile(e); err != nil {
		b.Fatal(err)
	}
	benchCasesOf(b, e, bench.TypedCases())
}

// BenchmarkStdlib is the encoding/json baseline (bench.Stdlib), built as
// encoding/json is in this build: v1, or on v2 with GOEXPERIMENT=jsonv2
// (bench.JSONBuild).
func BenchmarkStdlib(b *testing.B) { benchBaseline(b, bench.NewStdlib()) }

// BenchmarkStdlibV2 is the encoding/json/v2 baseline (bench.NewStdlibV2:
// v2 and jsontext used directly); only a build with GOEXPERIMENT=jsonv2
// has it.
func BenchmarkStdlibV2(b *testing.B) {
	s := bench.NewStdlibV2()
	if s == nil {
		b.Skip("encoding/json/v2 needs GOEXPERIMENT=jsonv2")
	}
	benchBaseline(b, s)
}

func benchBaseline(b *testing.B, s bench.Baseline) {
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
