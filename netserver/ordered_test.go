package netserver

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// The same table of ordered notifications and peer calls over every
// transport: the connection core gives each the same semantics.

// noteLog records the params of the "note" notifications in the order their
// handlers ran.
type noteLog struct {
	mu    sync.Mutex
	notes []int
}

func (l *noteLog) add(n int) {
	l.mu.Lock()
	l.notes = append(l.notes, n)
	l.mu.Unlock()
}

func (l *noteLog) snapshot() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.notes)
}

// orderedMethods: "note" (an ordered notification: neither Inline nor
// Concurrent) sleeps a little, longer for earlier notes, and records its
// param; "note_call" calls the client from the ordered queue and notifies
// it of the answer.
func orderedMethods(log *noteLog) []engineSetup {
	return []engineSetup{
		withMethod(dispatch.Method{Name: "note", Handler: dispatch.HandlerFunc(
			func(ctx context.Context, params, dst []byte) ([]byte, error) {
				n, _ := strconv.Atoi(string(params[1 : len(params)-1]))
				time.Sleep(time.Duration(3-n%3) * time.Millisecond)
				log.add(n)
				return append(dst, "null"...), nil
			})}),
		withMethod(dispatch.Method{Name: "note_call", Handler: dispatch.HandlerFunc(
			func(ctx context.Context, params, dst []byte) ([]byte, error) {
				p := dispatch.PeerOf(ctx)
				res, err := p.CallRaw(ctx, nil, "client.echo", params)
				if err != nil {
					res = []byte(strconv.Quote(err.Error()))
				}
				return dst, p.NotifyRaw(ctx, "noted", append(append([]byte("["), res...), ']'))
			})}),
	}
}

// checkOrdered runs the ordered table over w; log is the server's.
func checkOrdered(t *testing.T, w wire, log *noteLog) {
	// Ordered notifications run one at a time in arrival order, though a
	// slow one comes before faster ones.
	const n = 30
	for i := range n {
		w.send(`{"jsonrpc":"2.0","method":"note","params":[` + strconv.Itoa(i) + `]}`)
	}
	waitFor(t, "the notes to run", func() bool { return len(log.snapshot()) == n })
	if got := log.snapshot(); !slices.IsSorted(got) {
		t.Errorf("notes ran in the order %v", got)
	}

	// A batch holding an ordered notification runs on the queue too, after
	// the notes before it, and its call is answered.
	w.send(`[{"jsonrpc":"2.0","method":"note","params":[` + strconv.Itoa(n) + `]},` +
		`{"jsonrpc":"2.0","method":"subtract","params":[5,2],"id":"b"}]`)
	if m := w.recv(); string(m) != `[{"jsonrpc":"2.0","id":"b","result":3}]` {
		t.Errorf("batch answered %s", m)
	}
	if got := log.snapshot(); len(got) != n+1 || got[n] != n {
		t.Errorf("after the batch the notes are %v", got)
	}

	// An ordered notification's handler may call the client: it runs off
	// the reading goroutine, which reads the answer.
	w.send(`{"jsonrpc":"2.0","method":"note_call","params":["x",1]}`)
	req := parseMessage(t, w.recv())
	if req.Method != "client.echo" || string(req.Params) != `["x",1]` || req.ID == nil {
		t.Fatalf("server's call from an ordered notification: %+v", req)
	}
	w.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"got":"x"}}`)
	if m := parseMessage(t, w.recv()); m.Method != "noted" || string(m.Params) != `[{"got":"x"}]` {
		t.Errorf("notification after the call: %+v", m)
	}
	w.close()
}

func TestOrderedTCP(t *testing.T) {
	for _, kind := range framings {
		t.Run(kind.String(), func(t *testing.T) {
			var log noteLog
			ts := startServer(t, &Options{Framing: kind}, orderedMethods(&log)...)
			checkOrdered(t, clientWire(ts.dial(t, kind)), &log)
			waitFor(t, "the connection to end", func() bool { return ts.openConns() == 0 })
		})
	}
}

func TestOrderedStdio(t *testing.T) {
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header} {
		t.Run(kind.String(), func(t *testing.T) {
			var log noteLog
			_, c := startStdio(t, &Options{Framing: kind}, kind, orderedMethods(&log)...)
			w := clientWire(c)
			w.close = func() {} // the cleanup closes stdin
			checkOrdered(t, w, &log)
		})
	}
}

func TestOrderedWS(t *testing.T) {
	var log noteLog
	s, url := startWS(t, nil, orderedMethods(&log)...)
	checkOrdered(t, wsWire(t, dialWS(t, url)), &log)
	waitFor(t, "the connection to end", func() bool { return s.openWS() == 0 })
}
