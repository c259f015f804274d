package interop

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"
)

// gzipSpy is a RoundTripper that records, per answer, whether Go's
// transport received it gzip-coded (and decoded it: resp.Uncompressed).
type gzipSpy struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []bool
}

func (s *gzipSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.seen = append(s.seen, resp.Uncompressed)
		s.mu.Unlock()
	}
	return resp, err
}

func (s *gzipSpy) last() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen) > 0 && s.seen[len(s.seen)-1]
}

// TestGethGzip: go-ethereum's HTTP client (whose Go transport asks for
// gzip by itself) gets gzip answers from jetrpc serve above --compress-min
// and plain ones below, decoded right; --compress-min 0 turns it off.
func TestGethGzip(t *testing.T) {
	big := strings.Repeat("0x00000000000000000000000000000000000000000000000000000000deadbeef", 64)
	f := func(name string, s *server, wantGzip bool) {
		t.Helper()
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		spy := &gzipSpy{next: tr}
		c, err := rpc.DialOptions(ctx(t), "http://"+s.HTTP, rpc.WithHTTPClient(&http.Client{Transport: spy}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		var got []string
		if err := c.CallContext(ctx(t), &got, "echo", big); err != nil || len(got) != 1 || got[0] != big {
			t.Fatalf("%s: echo: %v, %d results", name, err, len(got))
		}
		if spy.last() != wantGzip {
			t.Errorf("%s: the 4 KiB answer came gzip-coded: %v, want %v", name, spy.last(), wantGzip)
		}
		var r int
		if err := c.CallContext(ctx(t), &r, "subtract", 42, 23); err != nil || r != 19 {
			t.Fatalf("%s: subtract: %d %v", name, r, err)
		}
		if spy.last() {
			t.Errorf("%s: the small answer came gzip-coded", name)
		}
	}
	f("default", startServer(t), true)
	f("--compress-min 0", startServer(t, "--compress-min", "0"), false)
}
