package client_test

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
)

var (
	benchParams = []byte(`[42,23]`)
	benchReq    = []byte(`{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}` + "\n")
)

func benchCallRaw(b *testing.B, c *client.Client) {
	ctx := context.Background()
	dst := make([]byte, 0, 64)
	var err error
	b.ReportAllocs()
	b.SetBytes(int64(len(benchReq)))
	b.ResetTimer()
	for b.Loop() {
		if dst, err = c.CallRaw(ctx, dst[:0], "subtract", benchParams); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRaw is one raw call's round trip over loopback TCP (NDJSON)
// to a jetrpc server in the same process.
func BenchmarkCallRaw(b *testing.B) {
	s := startTCP(b)
	benchCallRaw(b, dialTCP(b, s.addr, nil))
}

// BenchmarkRoundTripFloor is the baseline of BenchmarkCallRaw: the same
// request written and its answer line read on a bare connection, with no
// client at all. The difference is what the client costs.
func BenchmarkRoundTripFloor(b *testing.B) {
	s := startTCP(b)
	nc, err := net.Dial("tcp", s.addr)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchReq)))
	for b.Loop() {
		if _, err := nc.Write(benchReq); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRawParallel is many goroutines calling on one connection:
// pipelined throughput with coalesced writes.
func BenchmarkCallRawParallel(b *testing.B) {
	s := startTCP(b)
	c := dialTCP(b, s.addr, nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchReq)))
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		dst := make([]byte, 0, 64)
		var err error
		for pb.Next() {
			if dst, err = c.CallRaw(ctx, dst[:0], "subtract", benchParams); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkCall is the typed layer: struct params by pointer and an int
// result through the compiled codecs.
func BenchmarkCall(b *testing.B) {
	s := startTCP(b)
	c := dialTCP(b, s.addr, nil)
	ctx := context.Background()
	params := &subArgs{42, 23}
	var r int
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Call(ctx, "subtract", params, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallRawStdio(b *testing.B) {
	c, _ := startStdio(b, frame.Header, nil)
	benchCallRaw(b, c)
}

func BenchmarkCallRawHTTP(b *testing.B) {
	s := startHTTP(b)
	c, err := client.DialHTTP(s.url, testOptions(nil))
	if err != nil {
		b.Fatal(err)
	}
	benchCallRaw(b, closeOnCleanup(b, c))
}
