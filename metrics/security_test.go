package metrics_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/prometheus/client_golang/prometheus"
)

// TestRejectionsSecurity: the refusals of authentication, the Origin
// policy and the rate limit are counted under their own reasons (a
// rate-limited message on a stream is not "shutting_down").
func TestRejectionsSecurity(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.ParseTokens(strings.NewReader("alice alice-token-0123456789\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, &dispatch.Options{Observer: m})
	opts := &netserver.Options{Guard: guard.New(&guard.Options{Auth: tokens, RateLimit: 1, RateBurst: 2}), Observer: m, Logger: discard}
	addr := serveHTTP(t, e, opts)
	c := startTCP(t, e, opts).(*streamClient)
	defer c.close()
	post := func(header ...string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr, strings.NewReader(sequence[0].msg))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, Timeout: testTimeout}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post(); s != 401 {
		t.Errorf("no token: %d", s)
	}
	if s := post("Authorization", "Bearer alice-token-0123456789", "Origin", "https://evil.example"); s != 403 {
		t.Errorf("foreign origin: %d", s)
	}
	// TCP: authenticate, then three calls in one burst of two.
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"rpc.authenticate","params":["alice-token-0123456789"]}`, true)
	for range 3 {
		c.send(t, sequence[0].msg, true)
	}
	c.close()
	fams := waitClosed(t, reg)
	counters, _ := series(fams)
	for reason, want := range map[string]float64{"unauthorized": 1, "origin_refused": 1, "rate_limited": 1, "shutting_down": 0} {
		if got := counters[`jetrpc_rejections_total{reason="`+reason+`"}`]; got != want {
			t.Errorf("rejections %s = %v, want %v", reason, got, want)
		}
	}
}
