package nethttp_test

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz/bombtest"
	"github.com/jetrpc/jetrpc/internal/httpz/fasthttpz"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

func TestHTTPCompress(t *testing.T)      { httpSuiteCompress(t, startFastHTTP) }
func TestStdCompress(t *testing.T)       { httpSuiteCompress(t, startStdHTTP) }
func TestHTTPCompressOff(t *testing.T)   { httpSuiteCompressOff(t, startFastHTTP) }
func TestStdCompressOff(t *testing.T)    { httpSuiteCompressOff(t, startStdHTTP) }
func TestHTTPRequestCoding(t *testing.T) { httpSuiteRequestCoding(t, startFastHTTP) }
func TestStdRequestCoding(t *testing.T)  { httpSuiteRequestCoding(t, startStdHTTP) }
func TestHTTPBomb(t *testing.T)          { httpSuiteBomb(t, startFastHTTP) }
func TestStdBomb(t *testing.T)           { httpSuiteBomb(t, startStdHTTP) }

// echoCall is a call of echo whose answer is about n bytes.
func echoCall(n int) string {
	return `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("ab", n/2) + `"],"id":7}`
}

// send POSTs (or GETs, for a nil body) with the header lines hdr ("Name:
// value" each), with Go's transparent gzip off, and reads the raw reply.
func (h *httpTarget) send(path string, body []byte, hdr ...string) httpReply {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	method := http.MethodPost
	if body == nil {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for _, l := range hdr {
		k, v, _ := strings.Cut(l, ":")
		req.Header.Add(k, strings.TrimSpace(v))
	}
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity") // Go's transport would ask for gzip
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}
}

// decoded is the reply's body decoded from its Content-Encoding.
func (r httpReply) decoded(t *testing.T) []byte {
	t.Helper()
	var rd io.Reader
	var err error
	switch ce := r.header.Get("Content-Encoding"); ce {
	case "":
		return r.body
	case "gzip":
		rd, err = gzip.NewReader(bytes.NewReader(r.body))
	case "deflate":
		rd, err = zlib.NewReader(bytes.NewReader(r.body))
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// httpSuiteCompress: answers of at least CompressMin bytes come gzip- or
// deflate-coded as Accept-Encoding allows, decoding to the bytes of the
// plain answer; smaller ones, refusals and 204s come plain; each answer
// that could have been coded says Vary: Accept-Encoding.
func httpSuiteCompress(t *testing.T, start httpStart) {
	doc := []byte(`{"openrpc":"1.3.2","info":{"title":"` + strings.Repeat("t", 4096) + `"}}`)
	h := start(t, &netserver.Options{Documents: map[string]func() ([]byte, error){
		"/openrpc.json": func() ([]byte, error) { return doc, nil }}})
	big, small := []byte(echoCall(4096)), []byte(echoCall(100))
	plain := h.send("", big)
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" || len(plain.body) < 4096 {
		t.Fatalf("plain: %d %v %d bytes", plain.status, plain.header, len(plain.body))
	}
	f := func(name string, body []byte, accept, wantCE string) {
		t.Helper()
		r := h.send("", body, "Accept-Encoding: "+accept)
		if r.status != 200 || r.header.Get("Content-Encoding") != wantCE {
			t.Errorf("%s: %d Content-Encoding %q, want 200 %q", name, r.status, r.header.Get("Content-Encoding"), wantCE)
		}
		if got := r.header.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
			t.Errorf("%s: Vary %q", name, got)
		}
		want := h.send("", body).body
		if got := r.decoded(t); !bytes.Equal(got, want) {
			t.Errorf("%s: decoded %d bytes differ from the plain %d", name, len(got), len(want))
		}
		if wantCE != "" && len(r.body) >= len(want) {
			t.Errorf("%s: %d bytes coded, %d plain", name, len(r.body), len(want))
		}
		if r.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", name, r.header.Get("Content-Type"))
		}
	}
	f("gzip", big, "gzip", "gzip")
	f("browser", big, "gzip, deflate, br, zstd", "gzip")
	f("deflate", big, "deflate", "deflate")
	f("deflate preferred", big, "gzip;q=0.5, deflate", "deflate")
	f("gzip refused", big, "gzip;q=0, deflate;q=0", "")
	f("star refused", big, "*;q=0", "")
	f("identity only", big, "identity", "")
	f("br only", big, "br", "")
	f("below the threshold", small, "gzip", "")
	f("batch", []byte(`[`+echoCall(2048)+`,`+echoCall(2048)+`]`), "gzip", "gzip")

	r := h.send("", []byte(`{"jsonrpc":"2.0","method":"update","params":[1]}`), "Accept-Encoding: gzip")
	if r.status != http.StatusNoContent || r.header.Get("Content-Encoding") != "" || len(r.body) != 0 {
		t.Errorf("notification: %d %q %q", r.status, r.header.Get("Content-Encoding"), r.body)
	}
	r = h.send("openrpc.json", nil, "Accept-Encoding: gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" || !bytes.Equal(r.decoded(t), doc) {
		t.Errorf("GET /openrpc.json: %d %q, %d bytes", r.status, r.header.Get("Content-Encoding"), len(r.body))
	}
	if r := h.send("openrpc.json", nil); r.header.Get("Content-Encoding") != "" || !bytes.Equal(r.body, doc) {
		t.Errorf("GET /openrpc.json plain: %q, %d bytes", r.header.Get("Content-Encoding"), len(r.body))
	}
	// Go's own client asks for gzip and decodes it; the document is served
	// again, the same, from the pooled buffers.
	for range 3 {
		rr, err := h.do(http.MethodPost, "", big, false)
		if err != nil || !bytes.Equal(rr.body, plain.body) {
			t.Fatalf("Go's client: %v, %d bytes", err, len(rr.body))
		}
	}
}

// httpSuiteCompressOff: CompressMin < 0 compresses nothing and says no
// Vary; a small CompressMin compresses small answers.
func httpSuiteCompressOff(t *testing.T, start httpStart) {
	off := start(t, &netserver.Options{CompressMin: -1})
	r := off.send("", []byte(echoCall(4096)), "Accept-Encoding: gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "" || r.header.Get("Vary") != "" {
		t.Errorf("off: %d %v", r.status, r.header)
	}
	low := start(t, &netserver.Options{CompressMin: 10})
	r = low.send("", []byte(echoCall(20)), "Accept-Encoding: gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" || !strings.Contains(string(r.decoded(t)), `"id":7`) {
		t.Errorf("CompressMin 10: %d %v", r.status, r.header)
	}
}

// httpSuiteRequestCoding: request bodies coded gzip or deflate (zlib, or
// raw as browsers send it) are served; another coding is 415, a body that
// does not decode 400, one that inflates past MaxMessage 413.
func httpSuiteRequestCoding(t *testing.T, start httpStart) {
	h := start(t, &netserver.Options{MaxMessage: 64 << 10})
	msg := []byte(echoCall(2048))
	want := h.send("", msg).body
	var gz, zl, raw bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(msg)
	gw.Close()
	zw := zlib.NewWriter(&zl)
	zw.Write(msg)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, 5)
	fw.Write(msg)
	fw.Close()
	f := func(name string, body []byte, ce string, status int) httpReply {
		t.Helper()
		r := h.send("", body, "Content-Encoding: "+ce)
		if r.status != status {
			t.Errorf("%s: %d %q, want %d", name, r.status, r.body, status)
		}
		if status == 200 && !bytes.Equal(r.body, want) {
			t.Errorf("%s: %q", name, r.body)
		}
		return r
	}
	f("gzip", gz.Bytes(), "gzip", 200)
	f("x-gzip", gz.Bytes(), "X-Gzip", 200)
	f("deflate", zl.Bytes(), "deflate", 200)
	f("raw deflate", raw.Bytes(), "deflate", 200)
	f("identity", msg, "identity", 200)
	if r := f("br", gz.Bytes(), "br", 415); !strings.Contains(string(r.body), "gzip, deflate or identity") {
		t.Errorf("415 says %q", r.body)
	}
	f("two codings", gz.Bytes(), "gzip, gzip", 415)
	if r := f("not gzip", msg, "gzip", 400); !strings.Contains(string(r.body), "not valid gzip") {
		t.Errorf("400 says %q", r.body)
	}
	f("cut short", gz.Bytes()[:gz.Len()/2], "gzip", 400)
	f("empty gzip", []byte{}, "gzip", 400)
	var over bytes.Buffer
	gw = gzip.NewWriter(&over)
	gw.Write(bytes.Repeat([]byte(" "), 64<<10+1))
	gw.Close()
	f("over MaxMessage once inflated", over.Bytes(), "gzip", 413)
	// The connection goes on serving after each.
	f("gzip again", gz.Bytes(), "gzip", 200)
}

// httpSuiteBomb: 1 MiB of gzip that inflates to 1 GiB gets 413, and the
// server inflates no more than MaxMessage (4 MiB, the default) of it.
func httpSuiteBomb(t *testing.T, start httpStart) {
	h := start(t, nil)
	bomb := bombtest.Gzip(1 << 10) // 1 GiB in 1 MiB
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	began := time.Now()
	r := h.send("", bomb, "Content-Encoding: gzip")
	took := time.Since(began)
	runtime.ReadMemStats(&after)
	runtime.GC()
	var settled runtime.MemStats
	runtime.ReadMemStats(&settled)
	if r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("bomb: %d %q, want 413", r.status, r.body)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	grew := int64(settled.HeapInuse) - int64(before.HeapInuse)
	t.Logf("bomb of %d bytes: 413 in %v; allocated %.1f MiB; heap in use %+.1f MiB after GC",
		len(bomb), took.Round(time.Millisecond), float64(alloc)/(1<<20), float64(grew)/(1<<20))
	if alloc > 32<<20 {
		t.Errorf("allocated %d MiB for a bomb refused at 4 MiB", alloc>>20)
	}
	if grew > 8<<20 {
		t.Errorf("the heap in use grew by %d MiB", grew>>20)
	}
}

func TestHTTPCompressSSE(t *testing.T) { sseSuiteCompress(t, startFastHTTP) }
func TestStdCompressSSE(t *testing.T)  { sseSuiteCompress(t, startStdHTTP) }

// sseSuiteCompress: an event stream is gzip-coded when the client accepts
// it, and each event reaches the client at once: the answer of a fast
// call arrives while a slow call of the same batch still runs.
func sseSuiteCompress(t *testing.T, start httpStart) {
	h := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const slow = 3 * time.Second
	began := time.Now()
	s := h.postSSE(ctx, `[{"jsonrpc":"2.0","id":1,"method":"sleep","params":[3000]},
		{"jsonrpc":"2.0","id":2,"method":"subtract","params":[5,3]}]`, "text/event-stream")
	s.wantStream()
	// Go's transport asked for gzip itself, so it decodes the body and says so.
	if !s.resp.Uncompressed {
		t.Fatalf("the stream was not compressed: Content-Encoding %q", s.resp.Header.Get("Content-Encoding"))
	}
	if v := s.resp.Header.Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("Vary %q", v)
	}
	ev, ok := s.next()
	if took := time.Since(began); !ok || field(t, ev, "id") != "2" || took >= slow {
		t.Fatalf("first event %q after %v; want id 2 before the slow call ends (%v)", ev, took, slow)
	}
	if ev, ok = s.next(); !ok || field(t, ev, "id") != "1" {
		t.Fatalf("second event %q", ev)
	}
	if ev, ok = s.next(); ok {
		t.Fatalf("an event after the last: %q", ev)
	}

	// Without Accept-Encoding: plain.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"subtract","params":[5,3]}`))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(string(body), "data: ") {
		t.Errorf("identity: Content-Encoding %q, body %q", resp.Header.Get("Content-Encoding"), body)
	}
}

// TestHTTPCompressRoutes: a route's whole JSON body is compressed as a
// POST's answer is; its streams, its other statuses and bodies it coded
// itself are left alone.
func TestHTTPCompressRoutes(t *testing.T) {
	big := []byte(`{"result":"` + strings.Repeat("x", 4096) + `"}`)
	h := startFastHTTP(t, &netserver.Options{Routes: map[string]fasthttp.RequestHandler{
		"/json": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.SetBody(big)
		},
		"/raw": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.Response.SetBodyRaw(big)
		},
		"/stream": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/event-stream")
			ctx.SetBodyStreamWriter(func(w *bufio.Writer) { w.Write(big) })
		},
		"/missing": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("application/json")
			ctx.SetStatusCode(404)
			ctx.SetBody(big)
		},
		"/image": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("image/png")
			ctx.SetBody(big)
		},
	}})
	f := func(path, wantCE string) {
		t.Helper()
		r := h.send(path, []byte("{}"), "Accept-Encoding: gzip")
		if r.header.Get("Content-Encoding") != wantCE || !bytes.Equal(r.decoded(t), big) {
			t.Errorf("%s: Content-Encoding %q, want %q; %d bytes", path, r.header.Get("Content-Encoding"), wantCE, len(r.body))
		}
	}
	for range 2 {
		f("json", "gzip")
		f("raw", "gzip")
		f("stream", "")
		f("missing", "")
		f("image", "")
	}
}

// TestHTTPCompressRouteStream: a route that streams through
// fasthttpz.SetStream (as MCP's and A2A's endpoints do) gets its stream
// gzip-coded when the client accepts it, each flushed event decodable at
// once: the route writes its second event only after the client has read
// the first.
func TestHTTPCompressRouteStream(t *testing.T) {
	read := make(chan struct{})
	h := startFastHTTP(t, &netserver.Options{Routes: map[string]fasthttp.RequestHandler{
		"/sse": func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/event-stream")
			fasthttpz.SetStream(ctx, func(w *bufio.Writer) {
				w.WriteString("data: one\n\n")
				w.Flush()
				select {
				case <-read:
				case <-time.After(5 * time.Second):
				}
				w.WriteString("data: two\n\n")
				w.Flush()
			})
		},
	}})
	for _, accept := range []string{"gzip", "identity"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"sse", strings.NewReader("{}"))
		req.Header.Set("Accept-Encoding", accept)
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body io.Reader = resp.Body
		if ce := resp.Header.Get("Content-Encoding"); ce != map[string]string{"gzip": "gzip", "identity": ""}[accept] {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q", accept, ce)
		} else if ce == "gzip" {
			if body, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatal(err)
			}
		}
		if v := resp.Header.Get("Vary"); v != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %s: Vary %q", accept, v)
		}
		first := make([]byte, len("data: one\n\n"))
		if _, err := io.ReadFull(body, first); err != nil || string(first) != "data: one\n\n" {
			t.Fatalf("Accept-Encoding %s: first event %q, %v", accept, first, err)
		}
		read <- struct{}{} // only now does the route write the second
		rest, err := io.ReadAll(body)
		if err != nil || string(rest) != "data: two\n\n" {
			t.Errorf("Accept-Encoding %s: then %q, %v", accept, rest, err)
		}
		resp.Body.Close()
		cancel()
	}
}
