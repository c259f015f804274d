package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// logsService is go-ethereum's side: eth_getLogs answers the same 64 KiB
// as jetrpc's handler.
type logsService struct{ logs json.RawMessage }

func (s *logsService) GetLogs(filter json.RawMessage) json.RawMessage { return s.logs }

// BenchmarkCompressLogs: a 64 KiB eth_getLogs-like result (demo.Logs) over
// HTTP, from jetrpc's HTTP server and from go-ethereum's (rpc.Server behind
// node.NewHTTPHandlerStack, its gzip handler), compression off and on, with
// one client for all four: jetrpc's (client.DialHTTP) with 16 callers on
// keep-alive connections. It reports calls/s, p99 and the response bytes
// read off the socket per call (headers included; measured with Go's
// net/http client, which asks for gzip only when compression is on), and
// the CPU time per call of client and server together (the measure a
// loaded machine does not blur). Both servers run in this process,
// as the client does. Interleave the four by running the command in a loop:
//
//	cd interop/go && for i in 1 2 3 4 5 6; do go test -run '^$' -bench CompressLogs -benchtime 2000x; done
func BenchmarkCompressLogs(b *testing.B) {
	logs := demo.Logs(64 << 10)
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(e.Close)
	if err := e.Register("eth_getLogs", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, logs...), nil
	})); err != nil {
		b.Fatal(err)
	}
	gsrv := rpc.NewServer()
	b.Cleanup(gsrv.Stop)
	if err := gsrv.RegisterName("eth", &logsService{logs: logs}); err != nil {
		b.Fatal(err)
	}
	for _, gz := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "gzip"}[gz]
		b.Run("jetrpc/"+name, func(b *testing.B) {
			min := -1
			if gz {
				min = 0 // the default threshold (1 KiB)
			}
			s := nethttp.New(e, &netserver.Options{CompressMin: min})
			url := serveOn(b, s.Serve, func() { s.Shutdown(context.Background()) })
			runLogs(b, url, gz, len(logs))
		})
		b.Run("geth/"+name, func(b *testing.B) {
			h := node.NewHTTPHandlerStack(gsrv, nil, []string{"*"}, nil, !gz)
			hs := &http.Server{Handler: h}
			url := serveOn(b, hs.Serve, func() { hs.Close() })
			runLogs(b, url, gz, len(logs))
		})
	}
}

// serveOn runs serve on a loopback port until the benchmark ends.
func serveOn(b *testing.B, serve func(net.Listener) error, stop func()) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go serve(ln)
	b.Cleanup(stop)
	return "http://" + ln.Addr().String() + "/"
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// wirePerCall is the response bytes read off the socket per call
// (headers included), over 16 calls with Go's net/http client, which asks
// for gzip when gz is set; it checks each answer decodes to size bytes or
// more.
func wirePerCall(b *testing.B, url string, gz bool, size int) float64 {
	var read atomic.Int64
	tr := &http.Transport{
		DisableCompression: !gz,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{c, &read}, nil
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	const calls = 16
	for range calls {
		resp, err := client.Post(url, "application/json", bytes.NewReader(logsCall))
		if err != nil {
			b.Fatal(err)
		}
		all, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(all) < size || resp.Uncompressed != gz {
			b.Fatalf("status %d, %d bytes, gzip %v, %v: %.200s", resp.StatusCode, len(all), resp.Uncompressed, err, all)
		}
	}
	return float64(read.Load()) / calls
}

var logsCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x121eac0"}]}`)

// runLogs makes b.N calls of eth_getLogs from 16 callers with jetrpc's
// client (client.DialHTTP: it asks for gzip and inflates with klauspost's
// decoder; the same client for both servers, and a light one, so that the
// servers' costs show) and reports calls/s, p99 and the bytes on the wire
// per call (wirePerCall).
func runLogs(b *testing.B, url string, gz bool, size int) {
	const callers = 16
	wire := wirePerCall(b, url, gz, size)
	c, err := client.DialHTTP(url, &client.Options{MaxMessage: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	params := []byte(`[{"fromBlock":"0x121eac0"}]`)
	var (
		mu   sync.Mutex
		lats []time.Duration
		next = make(chan struct{}, callers)
		wg   sync.WaitGroup
	)
	cpu0 := cpuTime()
	b.ResetTimer()
	start := time.Now()
	for range callers {
		wg.Go(func() {
			var mine []time.Duration
			dst := make([]byte, 0, 128<<10)
			for range next {
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				dst, err = c.CallRaw(ctx, dst[:0], "eth_getLogs", params)
				cancel()
				if err != nil || len(dst) < size {
					b.Errorf("eth_getLogs: %d bytes, %v", len(dst), err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		})
	}
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	if len(lats) == 0 {
		return
	}
	slices.Sort(lats)
	b.ReportMetric(float64(len(lats))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(lats[len(lats)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(wire, "wire-B/call")
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(lats)), "cpu-µs/call")
}

// cpuTime is the CPU time (user and system) this process has used: per
// call, it is what a loaded machine does not blur (client and server
// together; the client is the same for both servers).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
