package metrics_test

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// TestCountedCalls: past each method's first 1024 calls the engine counts
// the calls Metrics does not time itself (dispatch.CountingObserver), and
// every count stays exact: calls in flight (blocked in their handler, most
// of them counted by the engine, some timed and so passed to Begin), calls
// made from several goroutines at once, calls that fail (passed to End
// with their code), for Inline methods and default ones.
func TestCountedCalls(t *testing.T) {
	for _, inline := range []bool{true, false} {
		t.Run("inline="+strconv.FormatBool(inline), func(t *testing.T) { testCountedCalls(t, inline) })
	}
}

func testCountedCalls(t *testing.T, inline bool) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := dispatch.New(&dispatch.Options{Observer: m, Logger: discard})
	defer e.Close()
	gate := make(chan struct{})
	var entered sync.WaitGroup
	wait := func(ctx context.Context, params, dst []byte) ([]byte, error) {
		if bytes.Equal(params, []byte("[1]")) {
			entered.Done()
			select {
			case <-gate:
			case <-time.After(10 * time.Second):
				return nil, encode.NewError(encode.CodeInternalError, "never released", nil)
			}
		}
		return append(dst, "true"...), nil
	}
	fail := func(ctx context.Context, params, dst []byte) ([]byte, error) {
		if bytes.Equal(params, []byte("[2]")) {
			return nil, encode.NewError(-32042, "odd", nil)
		}
		return nil, encode.NewError(encode.CodeInvalidParams, "no", nil)
	}
	for name, h := range map[string]dispatch.HandlerFunc{"wait": wait, "fail": fail} {
		if err := e.RegisterMethod(dispatch.Method{Name: name, Handler: h, Inline: inline}); err != nil {
			t.Fatal(err)
		}
	}
	quick := []byte(`{"jsonrpc":"2.0","method":"wait","params":[0],"id":1}`)
	// From several goroutines: 4 x 2500, past the first 1024 timed calls.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 2500 {
				if out := e.Process(nil, quick); !bytes.Contains(out, []byte(`"result":true`)) {
					t.Errorf("wait: %s", out)
					return
				}
			}
		})
	}
	wg.Wait()
	// 40 calls in flight, blocked in their handler.
	const blocked = 40
	entered.Add(blocked)
	for i := range blocked {
		wg.Go(func() {
			e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"wait","params":[1],"id":`+strconv.Itoa(i)+`}`))
		})
	}
	entered.Wait()
	got, others := series(scrape(t, reg))
	if n := others[`jetrpc_calls_in_flight{method="wait"}`]; n != blocked {
		t.Errorf("in flight: %v, want %d", n, blocked)
	}
	if n := got[`jetrpc_calls_total{code="ok",method="wait"}`]; n != 10000 {
		t.Errorf("wait ok: %v, want 10000", n)
	}
	close(gate)
	wg.Wait()
	// Failures past the first 1024: 3000, one in 3 with a code of the
	// handler's own (counted as other).
	for i := range 3000 {
		p := "[1]"
		if i%3 == 0 {
			p = "[2]"
		}
		e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"fail","params":`+p+`,"id":1}`))
	}
	got, others = series(scrape(t, reg))
	want := map[string]float64{
		`jetrpc_calls_total{code="ok",method="wait"}`:       10000 + blocked,
		`jetrpc_call_duration_seconds_count{method="wait"}`: 10000 + blocked,
		`jetrpc_calls_total{code="-32602",method="fail"}`:   2000,
		`jetrpc_calls_total{code="other",method="fail"}`:    1000,
		`jetrpc_calls_total{code="ok",method="fail"}`:       0,
		`jetrpc_call_duration_seconds_count{method="fail"}`: 3000,
		`jetrpc_request_size_bytes_count`:                   10000 + blocked + 3000,
		`jetrpc_response_bytes_total`:                       float64(10000*len(`{"jsonrpc":"2.0","result":true,"id":1}`)) + respBytes(blocked),
	}
	for k, w := range want {
		if k == `jetrpc_response_bytes_total` {
			continue // the failures' bytes vary: checked below to be at least the calls'
		}
		if got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	if n := got[`jetrpc_response_bytes_total`]; n < want[`jetrpc_response_bytes_total`] {
		t.Errorf("response bytes %v, want at least %v", n, want[`jetrpc_response_bytes_total`])
	}
	for _, method := range []string{"wait", "fail"} {
		if n := others[`jetrpc_calls_in_flight{method="`+method+`"}`]; n != 0 {
			t.Errorf("%s in flight after: %v", method, n)
		}
	}
}

// respBytes is the bytes of the responses to the blocked calls, ids 0 to
// n-1.
func respBytes(n int) float64 {
	var b float64
	for i := range n {
		b += float64(len(`{"jsonrpc":"2.0","result":true,"id":}`) + len(strconv.Itoa(i)))
	}
	return b
}
