package httpz_test

import (
	"bytes"
	stdflate "compress/flate"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/internal/httpz"
	"github.com/jetrpc/jetrpc/internal/httpz/bombtest"
)

func TestNegotiate(t *testing.T) {
	f := func(accept string, want httpz.Encoding) {
		t.Helper()
		if got := httpz.Negotiate(accept); got != want {
			t.Errorf("Negotiate(%q) = %v, want %v", accept, got, want)
		}
		if got := httpz.Negotiate([]byte(accept)); got != want {
			t.Errorf("Negotiate([]byte(%q)) = %v, want %v", accept, got, want)
		}
	}
	f("", httpz.Identity)
	f("gzip", httpz.Gzip)
	f("deflate", httpz.Deflate)
	f("br", httpz.Identity)
	f("gzip, deflate, br, zstd", httpz.Gzip)
	f("deflate, gzip", httpz.Gzip)                        // a tie: gzip
	f("GZip", httpz.Gzip)                                 // case
	f("x-gzip", httpz.Gzip)                               // RFC 9110 8.4.1.3
	f("  gzip  ;  q = 0.5 ,deflate;q=0.8", httpz.Deflate) // whitespace
	f("gzip;Q=0.9, deflate;q=1", httpz.Deflate)
	f("gzip;q=0", httpz.Identity) // refused
	f("gzip;q=0.000, deflate", httpz.Deflate)
	f("gzip;q=0, deflate;q=0", httpz.Identity)
	f("*", httpz.Gzip)
	f("*;q=0", httpz.Identity)
	f("*, gzip;q=0", httpz.Deflate)
	f("*;q=0.1, deflate;q=0.5", httpz.Deflate)
	f("identity", httpz.Identity)
	f("identity, gzip", httpz.Gzip)               // a tie: compress
	f("identity;q=1, gzip;q=0.5", httpz.Identity) // identity preferred
	f("identity;q=0, gzip;q=0.1", httpz.Gzip)
	f("gzip;q=1.0", httpz.Gzip)
	f("gzip;q=1.001", httpz.Identity) // malformed weight: ignored
	f("gzip;q=2", httpz.Identity)
	f("gzip;q=0.5555", httpz.Identity)
	f("gzip;q=", httpz.Identity)
	f("gzip;q", httpz.Identity)
	f("gzip;level=9;q=0.4, deflate;q=0.3", httpz.Gzip) // other parameters
	f("gzipx, deflatey", httpz.Identity)
	f(",,, gzip ,", httpz.Gzip)
	f("gzip junk, deflate", httpz.Deflate)
	f("gzip;q=0.5;q=0", httpz.Identity) // the last q counts
}

func TestNegotiateAllocs(t *testing.T) {
	accept := []byte("gzip;q=0.5, deflate;q=0.8, br, *;q=0.1, identity;q=0")
	if n := testing.AllocsPerRun(100, func() { httpz.Negotiate(accept) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

func TestContentEncoding(t *testing.T) {
	f := func(v string, want httpz.Encoding, ok bool) {
		t.Helper()
		if got, gotOK := httpz.ContentEncoding(v); got != want || gotOK != ok {
			t.Errorf("ContentEncoding(%q) = %v %v, want %v %v", v, got, gotOK, want, ok)
		}
	}
	f("", httpz.Identity, true)
	f("identity", httpz.Identity, true)
	f(" GZIP ", httpz.Gzip, true)
	f("x-gzip", httpz.Gzip, true)
	f("Deflate", httpz.Deflate, true)
	f("br", httpz.Identity, false)
	f("gzip, gzip", httpz.Identity, false)
	f("compress", httpz.Identity, false)
}

// TestAppend: what Append writes, the standard library reads back: gzip
// as gzip, deflate as zlib.
func TestAppend(t *testing.T) {
	logs := demo.Logs(64 << 10)
	for _, src := range [][]byte{nil, []byte(`{"jsonrpc":"2.0","id":1,"result":0}`), logs} {
		gz := httpz.Append([]byte("prefix"), httpz.Gzip, src)
		if !bytes.HasPrefix(gz, []byte("prefix")) {
			t.Fatal("Append dropped dst")
		}
		r, err := stdgzip.NewReader(bytes.NewReader(gz[len("prefix"):]))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("gzip: %v, %d bytes back of %d", err, len(got), len(src))
		}
		zl, err := stdzlib.NewReader(bytes.NewReader(httpz.Append(nil, httpz.Deflate, src)))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(zl); err != nil || !bytes.Equal(got, src) {
			t.Fatalf("deflate: %v, %d bytes back of %d", err, len(got), len(src))
		}
		if got := httpz.Append(nil, httpz.Identity, src); !bytes.Equal(got, src) {
			t.Fatal("identity changed the bytes")
		}
	}
	if n := len(httpz.Append(nil, httpz.Gzip, logs)); n*5 > len(logs) {
		t.Errorf("64 KiB of logs: %d bytes gzipped, want 5x fewer than %d", n, len(logs))
	}
}

func TestWriterFlush(t *testing.T) {
	for _, enc := range []httpz.Encoding{httpz.Gzip, httpz.Deflate} {
		var out bytes.Buffer
		w := httpz.NewWriter(enc, &out)
		event := []byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n\n")
		_, _ = w.Write(event)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		// What was flushed decodes to the whole event before the stream ends.
		var r io.Reader
		if enc == httpz.Gzip {
			gr, err := stdgzip.NewReader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			r = gr
		} else {
			zr, err := stdzlib.NewReader(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		got := make([]byte, len(event))
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, event) {
			t.Fatalf("%v: flushed %q, %v", enc, got, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInflate(t *testing.T) {
	logs := demo.Logs(16 << 10)
	var raw bytes.Buffer
	fw, _ := stdflate.NewWriter(&raw, 1)
	fw.Write(logs)
	fw.Close()
	for name, z := range map[string]struct {
		enc httpz.Encoding
		b   []byte
	}{
		"gzip":        {httpz.Gzip, httpz.Append(nil, httpz.Gzip, logs)},
		"zlib":        {httpz.Deflate, httpz.Append(nil, httpz.Deflate, logs)},
		"raw deflate": {httpz.Deflate, raw.Bytes()},
		"identity":    {httpz.Identity, logs},
	} {
		got, err := httpz.Inflate([]byte("x"), z.enc, z.b, len(logs))
		if err != nil || !bytes.Equal(got[1:], logs) || got[0] != 'x' {
			t.Errorf("%s: %v, %d bytes", name, err, len(got))
		}
		got, err = httpz.InflateFrom(nil, z.enc, bytes.NewReader(z.b), len(logs))
		if err != nil || !bytes.Equal(got, logs) {
			t.Errorf("%s from a reader: %v, %d bytes", name, err, len(got))
		}
		if _, err := httpz.Inflate(nil, z.enc, z.b, len(logs)-1); !errors.Is(err, httpz.ErrTooLarge) {
			t.Errorf("%s one byte over: %v, want ErrTooLarge", name, err)
		}
		if _, err := httpz.InflateFrom(nil, z.enc, bytes.NewReader(z.b), len(logs)-1); !errors.Is(err, httpz.ErrTooLarge) {
			t.Errorf("%s one byte over from a reader: %v, want ErrTooLarge", name, err)
		}
	}
	gz := httpz.Append(nil, httpz.Gzip, logs)
	bad := func(name string, enc httpz.Encoding, b []byte) {
		t.Helper()
		if _, err := httpz.Inflate(nil, enc, b, 1<<20); !errors.Is(err, httpz.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
		if _, err := httpz.InflateFrom(nil, enc, bytes.NewReader(b), 1<<20); !errors.Is(err, httpz.ErrMalformed) {
			t.Errorf("%s from a reader: %v, want ErrMalformed", name, err)
		}
	}
	bad("not gzip", httpz.Gzip, logs)
	bad("empty gzip", httpz.Gzip, nil)
	bad("cut short", httpz.Gzip, gz[:len(gz)/2])
	crc := bytes.Clone(gz)
	crc[len(crc)-5] ^= 1 // the CRC-32
	bad("bad checksum", httpz.Gzip, crc)
	body := bytes.Clone(gz)
	body[len(body)/2] ^= 0xff
	bad("corrupt block", httpz.Gzip, body)
	bad("not deflate", httpz.Deflate, []byte{0xff, 0xff, 0xff, 0xff})
	bad("trailing junk", httpz.Gzip, append(bytes.Clone(gz), "junk"...))
}

// TestInflateBomb: 1 MiB of gzip that inflates to 1 GiB stops at the
// limit, inflating no more than the limit and allocating about it.
func TestInflateBomb(t *testing.T) {
	bomb := bombtest.Gzip(1 << 10)
	if len(bomb) > 1<<21 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	const limit = 4 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := httpz.Inflate(nil, httpz.Gzip, bomb, limit)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, httpz.ErrTooLarge) || len(got) != limit+1 {
		t.Fatalf("%v, %d bytes inflated; want ErrTooLarge after %d", err, len(got), limit+1)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 16<<20 {
		t.Errorf("allocated %d MiB inflating a bomb to a %d MiB limit", d>>20, limit>>20)
	}
	if _, err := httpz.InflateFrom(nil, httpz.Gzip, bytes.NewReader(bomb), limit); !errors.Is(err, httpz.ErrTooLarge) {
		t.Fatalf("from a reader: %v, want ErrTooLarge", err)
	}
}
