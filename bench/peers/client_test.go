package peers_test

// NOTE: BenchmarkClient measures clients only. The server is the jetrpc
// binary ("jetrpc serve"), built and started once in a child process the
// first time a benchmark needs it and stopped (SIGTERM, then wait) by
// TestMain when the test binary ends, so B/op and allocs/op are the
// client's alone; ns/op is the whole round trip, server included, and
// cpu-ns/op the CPU time this process (the client) spent per call. Every
// client calls the same server on the same loopback ports.
//
// Names are BenchmarkClient/transport=T/case=C/client=K, so that
// `benchstat -col /client -row /transport,/case` lines the clients up:
//
//   - transport: tcp (one call at a time on one NDJSON connection),
//     tcp-pipelined (b.RunParallel, SetParallelism(16): 32 goroutines on
//     2 cores sharing one client and one connection; calls/s reported),
//     http (one call at a time, keep-alive POSTs), ws (one call at a time
//     on one WebSocket: GET /ws on the server's HTTP listener, each message
//     one text message), ws-pipelined (as tcp-pipelined, on one WebSocket).
//   - case: subtract ([42,23]), echo (about 1 KiB object as the one
//     positional param, the object of bench.Cases' "large").
//   - client: floor (no client: the request line written and the answer
//     line read on a bare connection, or over ws the request written as a
//     text message and the answer message read on a bare fasthttp/websocket
//     connection; tcp and ws, one call at a time), callraw (jetrpc CallRaw:
//     raw params, raw result appended to a reused buffer), call (jetrpc
//     Call: Go params, a value held in an interface (boxed once, not per
//     call), the result decoded into a reused json.RawMessage, which costs
//     a copy of its bytes, one allocation), geth (go-ethereum rpc.Client.CallContext: Go
//     args marshalled by encoding/json, the result into a reused
//     json.RawMessage; over ws rpc.DialWebsocket), typed (jetrpc Call the
//     way a user writes it: params a pointer to a Go struct, the result
//     decoded into a reused Go value, an int for subtract and a struct for
//     echo), geth-typed (geth's CallContext with the same Go result and its
//     args by position, as geth sends them). call and geth do the same
//     work, and so do typed and geth-typed (except that subtract's params
//     go by name for typed, {"minuend":42,"subtrahend":23}, by position
//     for geth-typed).
//
// client_bench.sh runs it the way BENCHMARKS.md reports it: ten passes of
// -count=1, so that a slow minute of a shared machine falls on every
// client alike.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/fasthttp/websocket"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/client"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopChild()
	os.Exit(code)
}

// largeObject is the params object of bench.Cases' "large", typed.
type largeObject struct {
	Items []struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		Price float64  `json:"price"`
		Tags  []string `json:"tags"`
		OK    bool     `json:"ok"`
	} `json:"items"`
	Note string `json:"note"`
}

// subArgs are subtract's params by name, the typed row's params.
type subArgs struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

// rpcCase is one call as each client sends it; all put the same params on
// the wire (geth sends its args as an array), but for typed subtract's.
type rpcCase struct {
	name, method string
	raw          []byte     // CallRaw's params
	typed        any        // Call's params, a value
	params       any        // the typed row's params, a pointer
	args         []any      // geth's args
	result       func() any // a new pointer to the typed rows' Go result
	want         string     // the result, compared as JSON
}

func rpcCases(tb testing.TB) []rpcCase {
	var large struct{ Params json.RawMessage }
	for _, c := range bench.Cases() {
		if c.Name == "large" {
			if err := json.Unmarshal(c.Msg, &large); err != nil {
				tb.Fatal(err)
			}
		}
	}
	var obj largeObject
	if err := json.Unmarshal(large.Params, &obj); err != nil || len(obj.Items) == 0 {
		tb.Fatalf("large params %s: %v", large.Params, err)
	}
	echo := "[" + string(large.Params) + "]"
	return []rpcCase{
		{"subtract", "subtract", []byte(`[42,23]`), [2]int{42, 23}, &subArgs{42, 23}, []any{42, 23},
			func() any { return new(int) }, `19`},
		{"echo", "echo", []byte(echo), [1]largeObject{obj}, &[1]largeObject{obj}, []any{obj},
			func() any { return new([1]largeObject) }, echo},
	}
}

// caller makes one call and returns its raw result, valid until its next
// call. Each goroutine gets its own (its own buffers).
type caller func() ([]byte, error)

// dialed is one client under test, connected.
type dialed struct {
	caller   func(c rpcCase) caller
	close    func()
	response bool // the caller returns the whole response, not the result
	// check, for a client whose caller decodes into a Go value and returns
	// no bytes, makes one call and returns its result encoded as JSON.
	check func(c rpcCase) ([]byte, error)
}

// typedDialed is a client that decodes each result into a Go value (a new
// rc.result per caller).
func typedDialed(call func(rc rpcCase, res any) error, close func()) dialed {
	return dialed{
		caller: func(rc rpcCase) caller {
			res := rc.result()
			return func() ([]byte, error) { return nil, call(rc, res) }
		},
		close: close,
		check: func(rc rpcCase) ([]byte, error) {
			res := rc.result()
			if err := call(rc, res); err != nil {
				return nil, err
			}
			return json.Marshal(res)
		},
	}
}

// clientKind dials one client over transport "tcp", "http" or "ws". A
// floor runs only one call at a time, over TCP or WebSocket.
type clientKind struct {
	name  string
	floor bool
	dial  func(tb testing.TB, transport string, s *childServer) dialed
}

var bg = context.Background() // uncancellable: jetrpc's HTTP CallRaw then runs the POST inline

// httpIdle keeps jetrpc's keep-alive connections as long as net/http's
// default transport (geth's) keeps its own.
var httpIdle = &client.Options{IdleTimeout: 90 * time.Second}

func dialJetrpc(tb testing.TB, transport string, s *childServer) *client.Client {
	var c *client.Client
	var err error
	switch transport {
	case "http":
		c, err = client.DialHTTP("http://"+s.http+"/", httpIdle)
	case "ws":
		c, err = client.DialWebSocket(bg, wsURL(s), nil)
	default:
		c, err = client.Dial(bg, "tcp", s.tcp, nil)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// wsURL is where the server serves WebSocket: GET /ws on its HTTP listener.
func wsURL(s *childServer) string { return "ws://" + s.http + "/ws" }

var clientKinds = []clientKind{
	// floor is no client: the request line written and the response line
	// read on a bare connection. What a client adds is the difference.
	{"floor", true, func(tb testing.TB, transport string, s *childServer) dialed {
		if transport == "ws" {
			return dialWSFloor(tb, s)
		}
		conn, err := net.Dial("tcp", s.tcp)
		if err != nil {
			tb.Fatal(err)
		}
		r := bufio.NewReader(conn)
		return dialed{caller: func(rc rpcCase) caller {
			req := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + rc.method + `","params":` + string(rc.raw) + "}\n")
			return func() ([]byte, error) {
				if _, err := conn.Write(req); err != nil {
					return nil, err
				}
				return r.ReadSlice('\n')
			}
		}, close: func() { conn.Close() }, response: true}
	}},
	{"callraw", false, func(tb testing.TB, transport string, s *childServer) dialed {
		c := dialJetrpc(tb, transport, s)
		return dialed{caller: func(rc rpcCase) caller {
			dst := make([]byte, 0, 2048)
			return func() (res []byte, err error) {
				dst, err = c.CallRaw(bg, dst[:0], rc.method, rc.raw)
				return dst, err
			}
		}, close: func() { c.Close() }}
	}},
	{"call", false, func(tb testing.TB, transport string, s *childServer) dialed {
		c := dialJetrpc(tb, transport, s)
		return dialed{caller: func(rc rpcCase) caller {
			var res json.RawMessage
			return func() ([]byte, error) { return res, c.Call(bg, rc.method, rc.typed, &res) }
		}, close: func() { c.Close() }}
	}},
	{"geth", false, func(tb testing.TB, transport string, s *childServer) dialed {
		g, closeAll := dialGeth(tb, transport, s)
		return dialed{caller: func(rc rpcCase) caller {
			var res json.RawMessage
			return func() ([]byte, error) { return res, g.CallContext(bg, &res, rc.method, rc.args...) }
		}, close: closeAll}
	}},
	{"typed", false, func(tb testing.TB, transport string, s *childServer) dialed {
		c := dialJetrpc(tb, transport, s)
		return typedDialed(func(rc rpcCase, res any) error {
			return c.Call(bg, rc.method, rc.params, res)
		}, func() { c.Close() })
	}},
	{"geth-typed", false, func(tb testing.TB, transport string, s *childServer) dialed {
		g, closeAll := dialGeth(tb, transport, s)
		return typedDialed(func(rc rpcCase, res any) error {
			return g.CallContext(bg, res, rc.method, rc.args...)
		}, closeAll)
	}},
}

// dialGeth dials go-ethereum's client and returns it with its close.
func dialGeth(tb testing.TB, transport string, s *childServer) (*rpc.Client, func()) {
	var g *rpc.Client
	var err error
	switch transport {
	case "http":
		g, err = rpc.DialHTTP("http://" + s.http + "/")
	case "ws":
		g, err = rpc.DialWebsocket(bg, wsURL(s), "")
	default:
		conn, err := net.Dial("tcp", s.tcp)
		if err != nil {
			tb.Fatal(err)
		}
		if g, err = rpc.DialIO(bg, conn, conn); err != nil {
			tb.Fatal(err)
		}
		// DialIO's Close waits for the read loop and does not close the
		// stream: close the connection first.
		return g, func() { conn.Close(); g.Close() }
	}
	if err != nil {
		tb.Fatal(err)
	}
	return g, g.Close
}

// dialWSFloor is the WebSocket floor: the request written as one text
// message and the answer message read into a reused buffer, on a bare
// fasthttp/websocket connection (one goroutine).
func dialWSFloor(tb testing.TB, s *childServer) dialed {
	ws, _, err := websocket.DefaultDialer.DialContext(bg, wsURL(s), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return dialed{caller: func(rc rpcCase) caller {
		req := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + rc.method + `","params":` + string(rc.raw) + "}")
		buf := make([]byte, 0, 2048)
		return func() ([]byte, error) {
			if err := ws.WriteMessage(websocket.TextMessage, req); err != nil {
				return nil, err
			}
			_, r, err := ws.NextReader()
			if err != nil {
				return nil, err
			}
			buf = buf[:0]
			for {
				if len(buf) == cap(buf) {
					buf = append(buf, 0)[:len(buf)]
				}
				n, err := r.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err == io.EOF {
					return buf, nil
				}
				if err != nil {
					return nil, err
				}
			}
		}
	}, close: func() { ws.Close() }, response: true}
}

// warm makes a few calls and checks the last answer.
func warm(tb testing.TB, d dialed, rc rpcCase) {
	call := d.caller(rc)
	var res []byte
	var err error
	for range 100 {
		if res, err = call(); err != nil {
			tb.Fatalf("%s: %v", rc.name, err)
		}
	}
	if d.check != nil {
		if res, err = d.check(rc); err != nil {
			tb.Fatalf("%s: %v", rc.name, err)
		}
	}
	if d.response {
		var resp struct{ Result json.RawMessage }
		if err := json.Unmarshal(res, &resp); err != nil {
			tb.Fatalf("%s: response %s: %v", rc.name, res, err)
		}
		res = resp.Result
	}
	var got, want any
	if err := json.Unmarshal(res, &got); err != nil {
		tb.Fatalf("%s: result %s: %v", rc.name, res, err)
	}
	json.Unmarshal([]byte(rc.want), &want)
	if !reflect.DeepEqual(got, want) {
		tb.Fatalf("%s: result %s, want %s", rc.name, res, rc.want)
	}
}

// BenchmarkClient: jetrpc's client (CallRaw, Call, typed) beside go-ethereum's,
// against one jetrpc server in a child process (see the NOTE at the top).
func BenchmarkClient(b *testing.B) {
	s := jetrpcServer(b)
	cases := rpcCases(b)
	for _, tr := range []struct {
		name, dial string
		par        bool
	}{
		{"tcp", "tcp", false}, {"tcp-pipelined", "tcp", true}, {"http", "http", false},
		{"ws", "ws", false}, {"ws-pipelined", "ws", true},
	} {
		b.Run("transport="+tr.name, func(b *testing.B) {
			clients := make([]dialed, len(clientKinds))
			for i, k := range clientKinds {
				if k.floor && (tr.par || tr.dial == "http") {
					continue
				}
				clients[i] = k.dial(b, tr.dial, s)
				defer clients[i].close()
			}
			for _, rc := range cases {
				for i, k := range clientKinds {
					d := clients[i]
					if d.caller == nil {
						continue
					}
					warm(b, d, rc)
					b.Run("case="+rc.name+"/client="+k.name, func(b *testing.B) {
						if tr.par {
							benchPipelined(b, d, rc)
						} else {
							benchRoundTrip(b, d.caller(rc))
						}
					})
				}
			}
		})
	}
}

func benchRoundTrip(b *testing.B, call caller) {
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := call(); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// benchPipelined: 16 goroutines per core share one client; calls/s is
// b.N over the wall time.
func benchPipelined(b *testing.B, d dialed, rc rpcCase) {
	b.ReportAllocs()
	b.SetParallelism(16)
	cpu := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		call := d.caller(rc)
		for pb.Next() {
			if _, err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportCPU(b, cpu)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// cpuTime is the CPU time (user + system) this process has used so far:
// the client's and the benchmark's, never the child server's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per call since start as
// cpu-ns/op: what one call costs the client, without the time it waits for
// the server and the scheduler.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// childServer is "jetrpc serve" running in a child process.
type childServer struct {
	tcp, http string
	dir       string // holds the binary when this package built it
	cmd       *exec.Cmd
	log       bytes.Buffer  // its stderr; read only after eof
	eof       chan struct{} // closed when stderr has been read to its end
}

var (
	childOnce sync.Once
	child     *childServer
	childErr  error
)

// jetrpcServer starts the child server on first use.
func jetrpcServer(tb testing.TB) *childServer {
	childOnce.Do(func() { child, childErr = startChild() })
	if childErr != nil {
		tb.Fatal(childErr)
	}
	return child
}

// startChild builds cmd/jetrpc from the module root (unless $JETRPC_BIN
// names a binary) and runs "jetrpc serve" on free loopback ports with no
// idle timeout, then reads its listening lines.
func startChild() (*childServer, error) {
	s := &childServer{eof: make(chan struct{})}
	bin := os.Getenv("JETRPC_BIN")
	if bin == "" {
		var err error
		if s.dir, err = os.MkdirTemp("", "jetrpc-client-bench-"); err != nil {
			return nil, err
		}
		bin = filepath.Join(s.dir, "jetrpc")
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			os.RemoveAll(s.dir)
			return nil, err
		}
		build := exec.Command("go", "build", "-o", bin, "github.com/jetrpc/jetrpc/cmd/jetrpc")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			os.RemoveAll(s.dir)
			return nil, fmt.Errorf("building jetrpc: %v\n%s", err, out)
		}
	}
	s.cmd = exec.Command(bin, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--idle-timeout", "0")
	stderr, err := s.cmd.StderrPipe()
	if err == nil {
		err = s.cmd.Start()
	}
	if err != nil {
		os.RemoveAll(s.dir)
		return nil, err
	}
	child = s // stopChild cleans up from here on, whatever happens
	lines := make(chan string, 2)
	go func() {
		defer close(s.eof)
		sc := bufio.NewScanner(stderr)
		for n := 0; n < 2 && sc.Scan(); n++ {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(&s.log, stderr)
	}()
	timeout := time.After(30 * time.Second)
	for s.tcp == "" || s.http == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				return s, errors.New("jetrpc serve ended before listening")
			}
			switch f := strings.Fields(line); {
			case len(f) == 3 && f[0] == "listening" && f[1] == "tcp":
				s.tcp = f[2]
			case len(f) == 3 && f[0] == "listening" && f[1] == "http":
				s.http = f[2]
			default:
				return s, fmt.Errorf("jetrpc serve: unexpected line %q", line)
			}
		case <-timeout:
			return s, errors.New("jetrpc serve: no listening lines within 30s")
		}
	}
	return s, nil
}

// stopChild stops the child server, if one was started: SIGTERM, then a
// kill if it has not exited within 15s (its shutdown grace is 10s).
func stopChild() {
	s := child
	if s == nil {
		return
	}
	defer os.RemoveAll(s.dir)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.eof:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.eof
	}
	if err := s.cmd.Wait(); err != nil {
		fmt.Fprintf(os.Stderr, "jetrpc serve: %v\n%s", err, s.log.String())
	}
}
