package netserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/vectors"
)

func specVectors(t *testing.T) []vectors.Vector {
	t.Helper()
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < 20 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

// runVectors sends every vector and checks the answer. After a vector due no
// response it sends a probe call: the next frame must answer the probe.
func runVectors(t *testing.T, c *client, vs []vectors.Vector) {
	t.Helper()
	for i, v := range vs {
		c.send(v.Request)
		if !v.NoResponse() {
			if err := v.Check(c.recv()); err != nil {
				t.Errorf("%s: %v", v.Name, err)
			}
			continue
		}
		id := strconv.Quote("probe-" + strconv.Itoa(i))
		got := c.call(`{"jsonrpc":"2.0","method":"get_data","id":` + id + `}`)
		expectResult(t, got, id, `["hello",5]`)
	}
}

func TestSpecVectorsTCP(t *testing.T) {
	vs := specVectors(t)
	for _, kind := range framings {
		for _, mode := range []frame.Kind{frame.Auto, kind} {
			t.Run(kind.String()+"/server="+mode.String(), func(t *testing.T) {
				ts := startServer(t, &Options{Framing: mode})
				runVectors(t, ts.dial(t, kind), vs)
			})
		}
	}
}

func TestSpecVectorsStdio(t *testing.T) {
	vs := specVectors(t)
	for _, kind := range framings {
		for _, mode := range []frame.Kind{frame.Auto, kind} {
			t.Run(kind.String()+"/server="+mode.String(), func(t *testing.T) {
				_, c := startStdio(t, &Options{Framing: mode}, kind)
				runVectors(t, c, vs)
			})
		}
	}
}

// TestPipelining writes 10,000 calls back to back while reading; every id
// must be answered exactly once. Every seventh call runs on a worker.
func TestPipelining(t *testing.T) {
	const n = 10000
	ts := startServer(t, nil)
	c := ts.dial(t, frame.NDJSON)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bw := bufio.NewWriter(c.nc)
		for i := range n {
			var msg string
			if i%7 == 0 {
				msg = fmt.Sprintf(`{"jsonrpc":"2.0","method":"sleep","params":[0],"id":%d}`, i)
			} else {
				msg = fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[%d,1],"id":%d}`, i+1, i)
			}
			bw.WriteString(msg + "\n")
		}
		if err := bw.Flush(); err != nil {
			t.Errorf("write: %v", err)
		}
	}()
	seen := make([]bool, n)
	for range n {
		r := decodeResponse(t, c.recv())
		id, err := strconv.Atoi(string(r.ID))
		if err != nil || id < 0 || id >= n || seen[id] {
			t.Fatalf("bad or repeated id %s", r.ID)
		}
		seen[id] = true
		want := strconv.Itoa(id)
		if id%7 == 0 {
			want = "0"
		}
		if r.Error != nil || string(r.Result) != want {
			t.Fatalf("id %d: result %s error %v", id, r.Result, r.Error)
		}
	}
	wg.Wait()
}

// TestSlowCallSameConn: a slow call does not delay a later one on the same
// connection.
func TestSlowCallSameConn(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[500],"id":1}`)
	c.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`)
	expectResult(t, c.recv(), "2", "19")
	expectResult(t, c.recv(), "1", "500")
}

// TestSlowCallOtherConn: a slow call does not delay a call on another
// connection: that one is answered while the slow one is still running.
func TestSlowCallOtherConn(t *testing.T) {
	ts := startServer(t, nil)
	slow, fast := ts.dial(t, frame.NDJSON), ts.dial(t, frame.Header)
	var slowDone atomic.Bool
	got := make(chan []byte, 1)
	slow.send(`{"jsonrpc":"2.0","method":"sleep","params":[500],"id":1}`)
	go func() {
		msg, err := slow.fr.Next()
		slowDone.Store(true)
		if err != nil {
			msg = []byte(err.Error())
		}
		got <- append([]byte(nil), msg...)
	}()
	expectResult(t, fast.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`), "2", "19")
	if slowDone.Load() {
		t.Fatal("the sleep answered before the call on the other connection")
	}
	expectResult(t, <-got, "1", "500")
}

// TestNotificationOrder: notifications of a non-concurrent method run in
// arrival order.
func TestNotificationOrder(t *testing.T) {
	var mu sync.Mutex
	var got []string
	record := withMethod(recordMethod(&mu, &got))
	ts := startServer(t, nil, record)
	c := ts.dial(t, frame.NDJSON)
	const n = 100
	for i := range n {
		c.send(`{"jsonrpc":"2.0","method":"record","params":[` + strconv.Itoa(i) + `]}`)
	}
	waitFor(t, "notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == n
	})
	for i, p := range got {
		if want := "[" + strconv.Itoa(i) + "]"; p != want {
			t.Fatalf("notification %d has params %s, want %s (order: %v)", i, p, want, got)
		}
	}
}

// TestBatchOnWorker: a batch with a blocking member runs on a worker and is
// answered as one array.
func TestBatchOnWorker(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.dial(t, frame.Len32)
	got := c.call(`[{"jsonrpc":"2.0","method":"sleep","params":[10],"id":1},` +
		`{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":2},{"jsonrpc":"2.0","method":"update"}]`)
	var rs []response
	if err := json.Unmarshal(got, &rs); err != nil || len(rs) != 2 {
		t.Fatalf("got %s (%v)", got, err)
	}
}

func TestPanicMethod(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.dial(t, frame.NDJSON)
	expectError(t, c.call(`{"jsonrpc":"2.0","method":"panic","id":1}`), "1", -32603)
	expectResult(t, c.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`), "2", "19")
}

// TestUnixSocket: Serve takes any net.Listener.
func TestUnixSocket(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, &Options{IdleTimeout: time.Minute})
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "jetrpc.sock"))
	if err != nil {
		t.Skip("no unix sockets:", err)
	}
	ts := &testServer{Server: s, addr: ln.Addr().String(), serve: make(chan error, 1)}
	go func() { ts.serve <- s.Serve(ln) }()
	t.Cleanup(func() { ts.shutdown(t) })
	nc, err := net.Dial("unix", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := &client{t: t, kind: frame.Header, w: nc, nc: nc, fr: frame.NewReader(nc, frame.Header, 0)}
	expectResult(t, c.call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`), "2", "19")
}
