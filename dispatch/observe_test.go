package dispatch_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// recorder is an Observer that records everything it sees.
type recorder struct {
	mu       sync.Mutex
	resolved []string // Method's names, in order
	begun    map[string]int
	ended    map[string][]dispatch.CallEnd
	msgs     [][3]int
	events   map[dispatch.Event]int
}

func newRecorder() *recorder {
	return &recorder{begun: map[string]int{}, ended: map[string][]dispatch.CallEnd{}, events: map[dispatch.Event]int{}}
}

func (r *recorder) Method(name string) dispatch.MethodObserver {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resolved = append(r.resolved, name)
	return &recMethod{r: r, name: name}
}

func (r *recorder) Message(in, out, batch int) {
	r.mu.Lock()
	r.msgs = append(r.msgs, [3]int{in, out, batch})
	r.mu.Unlock()
}

func (r *recorder) Event(ev dispatch.Event) {
	r.mu.Lock()
	r.events[ev]++
	r.mu.Unlock()
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.begun, r.ended, r.msgs, r.events = map[string]int{}, map[string][]dispatch.CallEnd{}, nil, map[dispatch.Event]int{}
	r.mu.Unlock()
}

type recMethod struct {
	r    *recorder
	name string
}

func (m *recMethod) Begin(context.Context) {
	m.r.mu.Lock()
	m.r.begun[m.name]++
	m.r.mu.Unlock()
}

func (m *recMethod) End(ctx context.Context, c dispatch.CallEnd) {
	if c.Notification != (dispatch.RequestID(ctx) == nil) {
		panic("End: Notification does not match the context's id")
	}
	m.r.mu.Lock()
	m.r.ended[m.name] = append(m.r.ended[m.name], c)
	m.r.mu.Unlock()
}

// TestObserverResolved: Method is called once per method when the table
// freezes, and once for the unknown methods.
func TestObserverResolved(t *testing.T) {
	r := newRecorder()
	e := newDemo(t, &dispatch.Options{Observer: r})
	e.Freeze()
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1}`))
	for _, name := range []string{"subtract", "sum", "echo", dispatch.UnknownMethod} {
		if n := countOf(r.resolved, name); n != 1 {
			t.Errorf("Method(%q) called %d times, want 1", name, n)
		}
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}

// TestObserverCalls: outcomes by method, unknown methods folded,
// notifications, durations, messages and batches.
func TestObserverCalls(t *testing.T) {
	r := newRecorder()
	partial := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, `"half"`...), dispatch.NewError(9, "partial", nil) // a result and an error
	})
	e := newDemo(t, &dispatch.Options{Observer: r}, dispatch.Method{Name: "partial", Handler: partial})
	msgs := []string{
		`{"jsonrpc":"2.0","method":"partial","id":"p"}`,
		`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1}`,
		`{"jsonrpc":"2.0","method":"subtract","params":{"a":1},"id":2}`,
		`{"jsonrpc":"2.0","method":"nope","id":3}`,
		`{"jsonrpc":"2.0","method":"other_nope"}`,
		`{"jsonrpc":"2.0","method":"update","params":[1]}`,
		`{"jsonrpc":"2.0","method":"fail","params":{"code":7,"message":"x"},"id":4}`,
		`{"jsonrpc":"2.0","method":"panic","id":5}`,
		`{"jsonrpc":"2.0","method":"sleep","params":[5],"id":6}`,
		`[{"jsonrpc":"2.0","method":"echo","id":7},{"jsonrpc":"2.0","method":"nope","id":8},{"jsonrpc":"2.0","method":"update"}]`,
	}
	for _, m := range msgs {
		e.Process(nil, []byte(m))
	}
	codes := func(name string) []int {
		var cs []int
		for _, c := range r.ended[name] {
			cs = append(cs, int(c.Code))
		}
		return cs
	}
	f := func(name string, want ...int) {
		t.Helper()
		if got := codes(name); !slices.Equal(got, want) {
			t.Errorf("%q ended with codes %v, want %v", name, got, want)
		}
		if r.begun[name] != len(want) {
			t.Errorf("%q begun %d times, want %d", name, r.begun[name], len(want))
		}
	}
	f("partial", 9)
	f("subtract", 0, -32602)
	sizes := func(name string) []int {
		var ns []int
		for _, c := range r.ended[name] {
			ns = append(ns, c.ResultSize)
		}
		return ns
	}
	for name, want := range map[string][]int{"partial": {0}, "subtract": {2, 0}, "update": {0, 0}, "fail": {0}, "panic": {0}} {
		if got := sizes(name); !slices.Equal(got, want) { // 0 for an error or a notification
			t.Errorf("%q ended with result sizes %v, want %v", name, got, want)
		}
	}
	f(dispatch.UnknownMethod, -32601, -32601, -32601)
	f("update", 0, 0)
	f("fail", 7)
	f("panic", -32603)
	f("sleep", 0)
	f("echo", 0)
	if d := r.ended["sleep"][0].Duration; d < 5*time.Millisecond {
		t.Errorf("sleep lasted %v, want at least 5ms", d)
	}
	if n := r.ended[dispatch.UnknownMethod]; !n[1].Notification || n[0].Notification {
		t.Errorf("unknown: notification flags %v", n)
	}
	if len(r.msgs) != len(msgs) {
		t.Fatalf("%d messages observed, want %d", len(r.msgs), len(msgs))
	}
	for i, m := range r.msgs {
		if m[0] != len(msgs[i]) {
			t.Errorf("message %d: in %d, want %d", i, m[0], len(msgs[i]))
		}
	}
	if r.msgs[4][1] != 0 || r.msgs[1][1] == 0 || r.msgs[9][2] != 3 || r.msgs[1][2] != 0 {
		t.Errorf("messages %v: want out 0 for a notification, batch 3 for the batch", r.msgs)
	}
}

// TestObserverEvents: the engine's events, each once.
func TestObserverEvents(t *testing.T) {
	r := newRecorder()
	e := newDemo(t, &dispatch.Options{Observer: r, MaxBatch: 2, MaxDepth: 4,
		MaxBatchResponse: 100, CallTimeout: 5 * time.Millisecond})
	f := func(msg string, ev dispatch.Event) {
		t.Helper()
		r.reset()
		e.Process(nil, []byte(msg))
		if r.events[ev] != 1 || len(r.events) != 1 {
			t.Errorf("%.50s: events %v, want one %v", msg, r.events, ev)
		}
	}
	f(`{"jsonrpc"`, dispatch.EventParseError)
	f(`{"jsonrpc":"2.0","method":1,"id":1}`, dispatch.EventInvalid)
	f(`[]`, dispatch.EventInvalid)
	f(`[1,2,3]`, dispatch.EventBatchTooLarge)
	f(`{"jsonrpc":"2.0","method":"echo","params":[[[[[1]]]]],"id":1}`, dispatch.EventTooDeep)
	f(`[{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("x", 200)+`"],"id":1}]`, dispatch.EventResponseTooLarge)
	f(`{"jsonrpc":"2.0","method":"sleep","params":[200],"id":1}`, dispatch.EventTimeout)
	f(`{"jsonrpc":"2.0","result":1,"id":99}`, dispatch.EventDropped)

	c := newConn(e, nil, false)
	defer c.Close()
	r.reset()
	c.Reject(nil, []byte(`{"jsonrpc":"2.0","method":"echo","id":1}`), encode.CodeOverloaded)
	c.Reject(nil, []byte(`{"jsonrpc":"2.0","method":"echo","id":1}`), encode.CodeShuttingDown)
	if r.events[dispatch.EventOverloaded] != 1 || r.events[dispatch.EventRejected] != 1 {
		t.Errorf("Reject: events %v", r.events)
	}
}

// TestObserverPeer: messages a handler sends its client are counted.
func TestObserverPeer(t *testing.T) {
	r := newRecorder()
	e := newDemo(t, &dispatch.Options{Observer: r})
	var mu sync.Mutex
	var sent []string
	c := newConn(e, func(_ context.Context, msg []byte) error {
		mu.Lock()
		sent = append(sent, string(msg))
		mu.Unlock()
		return nil
	}, false)
	defer c.Close()
	p := peerOf(c)
	ctx := c.Context()
	if err := p.NotifyRaw(ctx, "n", nil); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	p.CallRaw(cctx, nil, "m", nil) // times out: nobody answers
	if r.events[dispatch.EventPeerNotify] != 1 || r.events[dispatch.EventPeerCall] != 1 {
		t.Errorf("events %v, want one peer notification and one peer call (sent %q)", r.events, sent)
	}
}

// TestObservers: Observers passes everything to each observer.
func TestObservers(t *testing.T) {
	a, b := newRecorder(), newRecorder()
	e := newDemo(t, &dispatch.Options{Observer: dispatch.Observers(a, nil, b)})
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[1,2],"id":1}`))
	e.Process(nil, []byte(`{"jsonrpc"`))
	for _, r := range []*recorder{a, b} {
		if len(r.ended["subtract"]) != 1 || len(r.msgs) != 2 || r.events[dispatch.EventParseError] != 1 {
			t.Errorf("observer saw ended %v, messages %v, events %v", r.ended, r.msgs, r.events)
		}
	}
}

func TestCodeOf(t *testing.T) {
	f := func(err error, want encode.Code) {
		t.Helper()
		if got := dispatch.CodeOf(err); got != want {
			t.Errorf("CodeOf(%v) = %d, want %d", err, got, want)
		}
	}
	f(nil, 0)
	f(dispatch.NewError(7, "x", nil), 7)
	f(context.DeadlineExceeded, -32003)
	f(context.Canceled, -32002)
	f(errTest, -32603)
}

var errTest = errTestType{}

type errTestType struct{}

func (errTestType) Error() string { return "test" }
