package dispatch

import (
	"testing"
	"unsafe"
)

// TestConnSize keeps a connection's engine state within the allocator's
// size class it was fitted to (netserver's TestAbuseIdleConns counts an idle
// connection in bytes): past 240 bytes it takes 256.
func TestConnSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("240 is a 64-bit layout's class")
	}
	if n := unsafe.Sizeof(conn{}); n > 240 {
		t.Errorf("dispatch's conn takes %d bytes, want at most 240 (its size class)", n)
	}
}
