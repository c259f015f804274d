package bombtest_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/jetrpc/jetrpc/internal/httpz/bombtest"
)

// TestGzip: the standard library reads the bomb back whole, checksum and
// size included.
func TestGzip(t *testing.T) {
	b := bombtest.Gzip(16)
	if len(b) > 20<<10 {
		t.Fatalf("%d bytes for 16 MiB", len(b))
	}
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil || n != 16<<20 {
		t.Fatalf("%d bytes, %v", n, err)
	}
	if g := len(bombtest.Gzip(1 << 10)); g > 2<<20 {
		t.Fatalf("1 GiB in %d bytes", g)
	}
}
