package dispatch_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/dispatch"
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
