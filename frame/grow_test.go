package frame

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// trickle hands out at most n bytes per Read.
type trickle struct {
	r io.Reader
	n int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.n)]) }

// TestBufferGrows: the buffer starts at initialSize; reads that fill it
// (more input waiting, as with pipelined messages) double it, up to
// growReads; input that comes a message at a time leaves it as it is.
func TestBufferGrows(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}` + "\n"
	f := func(perRead, wantMin, wantMax int) {
		t.Helper()
		in := strings.Repeat(line, 5000)
		fr := NewReader(&trickle{strings.NewReader(in), perRead}, NDJSON, 0)
		n, most := 0, 0
		for {
			frame, err := fr.Next()
			if err == io.EOF {
				break
			}
			if err != nil || !bytes.Equal(frame, []byte(line[:len(line)-1])) {
				t.Fatalf("frame %d: %q, %v", n, frame, err)
			}
			n++
			most = max(most, fr.bufCap())
		}
		if n != 5000 || most < wantMin || most > wantMax {
			t.Errorf("%d bytes per read: %d frames, buffer grew to %d, want %d to %d", perRead, n, most, wantMin, wantMax)
		}
	}
	f(len(line), initialSize, initialSize)
	f(4*len(line), initialSize, initialSize)
	f(1<<20, growReads, growReads)
}

// TestSetInitialSize: the first buffer is at least the size asked for, and
// again after Release; Reset forgets it.
func TestSetInitialSize(t *testing.T) {
	in := strings.Repeat(`{"a":1}`+"\n", 3)
	fr := NewReader(strings.NewReader(in), NDJSON, 0)
	fr.SetInitialSize(4096)
	if _, err := fr.Next(); err != nil || fr.bufCap() != 4096 {
		t.Fatalf("first buffer %d (%v), want 4096", fr.bufCap(), err)
	}
	fr.Next()
	fr.Next()
	fr.Release()
	fr.Reset(strings.NewReader(in), NDJSON, 0)
	if _, err := fr.Next(); err != nil || fr.bufCap() != initialSize {
		t.Fatalf("after Reset: buffer %d (%v), want %d", fr.bufCap(), err, initialSize)
	}
}
