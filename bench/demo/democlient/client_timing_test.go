package democlient_test

import (
	"context"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo/democlient"
	"github.com/jetrpc/jetrpc/client"
)

// BenchmarkClient: a call through the generated client against the same
// call written by hand with client.Call (struct params by pointer, a
// typed result), over loopback TCP and HTTP to the demo server.
func BenchmarkClient(b *testing.B) {
	tcpAddr, httpAddr := startDemo(b)
	ctx := context.Background()
	tc, err := client.Dial(ctx, "tcp", tcpAddr, &client.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	hc, err := client.DialHTTP("http://"+httpAddr+"/", &client.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer hc.Close()
	type subtractArgs struct {
		Minuend    float64 `json:"minuend"`
		Subtrahend float64 `json:"subtrahend"`
	}
	for _, tr := range []struct {
		name string
		c    *client.Client
	}{{"tcp", tc}, {"http", hc}} {
		gen := democlient.NewClient(tr.c)
		b.Run(tr.name+"/subtract/generated", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gen.Subtract(ctx, 42, 23); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr.name+"/subtract/handwritten", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := subtractArgs{42, 23}
				var r float64
				if err := tr.c.Call(ctx, "subtract", &p, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr.name+"/sum/generated", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gen.Sum(ctx, 1, 2, 4); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr.name+"/sum/handwritten", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := []float64{1, 2, 4}
				var r float64
				if err := tr.c.Call(ctx, "sum", &p, &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
