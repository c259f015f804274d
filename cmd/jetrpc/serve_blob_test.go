package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/client"
)

// rssKiB reads a field (VmRSS, VmHWM) of /proc/PID/status in KiB.
func rssKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// rssPeak samples the process's VmRSS every 5 ms until stopped and
// returns the highest.
type rssPeak struct {
	max  atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func watchRSS(t *testing.T, pid int) *rssPeak {
	p := &rssPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := rssKiB(t, pid, "VmRSS"); v > p.max.Load() {
				p.max.Store(v)
			}
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *rssPeak) end() int64 {
	close(p.stop)
	<-p.done
	return p.max.Load()
}

// xs is what a blob's body must be, a read at a time.
var xs = bytes.Repeat([]byte{'x'}, 256<<10)

// readBlob reads one response to a blob call with id 1 from r, streaming:
// the head, n "x" bytes, the tail; it returns when the head came.
func readBlob(r io.Reader, n int, head func()) error {
	br := bufio.NewReaderSize(r, 256<<10)
	want := `{"jsonrpc":"2.0","id":1,"result":"`
	got := make([]byte, len(want))
	if _, err := io.ReadFull(br, got); err != nil || string(got) != want {
		return errors.New("head " + strconv.Quote(string(got)) + ": " + errString(err))
	}
	head()
	left := n
	for left > 0 {
		b, err := br.Peek(min(left, br.Size()))
		if len(b) == 0 {
			return errors.New("body: " + strconv.Itoa(n-left) + " bytes, then " + errString(err))
		}
		if !bytes.Equal(b, xs[:len(b)]) {
			return errors.New("body: a byte other than x near " + strconv.Itoa(n-left))
		}
		br.Discard(len(b))
		left -= len(b)
	}
	tail, _ := io.ReadAll(io.LimitReader(br, 3))
	if !bytes.HasPrefix(tail, []byte(`"}`)) {
		return errors.New("tail " + strconv.Quote(string(tail)))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// TestBinaryBlob: `blob` of blobSize (1 GiB without -race) over NDJSON
// TCP, HTTP (chunked) and WebSocket against the built binary. The client
// gets exactly n x bytes inside a valid response; the server's RSS stays
// within a few tens of MiB of idle throughout; and the first bytes arrive
// while the handler cannot have finished: the client stops reading after
// the head, and the server holds well under the result meanwhile (had it
// produced the result before sending, it would hold all of it). It logs
// time to first byte, throughput and peak RSS (BENCHMARKS.md).
func TestBinaryBlob(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--max-response", "1000000")
	addrs := p.stderr.listening(t, "tcp", "http")
	pid := p.cmd.Process.Pid
	const slack = 48 << 10 // KiB: "a few tens of MiB"
	call := `{"jsonrpc":"2.0","method":"blob","params":[` + strconv.Itoa(blobSize) + `],"id":1}`
	run := func(name string, open func() (io.Reader, func())) {
		t.Helper()
		idle := rssKiB(t, pid, "VmRSS")
		w := watchRSS(t, pid)
		start := time.Now()
		r, closeFn := open()
		defer closeFn()
		var ttfb time.Duration
		err := readBlob(r, blobSize, func() {
			ttfb = time.Since(start)
			time.Sleep(200 * time.Millisecond) // the client pauses: the server must wait
			if held := rssKiB(t, pid, "VmRSS") - idle; held > slack {
				t.Errorf("%s: the server holds %d KiB more than idle while the client pauses", name, held)
			}
		})
		total := time.Since(start) - 200*time.Millisecond
		peak := w.end()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if extra := peak - idle; extra > slack {
			t.Errorf("%s: peak RSS %d KiB over idle %d KiB", name, extra, idle)
		}
		t.Logf("%-9s n=%d  ttfb %v  %.0f MiB/s  peak RSS %d MiB (idle %d MiB, +%d MiB)", name, blobSize, ttfb,
			float64(blobSize)/(1<<20)/total.Seconds(), peak>>10, idle>>10, (peak-idle)>>10)
	}
	run("ndjson", func() (io.Reader, func()) {
		nc, err := net.Dial("tcp", addrs["tcp"])
		if err != nil {
			t.Fatal(err)
		}
		nc.SetDeadline(time.Now().Add(5 * time.Minute))
		io.WriteString(nc, call+"\n")
		return nc, func() { nc.Close() }
	})
	post := func(name, acceptEncoding string) (io.Reader, func()) {
		req, err := http.NewRequest("POST", "http://"+addrs["http"]+"/", strings.NewReader(call))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if acceptEncoding != "" { // else Go's transport asks for gzip and inflates it
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
			t.Errorf("%s: Transfer-Encoding %v, want chunked", name, resp.TransferEncoding)
		}
		if gz := acceptEncoding == ""; resp.Uncompressed != gz || (!gz && resp.Header.Get("Content-Encoding") != "") {
			t.Errorf("%s: came gzip-coded %v (Content-Encoding %q), want %v", name, resp.Uncompressed,
				resp.Header.Get("Content-Encoding"), gz)
		}
		return resp.Body, func() { resp.Body.Close() }
	}
	run("http", func() (io.Reader, func()) { return post("http", "identity") })
	run("http-gzip", func() (io.Reader, func()) { return post("http-gzip", "") })
	run("websocket", func() (io.Reader, func()) {
		c, resp, err := websocket.DefaultDialer.Dial("ws://"+addrs["http"]+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		c.SetReadLimit(-1)
		c.WriteMessage(websocket.TextMessage, []byte(call))
		_, r, err := c.NextReader()
		if err != nil {
			t.Fatal(err)
		}
		return r, func() { c.Close() }
	})
}

// blobWriter checks a blob's result as client.CallTo writes it: a quote,
// x bytes, a quote. Every 16 MiB it samples the heap in use.
type blobWriter struct {
	n, other    int  // bytes, bytes other than x
	first, last byte // the first and the last byte
	head        func()
	next        int    // n at the next sample
	peak        uint64 // the most HeapInuse sampled
}

var xByte = []byte{'x'}

func (w *blobWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if w.n == 0 {
		w.head()
		w.first = p[0]
	}
	w.n += len(p)
	w.other += len(p) - bytes.Count(p, xByte)
	w.last = p[len(p)-1]
	if w.n >= w.next {
		w.next = w.n + 16<<20
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.peak = max(w.peak, ms.HeapInuse)
	}
	return len(p), nil
}

// TestBinaryBlobClient: client.CallTo reads blob of blobSize from the
// binary into an io.Writer, with the client's default MaxMessage (4 MiB),
// over TCP (NDJSON), HTTP plain and gzip-coded (the server codes the
// stream on the fly) and WebSocket: exactly n bytes in quotes, the
// client's heap in use within a few tens of MiB of what it was before,
// and the client's other calls answered while the blob streams and
// afterwards.
func TestBinaryBlobClient(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := p.stderr.listening(t, "tcp", "http")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const slack = 40 << 20
	run := func(name string, c *client.Client, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(name, err)
		}
		defer c.Close()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.HeapInuse
		stop := make(chan struct{})
		others := make(chan error, 1)
		go func() { // other calls while the blob streams
			var err error
			for err == nil {
				var out []byte
				if out, err = c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`)); err == nil && string(out) != "2" {
					err = errors.New("subtract: " + string(out))
				}
				select {
				case <-stop:
					others <- err
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			others <- err
		}()
		start := time.Now()
		var ttfb time.Duration
		w := &blobWriter{head: func() { ttfb = time.Since(start) }}
		err = c.CallTo(ctx, w, "blob", []byte("["+strconv.Itoa(blobSize)+"]"))
		total := time.Since(start)
		close(stop)
		if err != nil {
			t.Fatal(name, err)
		}
		if err := <-others; err != nil {
			t.Errorf("%s: a call while the blob streamed: %v", name, err)
		}
		if w.n != blobSize+2 || w.other != 2 || w.first != '"' || w.last != '"' {
			t.Fatalf("%s: got %d bytes, %d not x, first %q last %q; want %d", name, w.n, w.other, w.first, w.last, blobSize+2)
		}
		if w.peak > before+slack {
			t.Errorf("%s: the client's heap in use went from %d KiB to %d KiB", name, before>>10, w.peak>>10)
		}
		out, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`))
		if err != nil || string(out) != "2" {
			t.Fatalf("%s: next call: %s %v", name, out, err)
		}
		t.Logf("client.CallTo %-9s n=%d  ttfb %v  %.0f MiB/s  heap in use %d -> %d MiB", name, blobSize, ttfb,
			float64(blobSize)/(1<<20)/total.Seconds(), before>>20, w.peak>>20)
	}
	c, err := client.Dial(ctx, "tcp", addrs["tcp"], nil)
	run("ndjson", c, err)
	c, err = client.DialHTTP("http://"+addrs["http"]+"/", &client.Options{CompressMin: -1})
	run("http", c, err)
	c, err = client.DialHTTP("http://"+addrs["http"]+"/", nil)
	run("http-gzip", c, err)
	c, err = client.DialWebSocket(ctx, "ws://"+addrs["http"]+"/ws", nil)
	run("websocket", c, err)
}

// TestBinaryMaxResponse: with --max-response, a response over it is the
// error -32000 with the call's id and the next call on the connection is
// answered (NDJSON); a blob over it is refused where the framing needs the
// length first (len32, Content-Length), since there it must be held.
func TestBinaryMaxResponse(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "", "--max-response", "100000")
	addr := p.stderr.listening(t, "tcp")["tcp"]
	tooLarge := func(raw []byte, id string) {
		t.Helper()
		var r struct {
			ID    json.RawMessage
			Error *struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal(raw, &r); err != nil || string(r.ID) != id || r.Error == nil ||
			r.Error.Code != -32000 || r.Error.Message != "Response too large" {
			t.Fatalf("want -32000 with id %s, got %.200s", id, raw)
		}
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(nc)
	io.WriteString(nc, `{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("z", 200000)+`"],"id":"big"}`+"\n")
	io.WriteString(nc, `{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":2}`+"\n")
	line, _ := br.ReadBytes('\n')
	tooLarge(line, `"big"`)
	if line, _ = br.ReadBytes('\n'); string(line) != `{"jsonrpc":"2.0","id":2,"result":2}`+"\n" {
		t.Fatalf("next call: %q", line)
	}
	for _, framing := range []string{"len32", "header"} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		msg := []byte(`{"jsonrpc":"2.0","method":"blob","params":[5000000],"id":3}`)
		cr := bufio.NewReader(c)
		var resp []byte
		if framing == "len32" {
			c.Write(binary.BigEndian.AppendUint32(nil, uint32(len(msg))))
			c.Write(msg)
			var n [4]byte
			io.ReadFull(cr, n[:])
			resp = make([]byte, binary.BigEndian.Uint32(n[:]))
			io.ReadFull(cr, resp)
		} else {
			io.WriteString(c, "Content-Length: "+strconv.Itoa(len(msg))+"\r\n\r\n"+string(msg))
			hdr, _ := cr.ReadString('\n')
			cr.ReadString('\n')
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hdr, "Content-Length:")))
			resp = make([]byte, n)
			io.ReadFull(cr, resp)
		}
		tooLarge(resp, `3`)
	}
}
