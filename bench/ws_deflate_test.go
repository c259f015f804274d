package bench_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// logLike is about n bytes of an eth_getLogs result: a few contract
// addresses and event signatures (as in a filtered query), indexed topics
// that pad an address with zeros, data words that are uint256 amounts,
// random transaction hashes (two logs each) and block hashes (eight logs
// each), block numbers and indexes.
func logLike(n int) []byte {
	x := uint32(1)
	hex := func(dst []byte, digits int) []byte {
		dst = append(dst, "0x"...)
		for range digits {
			x = x*1103515245 + 12345
			dst = append(dst, "0123456789abcdef"[x>>16&15])
		}
		return dst
	}
	var addrs [][]byte
	for range 8 {
		addrs = append(addrs, hex(nil, 40))
	}
	var topics [][]byte // event signatures
	for range 4 {
		topics = append(topics, hex(nil, 64))
	}
	var block, tx []byte
	b := []byte(`[`)
	for i := 0; len(b) < n-700; i++ {
		if i%8 == 0 {
			block = hex(block[:0], 64)
		}
		if i%2 == 0 {
			tx = hex(tx[:0], 64)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `{"address":"`...), addrs[i%8]...), `","topics":["`...)
		b = append(append(b, topics[i%4]...), `","0x000000000000000000000000`...)
		b = append(append(b, addrs[(i+3)%8][2:]...), `","0x000000000000000000000000`...)
		b = append(append(b, addrs[(i+5)%8][2:]...), `"],"data":"0x000000000000000000000000000000000000000000000000`...)
		b = append(b, hex(nil, 16)[2:]...) // a uint256 amount
		b = append(b, `","blockNumber":"0x`...)
		b = strconv.AppendInt(b, int64(19000000+i/8), 16)
		b = append(append(append(b, `","blockHash":"`...), block...), `","transactionHash":"`...)
		b = append(append(b, tx...), `","transactionIndex":"0x`...)
		b = append(strconv.AppendInt(b, int64(i/2), 16), `","logIndex":"0x`...)
		b = append(strconv.AppendInt(b, int64(i), 16), `","removed":false}`...)
	}
	return append(b, ']')
}

var logsResult = sync.OnceValue(func() []byte { return logLike(64 << 10) })

// countListener counts the bytes written to the connections it accepts.
type countListener struct {
	net.Listener
	wrote *atomic.Int64
}

func (l countListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countConn{nc, l.wrote}, nil
}

type countConn struct {
	net.Conn
	wrote *atomic.Int64
}

func (c countConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.wrote.Add(int64(n))
	return n, err
}

// deflateServer serves the demo methods and "logs", which answers the 64
// KiB log-like result, with jetrpc's HTTPServer (CompressMin default) on
// loopback; it returns the address and the count of bytes the server
// wrote.
func deflateServer(tb testing.TB) (string, *atomic.Int64) {
	tb.Helper()
	e := dispatch.New(nil)
	tb.Cleanup(e.Close)
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	res := logsResult()
	e.RegisterMethod(dispatch.Method{Name: "logs", Inline: true, Handler: dispatch.HandlerFunc(
		func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, res...), nil })})
	srv := nethttp.New(e, &netserver.Options{MaxConns: 5000})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	wrote := new(atomic.Int64)
	go srv.Serve(countListener{ln, wrote})
	tb.Cleanup(shutdown(srv.Shutdown))
	return ln.Addr().String(), wrote
}

// BenchmarkWSDeflate measures a call answered with a 64 KiB log-like
// result over one loopback WebSocket (jetrpc's client, 16 calls in
// flight) with permessage-deflate off (the client offers none) and on (the
// defaults): calls per second; wire-B/call, the bytes the server wrote per
// call; cpu-ns/call, the CPU time (user and system, server and client)
// per call, which a loaded machine's waiting does not count. Interleave
// the two sides (bench/ws_deflate.sh).
func BenchmarkWSDeflate(b *testing.B) {
	addr, wrote := deflateServer(b)
	for _, c := range []struct {
		name string
		min  int
	}{{"off", -1}, {"on", 0}} {
		b.Run("compression="+c.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cl, err := client.DialWebSocket(ctx, "ws://"+addr+"/ws", &client.Options{CompressMin: c.min})
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			want := len(logsResult())
			b.ReportAllocs()
			b.SetParallelism(8)
			before, cpu := wrote.Load(), cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var dst []byte
				for pb.Next() {
					var err error
					if dst, err = cl.CallRaw(ctx, dst[:0], "logs", nil); err != nil || len(dst) != want {
						b.Errorf("logs: %d bytes, %v", len(dst), err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(wrote.Load()-before)/float64(b.N), "wire-B/call")
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/call")
		})
	}
}

// BenchmarkWSDeflateMemory measures the heap per connection over 1,000
// WebSocket connections to jetrpc's server: idle after the handshake
// (server and a minimal client, frame/ws's Reader, together), and after
// each has had one 64 KiB log-like answer (the client's buffers dropped:
// the server's cost), with permessage-deflate off and on (the server's
// default: no context takeover either way). Run with -benchtime=1x.
func BenchmarkWSDeflateMemory(b *testing.B) {
	addr, _ := deflateServer(b)
	const conns = 1000
	for _, on := range []bool{false, true} {
		name := "compression=off"
		if on {
			name = "compression=on"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				type conn struct {
					nc net.Conn
					rd ws.Reader
				}
				all := make([]*conn, conns)
				base := liveHeap()
				for i := range all {
					c := &conn{nc: rawHandshake(b, addr, on)}
					c.rd.Reset(c.nc, ws.Client, 0)
					if on {
						c.rd.SetDeflate(ws.Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true})
					}
					all[i] = c
				}
				idle := liveHeap()
				call := ws.AppendFrame(nil, ws.OpText, []byte(`{"jsonrpc":"2.0","method":"logs","id":1}`), ws.MaskWith(3))
				for _, c := range all {
					c.nc.Write(call)
					if _, p, err := c.rd.Next(); err != nil || len(p) < len(logsResult()) {
						b.Fatalf("logs: %d bytes, %v", len(p), err)
					}
					c.rd = ws.Reader{} // the client's buffers are not the server's cost
				}
				used := liveHeap()
				b.ReportMetric(float64(idle-base)/conns, "idle-B/conn")
				b.ReportMetric(float64(used-base)/conns, "after-B/conn")
				for _, c := range all {
					c.nc.Close()
				}
			}
		})
	}
}

// rawHandshake opens a WebSocket to addr, offering permessage-deflate (as
// Node's ws does by default) when deflate is set.
func rawHandshake(tb testing.TB, addr string, deflate bool) net.Conn {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	req := "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	if deflate {
		req += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
	}
	if _, err := nc.Write([]byte(req + "\r\n")); err != nil {
		tb.Fatal(err)
	}
	hc := &ws.HandshakeConn{Conn: nc}
	resp, err := http.ReadResponse(bufio.NewReader(hc), nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols ||
		(resp.Header.Get("Sec-WebSocket-Extensions") != "") != deflate {
		tb.Fatalf("handshake: %v, %v", resp, err)
	}
	return hc
}

// liveHeap is the heap in use after a collection (two: and the pools'
// victim caches).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
