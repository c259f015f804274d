package netserver

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
)

// BenchmarkGate measures what authentication, the rules and the rate
// limit cost per call, beside the plain path, on a stream connection
// (ServeStdio over an in-memory stream of 1000 inline calls, authenticated
// once); nethttp's BenchmarkGateHTTP does the same on HTTP.
func BenchmarkGate(b *testing.B) {
	variants := servertest.GateVariants(b)
	const calls = 1000
	for _, v := range variants {
		b.Run("stream/"+v.Name, func(b *testing.B) {
			opts := &Options{Guard: v.Guard()}
			s := newServer(b, opts, authSetup(b)...)
			defer s.Shutdown(context.Background())
			var stream []byte
			if opts.Guard != nil && opts.Guard.Authenticates() {
				stream = frame.AppendFrame(stream, frame.NDJSON, []byte(authCall(aliceToken)))
			}
			for i := range calls {
				stream = frame.AppendFrame(stream, frame.NDJSON,
					[]byte(`{"jsonrpc":"2.0","method":"whoami_inline","id":`+strconv.Itoa(i)+`}`))
			}
			var in bytes.Reader
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				in.Reset(stream)
				if err := s.ServeStdio(&in, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}

// BenchmarkGateParts times one inline call through the engine with and
// without the rules (package guard's BenchmarkGuardParts times the guard's
// own pieces).
func BenchmarkGateParts(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","method":"whoami_inline","params":[1,2],"id":1}`)
	for _, rules := range []bool{false, true} {
		name := "engine/inline-call"
		setup := []engineSetup{whoami("whoami_inline", true)}
		if rules {
			name += "+rules"
			setup = authSetup(b)
		}
		b.Run(name, func(b *testing.B) {
			e := newEngine(b, setup...)
			ctx := auth.WithIdentity(context.Background(), &auth.Identity{Name: "alice", Scheme: "bearer"})
			out := make([]byte, 0, 256)
			b.ReportAllocs()
			for range b.N {
				out = e.ProcessContext(ctx, out[:0], call)
			}
		})
	}
}
