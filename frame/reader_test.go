package frame

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.n++
	return c.r.Read(p)
}

// transcript reads rd to its end with fr (Reset to rd), checking invariants
// after every call, and returns the outcomes (see outcome).
func transcript(t testing.TB, fr *Reader, rd io.Reader, kind Kind, max int, useReady bool) []string {
	t.Helper()
	cr := &countingReader{r: rd}
	fr.Reset(cr, kind, max)
	var out []string
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("Next makes no progress")
		}
		ready := useReady && fr.Ready()
		before := cr.n
		f, err := fr.Next()
		if ready && cr.n != before {
			t.Fatal("Ready() was true, yet Next read from the stream")
		}
		if err == nil && len(f) > fr.MaxMessage() {
			t.Fatalf("frame of %d bytes over the limit %d", len(f), fr.MaxMessage())
		}
		if err == nil && cap(f) != len(f) {
			t.Fatal("frame capacity not cut at its end")
		}
		if c := fr.bufCap(); c > bufBound(fr.MaxMessage()) {
			t.Fatalf("buffer %d over bound %d", c, bufBound(fr.MaxMessage()))
		}
		s := outcome(fr.Kind(), f, err)
		out = append(out, s)
		if s == "!broken" {
			_, err2 := fr.Next()
			if err2 != err || !fr.Ready() {
				t.Fatalf("broken Reader not sticky: %v", err2)
			}
		}
		if terminal(s) {
			return out
		}
	}
}

// check reads in under every chunking the tests know and wants the same
// outcomes from each.
func check(t *testing.T, kind Kind, max int, in string, want ...string) {
	t.Helper()
	data := []byte(in)
	fr := new(Reader)
	run := func(name string, rd io.Reader, useReady bool) {
		t.Helper()
		got := transcript(t, fr, rd, kind, max, useReady)
		if !assert.Equal(t, want, got, "%s: %q", name, trunc(in)) {
			t.FailNow()
		}
	}
	run("whole", bytes.NewReader(data), false)
	run("whole+ready", bytes.NewReader(data), true)
	run("one byte", iotest.OneByteReader(bytes.NewReader(data)), false)
	run("one byte+ready", iotest.OneByteReader(bytes.NewReader(data)), true)
	run("data+EOF", iotest.DataErrReader(bytes.NewReader(data)), true)
	for seed := range uint64(6) {
		run("random small", randomReader(data, seed, 7), seed%2 == 0)
		run("random large", randomReader(data, seed, 300), seed%2 == 1)
	}
	step := 1
	if len(data) > 1024 {
		step = len(data)/512 + 1
	}
	for cut := 0; cut <= len(data); cut += step {
		run("split", splitReader(data, cut), cut%2 == 0)
	}
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func TestNDJSON(t *testing.T) {
	f := func(max int, in string, want ...string) {
		t.Helper()
		check(t, NDJSON, max, in, want...)
	}
	f(0, "", "!EOF")
	f(0, `{"a":1}`+"\n", `={"a":1}`, "!EOF")
	f(0, "a\nb\nc\n", "=a", "=b", "=c", "!EOF")
	f(0, "a\r\nb\r\n", "=a", "=b", "!EOF")
	f(0, "a\r\r\n", "=a\r", "!EOF") // only one '\r' belongs to the line end
	f(0, "\n\n \t\r\n x\n\r\n\t\n", "= x", "!EOF")
	f(0, "a\nb", "=a", "=b", "!EOF")   // unterminated last line
	f(0, "a\nb\r", "=a", "=b", "!EOF") // unterminated with '\r'
	f(0, "a\n  \t", "=a", "!EOF")      // unterminated blank
	f(0, "\r\n", "!EOF")
	f(0, "a\x00b\n", "=a\x00b", "!EOF")

	// the limit
	f(4, "1234\n", "=1234", "!EOF")
	f(4, "1234\r\n", "=1234", "!EOF")
	f(4, "1234", "=1234", "!EOF")
	f(4, "12345\nabc\n", "!too", "=abc", "!EOF")
	f(4, "12345\r\nabc\n", "!too", "=abc", "!EOF")
	f(4, "12345", "!too", "!EOF")
	f(4, "abc\n"+strings.Repeat("x", 1000)+"\nd\n", "=abc", "!too", "=d", "!EOF")
	f(4, "abc\n"+strings.Repeat("x", 1000), "=abc", "!too", "!EOF")
	f(4, strings.Repeat("x", 1000)+"\n"+strings.Repeat("y", 1000)+"\n\n", "!too", "!too", "!EOF")
	f(4, "      \n", "!too", "!EOF") // a blank line over the limit counts as a line
	f(8192, strings.Repeat("x", 8192)+"\n"+strings.Repeat("y", 8193)+"\nz\n",
		"="+strings.Repeat("x", 8192), "!too", "=z", "!EOF")
}

func TestHeader(t *testing.T) {
	f := func(max int, in string, want ...string) {
		t.Helper()
		check(t, Header, max, in, want...)
	}
	f(0, "", "!EOF")
	f(0, "Content-Length: 2\r\n\r\n{}", "={}", "!EOF")
	f(0, "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]Content-Length: 0\r\n\r\n",
		"={}", "=[1]", "=", "!EOF")
	f(0, "content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", "={}", "!EOF")
	f(0, "Content-Type: x\r\ncOnTeNt-LeNgTh:   3  \r\nX-Other:\r\n\r\n[1]", "=[1]", "!EOF")
	f(0, "CONTENT-LENGTH:2\n\n{}", "={}", "!EOF")
	f(0, "Content-Length: 2\n\r\n{}Content-Length: 2\r\n\n{}", "={}", "={}", "!EOF")
	f(0, "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "={}", "!EOF") // same value twice
	f(0, "Content-Length: 0002\r\n\r\n{}", "={}", "!EOF")
	f(0, "Content-Length: 4\r\n\r\n\r\n\r\n", "=\r\n\r\n", "!EOF")

	// the limit
	f(4, "Content-Length: 4\r\n\r\n1234", "=1234", "!EOF")
	f(4, "Content-Length: 10\r\n\r\n0123456789Content-Length: 2\r\n\r\n{}", "!too:10", "={}", "!EOF")
	f(4, "Content-Length: 1000\r\n\r\n"+strings.Repeat("x", 1000)+"Content-Length: 2\r\n\r\n{}",
		"!too:1000", "={}", "!EOF")
	f(4, "Content-Length: 9223372036854775807\r\n\r\nabc", "!too:9223372036854775807", "!unexpected")

	// ends
	f(0, "Content-Length: 5\r\n\r\nab", "!unexpected")
	f(0, "Content-Length: 5\r\n\r\n", "!unexpected")
	f(0, "Content-Length: 5\r\n", "!unexpected")
	f(0, "Content-Len", "!unexpected")
	f(0, "Content-Length: 2\r\n\r\n{}Con", "={}", "!unexpected")
	f(4, "Content-Length: 10\r\n\r\n012", "!too:10", "!unexpected")

	// broken
	f(0, "Content-Length: abc\r\n\r\n{}", "!broken")
	f(0, "Content-Length: -1\r\n\r\n{}", "!broken")
	f(0, "Content-Length: +1\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 1e3\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 0x10\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 1 2\r\n\r\n{}", "!broken")
	f(0, "Content-Length:\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 99999999999999999999\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "!broken")
	f(0, "Content-Type: text/plain\r\n\r\n{}", "!broken") // missing
	f(0, "\r\n{}", "!broken")
	f(0, "Content Length: 2\r\n\r\n{}", "!broken")
	f(0, " Content-Length: 2\r\n\r\n{}", "!broken")
	f(0, ": 2\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 2\r\n"+`{"jsonrpc":"2.0"}`+"\n", "!broken")
	f(0, "Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n{}", "={}", "!broken")
	f(0, "C\xc3\xa9: 1\r\nContent-Length: 2\r\n\r\n{}", "!broken")
	f(0, "Content-Length: 2\r\n\r\n{}"+"cOntent-Length: 3\r\nX: "+strings.Repeat("a", MaxHeaderBlock)+"\r\n\r\n[1]",
		"={}", "!broken")
	f(0, "Content-Length: 2\r\nX: "+strings.Repeat("a", MaxHeaderBlock), "!broken") // too large before its end
}

func TestHeaderBlockLimit(t *testing.T) {
	// A block of exactly MaxHeaderBlock bytes is accepted; one more is not.
	block := func(size int) string {
		const head = "Content-Length: 2\r\nX: "
		return head + strings.Repeat("a", size-len(head)-4) + "\r\n\r\n"
	}
	require.Len(t, block(MaxHeaderBlock), MaxHeaderBlock)
	check(t, Header, 0, block(MaxHeaderBlock)+"{}", "={}", "!EOF")
	check(t, Header, 0, block(MaxHeaderBlock+1)+"{}", "!broken")
	check(t, Header, 0, "Content-Length: 2\r\n\r\n{}"+block(MaxHeaderBlock)+"{}", "={}", "={}", "!EOF")
}

func TestLen32(t *testing.T) {
	f := func(max int, in string, want ...string) {
		t.Helper()
		check(t, Len32, max, in, want...)
	}
	f(0, "", "!EOF")
	f(0, be32(2)+"{}", "={}", "!EOF")
	f(0, be32(2)+"{}"+be32(0)+be32(3)+"[1]", "={}", "=", "=[1]", "!EOF")
	f(0, be32(3)+"\n\r\x00", "=\n\r\x00", "!EOF")
	f(4, be32(4)+"1234", "=1234", "!EOF")
	f(4, be32(5)+"12345"+be32(2)+"{}", "!too:5", "={}", "!EOF")
	f(4, be32(0xffffffff)+"abc", "!too:4294967295", "!unexpected")
	f(4, be32(1000)+strings.Repeat("x", 1000)+be32(1)+"x", "!too:1000", "=x", "!EOF")
	f(0, "\x00", "!unexpected")
	f(0, "\x00\x00\x00", "!unexpected")
	f(0, be32(3)+"ab", "!unexpected")
	f(0, be32(3), "!unexpected")
	f(0, be32(2)+"{}\x00", "={}", "!unexpected")
}

func TestAuto(t *testing.T) {
	f := func(in string, kind Kind, want ...string) {
		t.Helper()
		check(t, Auto, 16, in, want...)
		fr := NewReader(strings.NewReader(in), Auto, 16)
		assert.Equal(t, Auto, fr.Kind())
		_, _ = fr.Next()
		assert.Equal(t, kind, fr.Kind(), "%q", in)
	}
	f("", Auto, "!EOF")
	f(be32(2)+"{}"+be32(1)+"1", Len32, "={}", "=1", "!EOF")
	f("Content-Length: 2\r\n\r\n{}", Header, "={}", "!EOF")
	f("content-length: 2\r\n\r\n{}", Header, "={}", "!EOF")
	f("Crap\n", Header, "!broken")
	f(`{"a":1}`+"\n[2]\n", NDJSON, `={"a":1}`, "=[2]", "!EOF")
	f("[1]\n", NDJSON, "=[1]", "!EOF")
	f("\r\n  \n[1]\n", NDJSON, "=[1]", "!EOF")
	f(" [1]", NDJSON, "= [1]", "!EOF")
	f("\xef\xbb\xbf{}\n", NDJSON, "=\xef\xbb\xbf{}", "!EOF")
	f("12345678901234567\n1\n", NDJSON, "!too", "=1", "!EOF")
}

// errReader fails once with err after its data, then reads from next.
type errReader struct {
	data []byte
	err  error
	next io.Reader
}

func (e *errReader) Read(p []byte) (int, error) {
	if len(e.data) > 0 {
		n := copy(p, e.data)
		e.data = e.data[n:]
		return n, nil
	}
	if e.err != nil {
		err := e.err
		e.err = nil
		return 0, err
	}
	return e.next.Read(p)
}

func TestReadErrorIsNotSticky(t *testing.T) {
	// A read error (a timeout, say) is returned once; the frame in progress
	// survives and the next call goes on reading.
	errTimeout := errors.New("timeout")
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		stream := AppendFrame(AppendFrame(nil, kind, []byte(`{"a":1}`)), kind, []byte(`[2]`))
		cut := len(stream) - 2
		fr := NewReader(&errReader{data: stream[:cut], err: errTimeout, next: bytes.NewReader(stream[cut:])}, kind, 0)
		f, err := fr.Next()
		require.NoError(t, err)
		assert.Equal(t, `{"a":1}`, string(f))
		_, err = fr.Next()
		assert.Equal(t, errTimeout, err, kind)
		f, err = fr.Next()
		require.NoError(t, err)
		assert.Equal(t, `[2]`, string(f))
		_, err = fr.Next()
		assert.Equal(t, io.EOF, err)
	}
}

func TestNoProgress(t *testing.T) {
	fr := NewReader(iotest.ErrReader(nil), NDJSON, 0)
	_, err := fr.Next()
	assert.Equal(t, io.ErrNoProgress, err)
}

func TestBufferedReadyRelease(t *testing.T) {
	fr := NewReader(strings.NewReader("a\nb\n\nc"), NDJSON, 0)
	assert.Equal(t, 0, fr.Buffered())
	assert.False(t, fr.Ready())
	f, err := fr.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", string(f))
	assert.Equal(t, 4, fr.Buffered())
	assert.True(t, fr.Ready())
	assert.Equal(t, 4, fr.Buffered()) // the frame Ready cut is still "buffered"
	fr.Release()                      // no effect: bytes are buffered
	f, err = fr.Next()
	require.NoError(t, err)
	assert.Equal(t, "b", string(f))
	assert.Equal(t, 2, fr.Buffered())
	assert.False(t, fr.Ready()) // only part of a line: Next must read (and find EOF)
	assert.Equal(t, 1, fr.Buffered())
	f, err = fr.Next()
	require.NoError(t, err)
	assert.Equal(t, "c", string(f))
	assert.Equal(t, 0, fr.Buffered())
	fr.Release()
	assert.Equal(t, 0, fr.bufCap())
	_, err = fr.Next()
	assert.Equal(t, io.EOF, err)

	// an idle stream: Release drops the buffer, the next frame gets a small one
	pr, pw := io.Pipe()
	fr = NewReader(pr, Len32, 0)
	go func() {
		_, _ = pw.Write(AppendFrame(nil, Len32, bytes.Repeat([]byte("x"), 100000)))
		_, _ = pw.Write(AppendFrame(nil, Len32, []byte("{}")))
		_ = pw.Close()
	}()
	f, err = fr.Next()
	require.NoError(t, err)
	assert.Len(t, f, 100000)
	assert.GreaterOrEqual(t, fr.bufCap(), 100000)
	fr.Release()
	assert.Equal(t, 0, fr.bufCap())
	f, err = fr.Next()
	require.NoError(t, err)
	assert.Equal(t, "{}", string(f))
	assert.Equal(t, initialSize, fr.bufCap())
}

func TestResetKeepsBuffer(t *testing.T) {
	fr := NewReader(strings.NewReader("Content-Length: 2\r\n\r\n{"), Auto, 0)
	_, err := fr.Next()
	assert.Equal(t, io.ErrUnexpectedEOF, err)
	c := fr.bufCap()
	require.NotZero(t, c)
	fr.Reset(strings.NewReader("[1]\n"), Auto, 0)
	assert.Equal(t, Auto, fr.Kind())
	assert.Equal(t, 0, fr.Buffered())
	f, err := fr.Next()
	require.NoError(t, err)
	assert.Equal(t, "[1]", string(f))
	assert.Equal(t, NDJSON, fr.Kind())
	assert.Equal(t, c, fr.bufCap())

	// a smaller limit drops a buffer that is now too large
	fr.Reset(strings.NewReader(be32(100000)+strings.Repeat("x", 100000)), Len32, 0)
	_, err = fr.Next()
	require.NoError(t, err)
	fr.Reset(strings.NewReader(""), Len32, 10)
	assert.LessOrEqual(t, fr.bufCap(), bufBound(10))
	assert.Panics(t, func() { fr.Reset(nil, Kind(9), 0) })
	assert.Equal(t, DefaultMaxMessage, NewReader(nil, NDJSON, -1).MaxMessage())
}

func TestTooLargeError(t *testing.T) {
	fr := NewReader(strings.NewReader(be32(10)+"0123456789"+be32(20)+strings.Repeat("y", 20)), Len32, 4)
	_, err := fr.Next()
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, TooLargeError{Size: 10, Limit: 4}, *tl)
	assert.Equal(t, "frame: message of at least 10 bytes exceeds the limit of 4 bytes", err.Error())
	_, err2 := fr.Next()
	assert.Same(t, err, err2) // one value, reused: no allocation
	assert.Equal(t, TooLargeError{Size: 20, Limit: 4}, *tl)
}

func TestBrokenError(t *testing.T) {
	fr := NewReader(strings.NewReader("Content-Length: abc\r\n\r\n"), Header, 0)
	_, err := fr.Next()
	require.ErrorIs(t, err, ErrBroken)
	assert.Equal(t, "frame: broken framing, cannot resynchronise: malformed Content-Length", err.Error())
}

// genReader generates a huge stream without holding it: head, then n bytes
// of fill, then tail; it checks the Reader's buffer on every read.
type genReader struct {
	t          *testing.T
	fr         *Reader
	head, tail []byte
	n          int64
	fill       byte
	maxCap     int
}

func (g *genReader) Read(p []byte) (int, error) {
	g.maxCap = max(g.maxCap, g.fr.bufCap())
	switch {
	case len(g.head) > 0:
		n := copy(p, g.head)
		g.head = g.head[n:]
		return n, nil
	case g.n > 0:
		p = p[:min(int64(len(p)), g.n)]
		for i := range p {
			p[i] = g.fill
		}
		g.n -= int64(len(p))
		return len(p), nil
	case len(g.tail) > 0:
		n := copy(p, g.tail)
		g.tail = g.tail[n:]
		return n, nil
	}
	return 0, io.EOF
}

func TestHugeFrameMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MiB per framing")
	}
	const limit = 1 << 20
	const huge = 100 << 20
	valid := []byte(`{"jsonrpc":"2.0","method":"ok"}`)
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		var head []byte
		switch kind {
		case Header:
			head = []byte("Content-Length: 104857600\r\n\r\n")
		case Len32:
			head = []byte(be32(huge))
		}
		tail := AppendFrame(nil, kind, valid)
		if kind == NDJSON {
			tail = append([]byte("\n"), tail...)
		}
		fr := new(Reader)
		g := &genReader{t: t, fr: fr, head: head, tail: tail, n: huge, fill: 'x'}
		fr.Reset(g, kind, limit)
		_, err := fr.Next()
		var tl *TooLargeError
		require.ErrorAs(t, err, &tl, kind)
		assert.Greater(t, tl.Size, int64(limit))
		f, err := fr.Next()
		require.NoError(t, err, kind)
		assert.Equal(t, valid, f)
		_, err = fr.Next()
		assert.Equal(t, io.EOF, err)
		assert.LessOrEqual(t, g.maxCap, limit+64<<10, kind)
		assert.LessOrEqual(t, fr.bufCap(), limit+64<<10, kind)
		t.Logf("%v: max buffer %d for limit %d", kind, g.maxCap, limit)
	}
}

// pausingReader hands out its chunks one per Read; a nil chunk is a read
// that fails with errPause (a read deadline, say) and can be retried.
type pausingReader struct{ chunks [][]byte }

var errPause = errors.New("pause")

func (p *pausingReader) Read(b []byte) (int, error) {
	if len(p.chunks) == 0 {
		return 0, io.EOF
	}
	c := p.chunks[0]
	if c == nil {
		p.chunks = p.chunks[1:]
		return 0, errPause
	}
	n := copy(b, c)
	if p.chunks[0] = c[n:]; len(p.chunks[0]) == 0 {
		p.chunks = p.chunks[1:]
	}
	return n, nil
}

// TestIdle: a Reader is Idle only between frames with nothing buffered,
// not while it skips an oversized frame whose rest has not arrived, nor
// with part of a frame buffered.
func TestIdle(t *testing.T) {
	big := strings.Repeat("x", 100)
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		t.Run(kind.String(), func(t *testing.T) {
			huge := AppendFrame(nil, kind, []byte(`["`+big+`"]`))
			small := AppendFrame(nil, kind, []byte(`[1]`))
			src := &pausingReader{chunks: [][]byte{small, nil, huge[:len(huge)-10], nil,
				append(huge[len(huge)-10:], small[:2]...), nil, small[2:], nil}}
			fr := NewReader(src, kind, 20)
			assert.True(t, fr.Idle(), "new")
			next := func(want string) {
				t.Helper()
				msg, err := fr.Next()
				switch want {
				case "pause":
					assert.ErrorIs(t, err, errPause)
				case "too large":
					var tl *TooLargeError
					assert.ErrorAs(t, err, &tl)
				default:
					assert.NoError(t, err)
					assert.Equal(t, want, string(msg))
				}
			}
			next("[1]")
			next("pause")
			assert.True(t, fr.Idle(), "after a frame")
			next("too large") // reported at once, then skipped
			next("pause")     // the rest of it has not arrived
			assert.False(t, fr.Idle(), "skipping an oversized frame")
			next("pause") // skipped; part of the next frame buffered
			assert.False(t, fr.Idle(), "part of a frame buffered")
			next("[1]")
			next("pause")
			assert.True(t, fr.Idle(), "at the end")
		})
	}
}
