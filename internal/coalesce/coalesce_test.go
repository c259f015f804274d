package coalesce

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// sink records the writes; the first one waits for release, so that the
// others queue meanwhile.
type sink struct {
	mu      *sync.Mutex
	q       *Queue
	writes  []string
	started chan struct{}
	release chan struct{}
	fail    error
}

func (s *sink) WriteOut(b []byte) error {
	if s.started != nil {
		close(s.started)
		s.started = nil
		<-s.release
	}
	s.writes = append(s.writes, string(b)) // only the flusher writes
	return s.fail
}

func (s *sink) Written(_ int, err error) bool {
	if err != nil {
		s.q.Out = s.q.Out[:0]
		return false
	}
	return true
}

// TestCombine: frames queued during a write go out together in the next
// one, written by the flusher, not by those who queued them.
func TestCombine(t *testing.T) {
	var mu sync.Mutex
	var q Queue
	s := &sink{mu: &mu, q: &q, started: make(chan struct{}), release: make(chan struct{})}
	started := s.started
	done := make(chan struct{})
	go func() {
		mu.Lock()
		q.Out = append(q.Out, "a"...)
		q.Flush(&mu, s)
		mu.Unlock()
		close(done)
	}()
	<-started
	for _, f := range []string{"b", "c", "d"} {
		mu.Lock()
		if !q.Flushing() {
			t.Error("not flushing during the write")
		}
		q.Out = append(q.Out, f...)
		if err := q.Flush(&mu, s); err != nil { // returns at once: the flusher writes it
			t.Error(err)
		}
		mu.Unlock()
	}
	close(s.release)
	<-done
	if got := strings.Join(s.writes, "|"); got != "a|bcd" {
		t.Errorf("writes %s, want a|bcd", got)
	}
	if q.Flushing() || len(q.Out) != 0 {
		t.Errorf("after the flush: flushing %v, %q queued", q.Flushing(), q.Out)
	}
}

// TestFlushError: a failed write ends the flush with its error; the sink
// drops what is queued.
func TestFlushError(t *testing.T) {
	var mu sync.Mutex
	var q Queue
	boom := errors.New("boom")
	s := &sink{mu: &mu, q: &q, fail: boom}
	mu.Lock()
	defer mu.Unlock()
	q.Out = append(q.Out, "a"...)
	if err := q.Flush(&mu, s); err != boom || len(q.Out) != 0 || q.Flushing() {
		t.Errorf("Flush = %v, %q queued, flushing %v", err, q.Out, q.Flushing())
	}
	out, spare := q.Buffers()
	if out != nil || cap(spare) == 0 {
		t.Errorf("Buffers = %q, %d: want the written buffer kept as the spare", out, cap(spare))
	}
}

// TestClaim: a claim keeps Flush from writing and hands over what was
// queued; Release lets the next Flush write what came meanwhile.
func TestClaim(t *testing.T) {
	var mu sync.Mutex
	var q Queue
	var s recordSink
	mu.Lock()
	defer mu.Unlock()
	q.Out = append(q.Out, "a"...)
	queued, ok := q.Claim()
	if !ok || string(queued) != "a" || len(q.Out) != 0 || !q.Flushing() {
		t.Fatalf("Claim: %q %v, Out %q", queued, ok, q.Out)
	}
	if _, ok := q.Claim(); ok {
		t.Fatal("a second Claim succeeded")
	}
	q.Out = append(q.Out, "b"...)
	q.Flush(&mu, &s)
	if len(s.got) != 0 {
		t.Fatalf("Flush wrote %q during a claim", s.got)
	}
	q.Release(queued)
	q.Flush(&mu, &s)
	if string(s.got) != "b" || q.Flushing() {
		t.Fatalf("after Release: wrote %q", s.got)
	}
}

type recordSink struct{ got []byte }

func (s *recordSink) WriteOut(b []byte) error       { s.got = append(s.got, b...); return nil }
func (s *recordSink) Written(n int, err error) bool { return true }
