// Package abuse holds what the abuse tests of netserver share: a
// well-behaved client that keeps making calls and times them while other
// clients misbehave, and generators of garbage input. It is used by tests
// only.
package abuse

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// Prober runs a well-behaved client: it makes calls one after another,
// pausing between them, checks each answer and records its latency.
type Prober struct {
	call  func(i int) error
	pause time.Duration
	stop  chan struct{}
	done  chan struct{}
	lat   []time.Duration
	err   error
	calls atomic.Int64
}

// Start starts a Prober. call makes call number i (from 1) and returns an
// error when the answer is wrong or late; it must bound its own waits.
func Start(call func(i int) error, pause time.Duration) *Prober {
	p := &Prober{call: call, pause: pause, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *Prober) run() {
	defer close(p.done)
	t := time.NewTimer(0)
	defer t.Stop()
	for i := 1; ; i++ {
		start := time.Now()
		if err := p.call(i); err != nil {
			p.err = fmt.Errorf("call %d: %w", i, err)
			return
		}
		p.lat = append(p.lat, time.Since(start))
		p.calls.Add(1)
		t.Reset(p.pause)
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// Await waits until the Prober has made n calls, or for timeout, and
// reports whether it has.
func (p *Prober) Await(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for p.calls.Load() < int64(n) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// Stop stops the Prober and returns the latencies of its calls, and the
// first wrong answer, if any (calling stops at it).
func (p *Prober) Stop() (Stats, error) {
	close(p.stop)
	<-p.done
	s := Summarize(p.lat)
	if p.err == nil && s.N == 0 {
		p.err = errors.New("no call completed")
	}
	return s, p.err
}

// Stats summarizes latencies.
type Stats struct {
	N             int
	P50, P99, Max time.Duration
}

// Summarize returns the count, median, 99th percentile and maximum of lat.
func Summarize(lat []time.Duration) Stats {
	if len(lat) == 0 {
		return Stats{}
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return Stats{N: len(s), P50: at(0.50), P99: at(0.99), Max: s[len(s)-1]}
}

func (s Stats) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	return fmt.Sprintf("%d calls, p50 %v, p99 %v, max %v", s.N, r(s.P50), r(s.P99), r(s.Max))
}

// Garbage returns n bytes of input that a server must survive: random
// bytes mixed with runs of JSON-looking tokens, framing headers and
// newlines, so that some of it gets past the framer into the scanner.
func Garbage(rng *rand.Rand, n int) []byte {
	tokens := []string{
		"{", "}", "[", "]", ",", ":", `"jsonrpc"`, `"2.0"`, `"method"`, `"id"`, `"params"`,
		`"subtract"`, `"sleep"`, "1", "-0", "1e999", "null", "true", `"\ud800"`, "\n", "\r\n",
		"Content-Length: 12\r\n\r\n", "Content-Length: 99999999999\r\n\r\n", "\x00\x00\x00\x10",
		"\xff\xfe", "\x00", `{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1}`,
	}
	b := make([]byte, 0, n+64)
	for len(b) < n {
		if rng.IntN(3) == 0 {
			for range rng.IntN(32) + 1 {
				b = append(b, byte(rng.UintN(256)))
			}
			continue
		}
		b = append(b, tokens[rng.IntN(len(tokens))]...)
	}
	return b[:n]
}
