package openrpc_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

// BenchmarkDiscover: a call of rpc.discover against raw handlers, one that
// appends the same bytes (the baseline the issue asks for) and one that
// appends a small result.
func BenchmarkDiscover(b *testing.B) {
	e := dispatch.New(nil)
	defer e.Close()
	svc, _ := openrpc.Enable(e, &openrpc.Options{Methods: demo.Docs()})
	if err := demo.Register(e); err != nil {
		b.Fatal(err)
	}
	var doc []byte
	raw := func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, doc...), nil }
	small := func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "19"...), nil }
	_ = e.RegisterMethod(dispatch.Method{Name: "raw_doc", Handler: dispatch.HandlerFunc(raw), Inline: true})
	_ = e.RegisterMethod(dispatch.Method{Name: "raw_small", Handler: dispatch.HandlerFunc(small), Inline: true})
	doc, _ = svc.Document()
	for _, c := range []struct{ name, method string }{{"rpc.discover", "rpc.discover"}, {"raw_same_bytes", "raw_doc"}, {"raw_small", "raw_small"}} {
		msg := []byte(`{"jsonrpc":"2.0","method":"` + c.method + `","id":1}`)
		b.Run(c.name, func(b *testing.B) {
			out := e.Process(nil, msg)
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				out = e.Process(out[:0], msg)
			}
		})
	}
}

// BenchmarkFreeze: the time Freeze takes with the document built (on)
// and without (off), for the demo methods and for 1,000 typed methods.
func BenchmarkFreeze(b *testing.B) {
	typed, docs := typedMethods(1000)
	maps.Copy(docs, demo.Docs())
	for _, c := range []struct {
		name     string
		register func(*dispatch.Engine) error
	}{
		{"demo", demo.Register},
		{"typed1000", func(e *dispatch.Engine) error {
			for _, m := range typed {
				if err := e.RegisterMethod(m); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/document=%v", c.name, on), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					e := dispatch.New(nil)
					if on {
						_, _ = openrpc.Enable(e, &openrpc.Options{Methods: docs})
					}
					if err := c.register(e); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					e.Freeze()
					b.StopTimer()
					e.Close()
					b.StartTimer()
				}
			})
		}
	}
}

// typedMethods returns n Typed methods over a few param and result types,
// as a service of many methods has, and their descriptions.
func typedMethods(n int) ([]dispatch.Method, map[string]openrpc.MethodDoc) {
	type Account struct {
		ID      uint64            `json:"id"`
		Name    string            `json:"name"`
		Tags    []string          `json:"tags,omitempty"`
		Balance float64           `json:"balance"`
		Meta    map[string]string `json:"meta,omitempty"`
	}
	type Query struct {
		Owner  string `json:"owner"`
		Limit  int32  `json:"limit,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}
	type Page struct {
		Items []Account `json:"items"`
		Next  string    `json:"next,omitempty"`
	}
	hs := []dispatch.Handler{
		typed[Query, Page](), typed[Account, bool](), typed[[2]uint64, Account](), typed[[]string, []Account](), typed[point, float64](),
	}
	ms := make([]dispatch.Method, n)
	docs := make(map[string]openrpc.MethodDoc, n)
	for i := range ms {
		ms[i] = dispatch.Method{Name: fmt.Sprintf("svc_method%04d", i), Handler: hs[i%len(hs)]}
		docs[ms[i].Name] = openrpc.MethodDoc{Summary: "A method."}
	}
	return ms, docs
}

func BenchmarkSchemas(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var s openrpc.Schemas
		if _, err := s.Of(reflect.TypeFor[struct {
			P point
			Q []point
		}]()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateParams: demo subtract by position and by name, with
// and without the params check.
func BenchmarkValidateParams(b *testing.B) {
	for _, on := range []bool{false, true} {
		e := dispatch.New(nil)
		_, _ = openrpc.Enable(e, &openrpc.Options{ValidateParams: on, Methods: demo.Docs()})
		_ = demo.Register(e)
		for _, c := range []struct{ name, msg string }{
			{"position", `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`},
			{"name", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`},
		} {
			b.Run(fmt.Sprintf("%s/validate=%v", c.name, on), func(b *testing.B) {
				msg := []byte(c.msg)
				out := e.Process(nil, msg)
				b.ReportAllocs()
				for b.Loop() {
					out = e.Process(out[:0], msg)
				}
			})
		}
		e.Close()
	}
}
