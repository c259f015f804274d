package mcp

// NOTE: subscriptions/listen (2026-07-28), the one way change notifications
// reach a client of that revision. The request stays open: its handler
// registers a listener (the call, its id and the notification types it
// asked for and the server honours), sends the acknowledgment, then waits
// until the call ends: on HTTP its event stream's connection is lost, on
// stdio the client sends notifications/cancelled for it, or the server
// shuts down (mcphttp's Handler.Shutdown ends the streams with the request's
// result first; on stdio the client gets notifications/cancelled for it).
// ToolsChanged, PromptsChanged, ResourcesChanged and
// ResourceUpdated send their notification, tagged with the subscription id
// (the listen request's id), on the streams that asked for it: on HTTP as
// events of the listen request's stream, on stdio on the connection. A
// listener's lock orders the acknowledgment before everything else on it,
// and keeps its call alive while a notification is on its way.

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
	"github.com/jetrpc/jetrpc/mcp/internal/seam"
)

const (
	methodListen = "subscriptions/listen"
	metaSubID    = "io.modelcontextprotocol/subscriptionId"
)

// The notification types of a listen filter.
const (
	wantTools uint8 = 1 << iota
	wantPrompts
	wantResources // the resource list
)

// listeners are the Server's open subscriptions/listen streams.
type listeners struct {
	listChanged bool // EnableListChanged

	mu  sync.Mutex
	set map[*listener]struct{}
}

// listener is one open subscriptions/listen request.
type listener struct {
	c     *call
	id    []byte // the request's id, raw: the subscription id
	want  uint8
	uris  map[string]bool // resourceSubscriptions
	tasks map[string]bool // taskIds (task_methods.go)

	mu     sync.Mutex
	closed bool

	end  chan struct{} // closed to end it gracefully (endListeners)
	once sync.Once     // closes end
	gone chan struct{} // closed once its handler has let go
	st   seam.Stream   // its HTTP event stream, as the handler left it
}

// EnableListChanged declares listChanged for the tools, prompts and
// resources in 2026-07-28's server/discover capabilities: the server tells
// subscriptions/listen streams that asked for it when one of those lists
// changes (ToolsChanged, PromptsChanged, ResourcesChanged). The lists
// themselves are fixed once serving; a deployment changes them with a new
// Server (a new replica, a restart), whose predecessor calls these first.
// Clients of the initialize-based revisions are not told. It fails once
// serving.
func (s *Server) EnableListChanged() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.frozen {
		return ErrFrozen
	}
	s.listen.listChanged = true
	return nil
}

// ToolsChanged sends notifications/tools/list_changed on every
// subscriptions/listen stream that asked for it (once EnableListChanged);
// it returns how many it reached.
func (s *Server) ToolsChanged() int {
	return s.notifyListeners(wantTools, "", "notifications/tools/list_changed")
}

// PromptsChanged is ToolsChanged for the prompts
// (notifications/prompts/list_changed).
func (s *Server) PromptsChanged() int {
	return s.notifyListeners(wantPrompts, "", "notifications/prompts/list_changed")
}

// ResourcesChanged is ToolsChanged for the list of resources
// (notifications/resources/list_changed).
func (s *Server) ResourcesChanged() int {
	return s.notifyListeners(wantResources, "", "notifications/resources/list_changed")
}

// notifyListeners sends method to the listeners that want it: those of
// type want, or (want 0) those subscribed to uri.
func (s *Server) notifyListeners(want uint8, uri, method string) int {
	var ls []*listener
	s.listen.mu.Lock()
	for l := range s.listen.set {
		if want != 0 && l.want&want != 0 || want == 0 && l.uris[uri] {
			ls = append(ls, l)
		}
	}
	s.listen.mu.Unlock()
	var extra []byte
	if want == 0 {
		extra = encode.AppendString([]byte(`,"uri":`), uri)
	}
	n := 0
	for _, l := range ls {
		if l.send(method, extra) {
			n++
		}
	}
	return n
}

// send sends method with params {"_meta":{subscriptionId},extra...} on
// the listener's stream, unless it has ended.
func (l *listener) send(method string, extra []byte) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	b := getBuf()
	defer putBuf(b)
	b.B = append(append(append(b.B, `{"_meta":{"`+metaSubID+`":`...), l.id...), '}')
	b.B = append(append(b.B, extra...), '}')
	return l.c.notify(method, b.B) == nil
}

// teardown tells a stream transport's client that the server ended the
// subscription (it shuts down), as 2026-07-28 asks: notifications/cancelled
// for the listen request. A client's own cancellation needs no word, nor
// an HTTP stream, which ends with its connection.
func (l *listener) teardown() {
	c := l.c
	if c.tr != nil || c.parent.Err() == nil {
		return
	}
	params := append(append([]byte(`{"_meta":{"`+metaSubID+`":`), l.id...), `},"requestId":`...)
	params = append(append(params, l.id...), `,"reason":"the server is shutting down"}`...)
	_ = dispatch.PeerOf(c).NotifyRaw(context.WithoutCancel(c), "notifications/cancelled", params)
}

// listenFilter is subscriptions/listen's params.notifications.
type listenFilter struct {
	Tools     bool     `json:"toolsListChanged"`
	Prompts   bool     `json:"promptsListChanged"`
	Resources bool     `json:"resourcesListChanged"`
	URIs      []string `json:"resourceSubscriptions"`
	TaskIDs   []string `json:"taskIds"`
}

// honour returns the part of f the server agrees to, as a listener's
// filter, and the acknowledgment's notifications object, with the members
// extra (each after a comma) of the task ids agreed to (honourTasks).
func (s *Server) honour(f *listenFilter, extra []byte) (want uint8, uris map[string]bool, ack []byte) {
	ack = []byte{'{'}
	add := func(on bool, bit uint8, name string) {
		if on {
			want |= bit
			ack = append(append(ack, `,"`...), name...)
			ack = append(ack, `":true`...)
		}
	}
	lc := s.listen.listChanged
	add(f.Tools && lc && len(s.tools) > 0, wantTools, "toolsListChanged")
	add(f.Prompts && lc && len(s.prompts) > 0, wantPrompts, "promptsListChanged")
	add(f.Resources && lc && len(s.resources)+len(s.ext.templates) > 0, wantResources, "resourcesListChanged")
	if len(f.URIs) > 0 && len(s.resources)+len(s.ext.templates) > 0 {
		uris = map[string]bool{}
		ack = append(ack, `,"resourceSubscriptions":[`...)
		for i, u := range f.URIs {
			if i > 0 {
				ack = append(ack, ',')
			}
			uris[u] = true
			ack = encode.AppendString(ack, u)
		}
		ack = append(ack, ']')
	}
	ack = append(ack, extra...)
	if len(ack) > 1 {
		ack = append(ack[:1], ack[2:]...) // the first member's comma
	}
	return want, uris, append(ack, '}')
}

func (s *Server) registerListen() {
	// a stream of the change notifications the client asks for (2026-07-28)
	if err := s.e.RegisterMethod(dispatch.Method{Name: methodListen, Handler: dispatch.HandlerFunc(s.listenStream)}); err != nil {
		panic(err) // the name is fixed and valid
	}
}

// listenStream serves subscriptions/listen: it answers only when the
// subscription ends.
func (s *Server) listenStream(ctx context.Context, params, dst []byte) ([]byte, error) {
	var p proto.Params
	c, own, err := s.begin(ctx, params, &p)
	defer s.end(c, own)
	switch {
	case err != nil:
		return dst, err
	case !c.modern:
		return dst, methodNotFound() // 2026-07-28 only: the others have resources/subscribe
	}
	var in struct {
		Notifications *listenFilter `json:"notifications"`
	}
	if json.Unmarshal(params, &in) != nil || in.Notifications == nil {
		return dst, invalidParams("subscriptions/listen needs a notifications filter (an object)")
	}
	id := dispatch.RequestID(ctx)
	if len(id) == 0 {
		return dst, nil // a notification: nobody to answer
	}
	l := &listener{c: c, id: append([]byte(nil), id...), end: make(chan struct{}), gone: make(chan struct{})}
	var ack, taskAck []byte
	if l.tasks, taskAck, err = s.honourTasks(c, in.Notifications.TaskIDs); err != nil {
		return dst, err
	}
	l.want, l.uris, ack = s.honour(in.Notifications, taskAck)
	c.setID(id)
	if c.sess != nil { // stdio: notifications/cancelled ends it
		c.sess.calls.add(c)
		defer c.sess.calls.remove(c)
	}
	l.mu.Lock() // the acknowledgment goes first
	s.listen.mu.Lock()
	if s.listen.set == nil {
		s.listen.set = map[*listener]struct{}{}
	}
	s.listen.set[l] = struct{}{}
	s.listen.mu.Unlock()
	b := append(append(append([]byte(`{"_meta":{"`+metaSubID+`":`), l.id...), `},"notifications":`...), ack...)
	err = c.notify("notifications/subscriptions/acknowledged", append(b, '}'))
	l.mu.Unlock()
	graceful := false
	if err == nil {
		select {
		case <-c.Done():
			l.teardown()
		case <-l.end:
			graceful = true
		}
	}
	s.listen.mu.Lock()
	delete(s.listen.set, l)
	s.listen.mu.Unlock()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	if c.tr != nil {
		l.st = c.tr.Stream()
	}
	close(l.gone)
	switch {
	case graceful: // the subscription's end, as a result
		dst = append(append(append(dst, `{"resultType":"complete","_meta":{"`+metaSubID+`":`...), l.id...), "}}"...)
		return dst, nil
	case err == nil:
		err = c.Err()
	}
	return dst, err
}

// endListeners ends the listen streams of endpoint (an HTTP handler) with their result (the
// subscriptions/listen response that tells the client the server ended
// them, not the connection), and waits until each stream has written it
// or ctx ends (a second at most): mcphttp's Handler.Shutdown calls it before it ends the streams.
func (s *Server) endListeners(ctx context.Context, endpoint any) {
	var ls []*listener
	s.listen.mu.Lock()
	for l := range s.listen.set {
		if l.c.tr != nil && l.c.tr.Endpoint() == endpoint {
			ls = append(ls, l)
		}
	}
	s.listen.mu.Unlock()
	for _, l := range ls {
		l.once.Do(func() { close(l.end) })
	}
	give := time.Now().Add(time.Second) // a client that does not read gets no longer
	for _, l := range ls {
		select {
		case <-l.gone:
		case <-ctx.Done():
			return
		}
		for l.st != nil && !l.st.Done() && ctx.Err() == nil && time.Now().Before(give) {
			time.Sleep(2 * time.Millisecond) // a reading client's writer takes the result at once
		}
	}
}

// Listeners returns the number of open subscriptions/listen streams.
func (s *Server) Listeners() int {
	s.listen.mu.Lock()
	defer s.listen.mu.Unlock()
	return len(s.listen.set)
}

// modernCaps returns caps (the capabilities object) as 2026-07-28's
// server/discover declares them: with listChanged in tools, prompts and
// resources once EnableListChanged.
func (s *Server) modernCaps(caps []byte) []byte {
	var it decode.Iter
	if !s.listen.listChanged || !it.Reset(caps) || !it.IsObject() {
		return caps
	}
	out := []byte{'{'}
	for it.Next() {
		k, v := it.Key(), it.Value()
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), k...), `":`...)
		listed := decode.KeyEquals(k, "tools") || decode.KeyEquals(k, "prompts") || decode.KeyEquals(k, "resources")
		if !listed || len(v) < 2 || v[0] != '{' {
			out = append(out, v...)
			continue
		}
		out = append(out, `{"listChanged":true`...)
		if rest := bytes.TrimSpace(v[1:]); rest[0] != '}' {
			out = append(out, ',')
		}
		out = append(out, v[1:]...)
	}
	return append(out, '}')
}
