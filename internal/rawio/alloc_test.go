//go:build unix && !race

package rawio_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/internal/rawio"
)

// TestAllocs: a Read, Write and TryWrite allocate nothing.
func TestAllocs(t *testing.T) {
	a, b := pair(t)
	ra, rb := rawio.Of(a), rawio.Of(b)
	msg, buf := []byte("hello"), make([]byte, 16)
	n := testing.AllocsPerRun(200, func() {
		if _, err := ra.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := rb.Read(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := rb.TryWrite(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := ra.Read(buf); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per round trip, want 0", n)
	}
}
