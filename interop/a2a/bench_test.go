package a2a

// NOTE: the measurements of #21 (bench.sh runs them, interleaved). Every
// server is a process of its own, started afresh for each sub-benchmark:
// jetrpc's a2a package and a2a-go v0.3.3's a2asrv (./benchserver) and
// @a2a-js/sdk 1.3.0 on Node (jsagent/server.mjs), each with the same
// instant echo agent, and "fixed", an answer of fixed bytes that shows the
// load generator's own ceiling. The load generator is this process: a
// net/http client, `clients` goroutines with a keep-alive connection each.
//
// BenchmarkSendMessage: blocking SendMessage (message/send on 0.3) calls.
// req/s; the server's CPU per call (/proc/PID/stat) and its peak resident
// memory (VmHWM); for the Go servers the runtime's allocations per call
// and bytes per call in the server process (runtime.MemStats before and
// after). Node has no allocation counter: for it, its heap in use after
// the run (process.memoryUsage().heapUsed) stands in.
// BenchmarkFirstEvent: one client, a streaming send (message/stream,
// SendStreamingMessage) at a time; first-event-us is the median time from
// the POST to its first SSE event, ns/op the whole (short) stream.

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clients is the number of concurrent clients of BenchmarkSendMessage.
const clients = 16

// wire is one of A2A's wires: its version header and the bodies of a send
// and a streaming send of "hello", and the state of a completed task.
type wire struct {
	name, version, send, stream, completed string
}

var (
	v03 = wire{"0.3", "",
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"b1","role":"user","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"b2","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`,
		`"state":"completed"`}
	v10 = wire{"1.0", "1.0",
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"b1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"b2","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`,
		`"state":"TASK_STATE_COMPLETED"`}
)

// peer is a server under test and the wires it speaks.
type peer struct {
	name  string
	wires []wire
	start func(t testing.TB, cleanup func(func())) *server
}

var peers = []peer{
	{"jetrpc", []wire{v03, v10}, goServer("jetrpc")},
	{"a2a-go", []wire{v03}, goServer("a2a-go")},
	{"a2a-js", []wire{v03, v10}, jsServer},
}

func BenchmarkSendMessage(b *testing.B) {
	all := append(slices.Clip(peers), peer{"fixed", []wire{v03}, goServer("fixed")})
	forEach(b, all, func(b *testing.B, s *server, w wire) {
		before := s.stats(b)
		cpu0 := cpuTime(s.pid())
		tr := &http.Transport{MaxIdleConnsPerHost: clients}
		defer tr.CloseIdleConnections()
		cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		var left atomic.Int64
		left.Store(int64(b.N))
		var wg sync.WaitGroup
		b.ResetTimer()
		t0 := time.Now()
		for range clients {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if !sendOnce(b, cl, s.url, w) {
						return
					}
				}
			})
		}
		wg.Wait()
		el := time.Since(t0)
		b.StopTimer()
		cpu := cpuTime(s.pid()) - cpu0
		after := s.stats(b)
		n := float64(b.N)
		b.ReportMetric(n/el.Seconds(), "req/s")
		b.ReportMetric(float64(cpu.Microseconds())/n, "server-cpu-us/op")
		b.ReportMetric(float64(peakRSS(s.pid()))/(1<<20), "server-peak-RSS-MiB")
		if s.goStats {
			b.ReportMetric(float64(after[2]-before[2])/n, "server-allocs/op")
			b.ReportMetric(float64(after[3]-before[3])/n, "server-B/op")
		} else {
			b.ReportMetric(float64(after[1])/(1<<20), "server-heap-MiB")
		}
	})
}

// sendOnce makes one call of w's send and checks that it completed.
func sendOnce(b *testing.B, cl *http.Client, url string, w wire) bool {
	req, _ := http.NewRequest("POST", url, strings.NewReader(w.send))
	req.Header.Set("Content-Type", "application/json")
	if w.version != "" {
		req.Header.Set("A2A-Version", w.version)
	}
	resp, err := cl.Do(req)
	if err != nil {
		b.Error(err)
		return false
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !strings.Contains(string(body), w.completed) {
		b.Errorf("%v: %s", err, body)
		return false
	}
	return true
}

func BenchmarkFirstEvent(b *testing.B) {
	forEach(b, peers, func(b *testing.B, s *server, w wire) {
		tr := &http.Transport{MaxIdleConnsPerHost: 2}
		defer tr.CloseIdleConnections()
		cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		firsts := make([]time.Duration, 0, b.N)
		for b.Loop() {
			t0 := time.Now()
			req, _ := http.NewRequest("POST", s.url, strings.NewReader(w.stream))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/event-stream")
			if w.version != "" {
				req.Header.Set("A2A-Version", w.version)
			}
			resp, err := cl.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			r := bufio.NewReader(resp.Body)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					b.Fatalf("no event: %v", err)
				}
				if strings.HasPrefix(line, "data:") {
					break
				}
			}
			firsts = append(firsts, time.Since(t0))
			rest, _ := io.ReadAll(r)
			resp.Body.Close()
			if !strings.Contains(string(rest), w.completed) {
				b.Fatalf("the stream did not complete: %s", rest)
			}
		}
		slices.Sort(firsts)
		b.ReportMetric(float64(firsts[len(firsts)/2].Nanoseconds())/1e3, "first-event-us")
	})
}

// forEach runs f as server=NAME/wire=W for each peer and wire, on a server
// process started for that sub-benchmark (kept over its runs of growing
// b.N, stopped when the benchmark ends).
func forEach(b *testing.B, ps []peer, f func(*testing.B, *server, wire)) {
	for _, p := range ps {
		b.Run("server="+p.name, func(b *testing.B) {
			if p.name == "a2a-js" {
				if why := jsMissing(); why != "" {
					b.Skip(why)
				}
			}
			for _, w := range p.wires {
				var s *server
				b.Run("wire="+w.name, func(sb *testing.B) {
					if s == nil {
						s = p.start(sb, b.Cleanup)
					}
					f(sb, s, w)
				})
			}
		})
	}
}
