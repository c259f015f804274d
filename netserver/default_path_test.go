package netserver

// NOTE: the default path (#29) over real transports. Methods registered
// the plain way (not Inline) run on workers until they have proved quick,
// then on the connection's reading goroutine. These tests hold the promises
// that must survive it: a call that blocks never delays a quick call behind
// it (learned or not), ordered notifications keep their order, and a
// learned method that starts blocking delays the calls behind it for two of
// its runs at most.

import (
	"context"
	"io"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/clock"
)

// quickBound is how soon a quick call behind a blocking one must be
// answered (the blocking one takes a second).
const quickBound = 300 * time.Millisecond

// defaultMethods are registered the plain way: "block" waits a second (or
// until its call is cancelled); "quick" and "learned" answer their params.
func defaultMethods(started *atomic.Int32) []engineSetup {
	echo := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, params...), nil
	})
	return []engineSetup{
		func(e *dispatch.Engine) error {
			return e.Register("block", dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
				started.Add(1)
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
				}
				return append(dst, `"blocked"`...), nil
			}))
		},
		func(e *dispatch.Engine) error { return e.Register("quick", echo) },
		func(e *dispatch.Engine) error { return e.Register("learned", echo) },
	}
}

// warm calls method n times, pipelined in rounds of 25, so that a quick
// default method is learned (it runs on the reader from then on).
func warm(t *testing.T, w wire, method string, n int) {
	t.Helper()
	for i := 0; i < n; i += 25 {
		for j := range 25 {
			w.send(`{"jsonrpc":"2.0","method":"` + method + `","params":[` + strconv.Itoa(i+j) + `],"id":"w"}`)
		}
		for range 25 {
			if r := decodeResponse(t, w.recv()); string(r.ID) != `"w"` || r.Error != nil {
				t.Fatalf("warm-up call answered %s %+v", r.ID, r.Error)
			}
		}
	}
}

// checkNotBlocked learns "learned", sends a call of "block", then once it
// started three quick calls pipelined behind it: subtract (Inline), quick
// (default, never called before: on a worker) and learned (default, on the
// reader). All three must be answered within quickBound.
func checkNotBlocked(t *testing.T, w wire, started *atomic.Int32) {
	warm(t, w, "learned", 150)
	w.send(`{"jsonrpc":"2.0","method":"block","id":"b"}`)
	waitFor(t, "block to start", func() bool { return started.Load() == 1 })
	begin := time.Now()
	w.send(`{"jsonrpc":"2.0","method":"learned","params":[2],"id":"l"}`)
	w.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"s"}`)
	w.send(`{"jsonrpc":"2.0","method":"quick","params":[1],"id":"q"}`)
	want := map[string]string{`"l"`: "[2]", `"s"`: "19", `"q"`: "[1]"}
	for len(want) > 0 {
		r := decodeResponse(t, w.recv())
		d := time.Since(begin)
		result, ok := want[string(r.ID)]
		if !ok || r.Error != nil || string(r.Result) != result {
			t.Fatalf("after %v: answer %s %s %+v, want the quick calls' first", d, r.ID, r.Result, r.Error)
		}
		if d > quickBound {
			t.Errorf("call %s answered after %v behind a blocking one", r.ID, d)
		}
		delete(want, string(r.ID))
	}
	expectResult(t, w.recv(), `"b"`, `"blocked"`)
}

func TestDefaultBlockTCP(t *testing.T) {
	var started atomic.Int32
	ts := startServer(t, nil, defaultMethods(&started)...)
	checkNotBlocked(t, clientWire(ts.dial(t, frame.NDJSON)), &started)
}

// startStdioPipes is startStdio over os.Pipe pairs, which buffer: the
// client may write many messages before it reads (over io.Pipe the
// server's write of the first answer would wait for the client's read).
func startStdioPipes(t *testing.T, setup ...engineSetup) *client {
	t.Helper()
	checkGoroutines(t)
	s := newServer(t, nil, setup...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR.SetReadDeadline(time.Now().Add(testTimeout)) // a hung read fails the test
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		drained := make(chan struct{})
		go func() { io.Copy(io.Discard, outR); close(drained) }() // let the last writes finish
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(testTimeout):
			t.Error("ServeStdio did not return at EOF")
		}
		outW.Close()
		<-drained
		outR.Close()
		inR.Close()
		if err := s.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return &client{t: t, kind: frame.NDJSON, w: inW, fr: frame.NewReader(outR, frame.NDJSON, 0)}
}

func TestDefaultBlockStdio(t *testing.T) {
	var started atomic.Int32
	c := startStdioPipes(t, defaultMethods(&started)...)
	checkNotBlocked(t, clientWire(c), &started)
}

func TestDefaultBlockWS(t *testing.T) {
	var started atomic.Int32
	_, url := startWS(t, nil, defaultMethods(&started)...)
	checkNotBlocked(t, wsWire(t, dialWS(t, url)), &started)
}

// seqMethod is a default, ordered method: its notifications record their
// param n; every 50th sleeps a millisecond, so that a later one would
// overtake it if they ran side by side. Its calls answer at once.
func seqMethod(log *noteLog) engineSetup {
	return withMethod(dispatch.Method{Name: "seq", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			if dispatch.RequestID(ctx) != nil {
				return append(dst, "true"...), nil
			}
			n, _ := strconv.Atoi(string(params[1 : len(params)-1]))
			if n%50 == 0 {
				time.Sleep(time.Millisecond)
			}
			log.add(n)
			return dst, nil
		})})
}

// checkSeq learns seq's calls, then sends 200 numbered notifications with
// calls of seq among them, pipelined, then a call; the notifications must
// have run in the order they were sent.
func checkSeq(t *testing.T, w wire, log *noteLog) {
	warm(t, w, "seq", 100)
	const n = 200
	calls := 0
	for i := range n {
		w.send(`{"jsonrpc":"2.0","method":"seq","params":[` + strconv.Itoa(i) + `]}`)
		if i%10 == 5 {
			w.send(`{"jsonrpc":"2.0","method":"seq","params":[-1],"id":` + strconv.Itoa(i) + `}`)
			calls++
		}
	}
	w.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"flush"}`)
	for range calls + 1 {
		if r := decodeResponse(t, w.recv()); r.Error != nil {
			t.Fatalf("call answered %s %+v", r.ID, r.Error)
		}
	}
	waitFor(t, "the notifications to run", func() bool { return len(log.snapshot()) >= n })
	got := log.snapshot()
	if len(got) != n || !slices.Equal(got, seqTo(n)) {
		t.Errorf("notifications ran in the order %v", got)
	}
}

func seqTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestDefaultOrderedTCP(t *testing.T) {
	var log noteLog
	ts := startServer(t, nil, seqMethod(&log))
	checkSeq(t, clientWire(ts.dial(t, frame.NDJSON)), &log)
}

func TestDefaultOrderedStdio(t *testing.T) {
	var log noteLog
	c := startStdioPipes(t, seqMethod(&log))
	checkSeq(t, clientWire(c), &log)
}

func TestDefaultOrderedWS(t *testing.T) {
	var log noteLog
	_, url := startWS(t, nil, seqMethod(&log))
	checkSeq(t, wsWire(t, dialWS(t, url)), &log)
}

// TestDefaultTurnsSlow: a default method learned quick that starts
// blocking (200 ms) delays the quick call pipelined behind it for two of
// its runs at most (each on the reader); then it is back on the workers and
// delays nothing.
func TestDefaultTurnsSlow(t *testing.T) {
	clock.Settle() // on the clock the engine keeps (the TSC where it is safe)
	var slow atomic.Bool
	flip := withMethod(dispatch.Method{Name: "flip", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			if slow.Load() {
				select {
				case <-time.After(200 * time.Millisecond):
				case <-ctx.Done():
				}
			}
			return append(dst, "true"...), nil
		})})
	ts := startServer(t, nil, flip)
	w := clientWire(ts.dial(t, frame.NDJSON))
	warm(t, w, "flip", 200)
	slow.Store(true)
	const rounds = 8
	var delayed []int
	flips := 0
	for i := range rounds {
		begin := time.Now()
		w.send(`{"jsonrpc":"2.0","method":"flip","id":"f` + strconv.Itoa(i) + `"}`)
		w.send(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"q` + strconv.Itoa(i) + `"}`)
		for {
			r := decodeResponse(t, w.recv())
			if string(r.ID) == `"q`+strconv.Itoa(i)+`"` {
				break
			}
			flips++ // a flip's answer (only the ones that ran on the reader come first)
		}
		if d := time.Since(begin); d > 150*time.Millisecond {
			delayed = append(delayed, i)
		}
	}
	for ; flips < rounds; flips++ {
		if r := decodeResponse(t, w.recv()); r.Error != nil || string(r.Result) != "true" {
			t.Fatalf("flip answered %s %+v", r.ID, r.Error)
		}
	}
	t.Logf("quick calls delayed by flip in rounds %v of %d", delayed, rounds)
	if len(delayed) > 2 {
		t.Errorf("flip delayed the quick call behind it in rounds %v, want 2 at most", delayed)
	}
	for _, i := range delayed {
		if i >= rounds-4 {
			t.Errorf("flip still delayed calls in round %d (rounds %v)", i, delayed)
		}
	}
}
