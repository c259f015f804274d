package dispatch_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// callCounter counts the calls of each method and their failures. The
// engine asks for each method's counters once, when it freezes its table,
// so a call only adds to them.
type callCounter struct {
	methods map[string]*methodCounter // filled by Method, before serving
	events  [dispatch.NumEvents]atomic.Int64
}

type methodCounter struct{ calls, failed atomic.Int64 }

func (c *callCounter) Method(name string) dispatch.MethodObserver {
	if name == dispatch.UnknownMethod {
		name = "(unknown)"
	}
	m := &methodCounter{}
	c.methods[name] = m
	return m
}

func (c *callCounter) Message(in, out, batch int) {}
func (c *callCounter) Event(ev dispatch.Event)    { c.events[ev].Add(1) }

func (m *methodCounter) Begin(context.Context) {}

func (m *methodCounter) End(_ context.Context, c dispatch.CallEnd) {
	m.calls.Add(1)
	if c.Code != 0 {
		m.failed.Add(1)
	}
}

func ExampleObserver() {
	obs := &callCounter{methods: map[string]*methodCounter{}}
	e := dispatch.New(&dispatch.Options{Observer: obs})
	defer e.Close()
	e.Register("hello", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, `"world"`...), nil
	}))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"hello","id":1}`))
	e.Process(nil, []byte(`[{"jsonrpc":"2.0","method":"hello","id":2},{"jsonrpc":"2.0","method":"nope","id":3}]`))
	e.Process(nil, []byte(`{"jsonrpc"`))

	for _, name := range []string{"hello", "(unknown)"} {
		m := obs.methods[name]
		fmt.Printf("%s: %d calls, %d failed\n", name, m.calls.Load(), m.failed.Load())
	}
	fmt.Println(dispatch.EventParseError, obs.events[dispatch.EventParseError].Load())
	// Output:
	// hello: 2 calls, 0 failed
	// (unknown): 1 calls, 1 failed
	// parse_error 1
}

// callCount counts the calls of one method with the engine's help: for the
// calls it does not time (here 15 in 16 once a method has had 1024), the
// engine adds to the CallCounts itself, per CPU, and calls neither Begin
// nor End; Begin and End count the others in the same CallCounts.
type callCount struct {
	counts *dispatch.CallCounts
	failed atomic.Int64
}

func (m *callCount) TimeEvery() int               { return 16 }
func (m *callCount) Counts() *dispatch.CallCounts { return m.counts }
func (m *callCount) Begin(context.Context)        { m.counts.AddStarted() }
func (m *callCount) End(_ context.Context, c dispatch.CallEnd) {
	m.counts.AddEnded()
	if c.Code != 0 { // a failed call always reaches End
		m.failed.Add(1)
	}
}

// countingObserver gives every method a callCount.
type countingObserver struct{ methods map[string]*callCount }

func (o *countingObserver) Method(name string) dispatch.MethodObserver {
	m := &callCount{counts: dispatch.NewCallCounts()}
	o.methods[name] = m
	return m
}
func (o *countingObserver) Message(in, out, batch int) {}
func (o *countingObserver) Event(dispatch.Event)       {}

func ExampleCountingObserver() {
	obs := &countingObserver{methods: map[string]*callCount{}}
	e := dispatch.New(&dispatch.Options{Observer: obs})
	defer e.Close()
	e.RegisterMethod(dispatch.Method{Name: "half", Inline: true,
		Handler: dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
			if string(params) == "[1]" {
				return nil, dispatch.NewError(encode.CodeInvalidParams, "odd", nil)
			}
			return append(dst, '1'), nil
		})})
	for i := range 5000 {
		params := "[2]"
		if i%10 == 0 {
			params = "[1]"
		}
		e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"half","params":`+params+`,"id":1}`))
	}
	m := obs.methods["half"]
	fmt.Printf("%d calls, %d in flight, %d failed\n", m.counts.Ended(), m.counts.Started()-m.counts.Ended(), m.failed.Load())
	// Output:
	// 5000 calls, 0 in flight, 500 failed
}
