package nethttp

import (
	"strings"
	"testing"
)

// TestWSDeepNesting: over WebSocket too, a message nested deeper than the
// limit (closed or not) gets one -32700 with id null naming the limit, and
// the connection goes on.
func TestWSDeepNesting(t *testing.T) {
	_, url := startWS(t, nil)
	c := dialWS(t, url)
	const depth = 100000
	for _, m := range []string{
		strings.Repeat("[", depth),
		strings.Repeat("[", depth) + strings.Repeat("]", depth),
		strings.Repeat(`{"a":`, depth),
		`[{"":[{"":[{"":` + strings.Repeat(`[{"":`, depth),
	} {
		wsSend(t, c, m)
		if data := expectError(t, wsRecv(t, c), "null", -32700); data != `"nesting deeper than 1000"` {
			t.Errorf("error data %s", data)
		}
		wsSend(t, c, wsSubtract)
		expectResult(t, wsRecv(t, c), "1", "19")
	}
}
