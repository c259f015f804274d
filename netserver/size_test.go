package netserver

import (
	"testing"
	"unsafe"

	"github.com/jetrpc/jetrpc/internal/rawio"
)

// TestConnSizes keeps what every TCP connection holds, idle or not, within
// the allocator's size classes it was fitted to (TestAbuseIdleConns counts
// an idle connection in bytes): a field added past a class costs the
// whole step to the next one (448 -> 480, 144 -> 160) on every connection.
func TestConnSizes(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the classes below are a 64-bit layout's")
	}
	for _, s := range []struct {
		name       string
		size, most uintptr
	}{
		{"netserver conn", unsafe.Sizeof(conn{}), 448},
		{"rawio.Conn", unsafe.Sizeof(rawio.Conn{}), 144},
	} {
		if s.size > s.most {
			t.Errorf("%s takes %d bytes, want at most %d (its size class)", s.name, s.size, s.most)
		}
	}
}
