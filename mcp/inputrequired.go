package mcp

// NOTE: input requests (SEP-2322, multi round-trip requests). A handler of
// tools/call, prompts/get or resources/read asks the client for input with
// Ask, the same code for every revision:
//
//   - on the initialize-based ones each request goes to the client on the
//     call's event stream (as CallClient sends it) and Ask returns with the
//     answers;
//   - on 2026-07-28, which has no requests from server to client, Ask looks
//     for the answers in the request's inputResponses and in its
//     requestState (the answers of earlier rounds). Those it does not find
//     it records and returns ErrInputRequired; the call then answers an
//     InputRequiredResult asking for them, whatever its handler returns.
//     The client retries with the answers and the requestState, the handler
//     runs again from the start, and this time Ask returns.
//
// The methods mark where a call may ask (inputCall.begin) and let an
// InputRequiredResult replace the handler's answer (inputCall.answer). The
// state of a call that uses none of this is a few words of the call;
// inputState, made on first use, holds the rest. The requestState itself
// (its content, signing, expiry, binding to the request) is in
// inputrequired_state.go.

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
	"github.com/jetrpc/jetrpc/mcp/internal/proto"
)

// The methods a server may ask the client (InputRequest.Method).
const (
	MethodElicit    = "elicitation/create"
	MethodSample    = "sampling/createMessage"
	MethodListRoots = "roots/list"
)

// InputRequest is one request for input from the client: Method with
// Params (encoded as encoding/json would; json.RawMessage as it is, nil
// for none), whose answer Ask decodes into Result (a pointer, as
// encoding/json would; nil drops it). Key names it among the call's
// requests (2026-07-28's inputRequests and inputResponses are maps by
// key): the same key must mean the same question in every round.
type InputRequest struct {
	Key    string
	Method string
	Params any
	Result any
}

// ErrInputRequired is what Ask returns on 2026-07-28 when the client has
// not given some of the answers yet: the handler returns it (or anything:
// the call's answer is the InputRequiredResult asking for them). The
// client retries the request with the answers, and the handler runs again.
var ErrInputRequired = errors.New("mcp: input required from the client")

// Errors of Ask for a request it cannot send.
var (
	ErrInputMethod = errors.New("mcp: an input request is elicitation/create, sampling/createMessage or roots/list")
	ErrInputKey    = errors.New("mcp: an input request needs a key")
)

// ElicitResult is the answer to elicitation/create: the user's action
// ("accept", "decline" or "cancel") and, when accepted, the form's content.
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// CreateMessageResult is the answer to sampling/createMessage: the
// message the client's model produced.
type CreateMessageResult struct {
	Role       string `json:"role"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
	Content    struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		Data     string `json:"data,omitempty"`
		MIMEType string `json:"mimeType,omitempty"`
	} `json:"content"`
}

// Root is one of the client's roots.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRootsResult is the answer to roots/list.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
}

// Elicit returns the request of a form (elicitation/create) showing message,
// whose fields schema describes (a restricted JSON Schema object), its
// answer decoded into result.
func Elicit(key, message string, schema json.RawMessage, result *ElicitResult) InputRequest {
	return InputRequest{Key: key, Method: MethodElicit, Result: result, Params: struct {
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"requestedSchema"`
	}{message, schema}}
}

// ListRoots returns the request of the client's roots (roots/list), its
// answer decoded into result.
func ListRoots(key string, result *ListRootsResult) InputRequest {
	return InputRequest{Key: key, Method: MethodListRoots, Result: result}
}

// Ask asks the client of the call of ctx for input and decodes each answer
// into its request's Result. On the initialize-based revisions it sends
// the requests in order on the call's stream and waits for each answer,
// failing as CallClient does (dispatch.ErrOneWay where the client cannot
// be called). On 2026-07-28 it returns at once: nil when every answer was
// in the request's inputResponses or requestState, ErrInputRequired when
// some were not (the call then asks for them: see ErrInputRequired); a
// request for a capability the request did not declare is refused
// (RequireClientCapabilities' error), and so are a requestState that fails
// verification and an answer that is not an object or does not decode
// (Invalid params). Asked again, a key already answered gets the same
// answer, so a handler asks its questions from the start each round.
func Ask(ctx context.Context, reqs ...InputRequest) error {
	c := callOf(ctx)
	if c == nil {
		return ErrNoStream
	}
	for i := range reqs {
		if reqs[i].Key == "" {
			return ErrInputKey
		}
		if capabilityOf(reqs[i].Method) == "" {
			return ErrInputMethod
		}
	}
	if !c.modern {
		for i := range reqs {
			if err := CallClient(ctx, reqs[i].Method, reqs[i].Params, reqs[i].Result); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range reqs {
		if err := RequireClientCapabilities(ctx, capabilityOf(reqs[i].Method)); err != nil {
			return err
		}
	}
	if c.task != nil && !c.taskOK { // inside a task's work (its call is Modern)
		return c.task.ask(reqs)
	}
	st := c.input.state(c)
	if st == nil {
		return ErrNoStream
	}
	return st.ask(reqs)
}

// ClientSupports reports whether the client of the call of ctx can answer
// method (one of InputRequest's): on 2026-07-28 whether the request
// declared its capability; on the initialize-based revisions, whose
// capabilities the server does not keep, true (a client that cannot
// answer says so). False outside a call.
func ClientSupports(ctx context.Context, method string) bool {
	c := callOf(ctx)
	name := capabilityOf(method)
	switch {
	case c == nil || name == "":
		return false
	case !c.modern:
		return true
	}
	return hasCapability(c.meta.caps, name)
}

// RequestState returns the handler's own state for the call of ctx: on a
// 2026-07-28 retry, what SetRequestState stored in an earlier round (read
// back from the verified requestState), else what it stored in this one;
// nil when none.
func RequestState(ctx context.Context) []byte {
	c := callOf(ctx)
	if c == nil {
		return nil
	}
	if st := c.input.state(c); st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.data
	}
	return nil
}

// SetRequestState stores data as the handler's state for the call of ctx:
// on 2026-07-28 an InputRequiredResult carries it, in its signed
// requestState, to the next round (RequestState). It is signed, not
// encrypted: the client can read it, so it must hold no secret. Outside a
// tools/call, prompts/get or resources/read it does nothing.
func SetRequestState(ctx context.Context, data []byte) {
	c := callOf(ctx)
	if c == nil {
		return
	}
	if st := c.input.state(c); st != nil {
		st.mu.Lock()
		st.data = append([]byte(nil), data...)
		st.mu.Unlock()
	}
}

// capabilityOf returns the client capability an input request's method
// needs ("" for another method).
func capabilityOf(method string) string {
	switch method {
	case MethodElicit:
		return "elicitation"
	case MethodSample:
		return "sampling"
	case MethodListRoots:
		return "roots"
	}
	return ""
}

// inputCall is the part of a call for its input requests.
type inputCall struct {
	method string // the request's, where it may ask ("": it may not)
	params []byte // the request's params, valid while its handler runs
	start  int    // where the handler's answer begins in dst
	st     *inputState
}

// begin marks a call of method (tools/call, prompts/get or resources/read)
// whose answer starts at dst[start:] as one that may ask for input.
func (in *inputCall) begin(method string, params []byte, start int) {
	in.method, in.params, in.start = method, params, start
}

// asked reports whether the call's answer is not its handler's: an
// InputRequiredResult, or the error of a refused requestState or answer.
func (in *inputCall) asked() bool {
	return in.st != nil && (in.st.asked || in.st.err != nil)
}

// answer replaces the handler's answer (from dst[in.start:]) when asked.
func (in *inputCall) answer(dst []byte) ([]byte, error) {
	return in.st.appendResult(dst[:in.start])
}

// state returns the call's inputState, made and filled from the request
// on first use; nil where the call may not ask.
func (in *inputCall) state(c *call) *inputState {
	if in.method == "" {
		return nil
	}
	c.mu.Lock() // for a handler that asks from goroutines of its own
	defer c.mu.Unlock()
	if in.st == nil {
		in.st = &inputState{}
		if c.modern {
			in.st.read(c, in.method, in.params)
		}
	}
	return in.st
}

// inputState is what a call asked and was answered.
type inputState struct {
	mu      sync.Mutex
	err     error // the request's inputResponses or requestState refused
	asked   bool  // Ask returned ErrInputRequired
	given   []inputEntry
	carried []inputEntry // the answers of earlier rounds, from the requestState
	kept    []inputEntry // the answers the handler used, for the next state
	pending []inputEntry // the requests not answered yet (raw InputRequest objects)
	data    []byte       // the handler's state
	bind    stateBinding // what a requestState of this request is bound to
	key     []byte       // the signing key
}

// inputEntry is a member of an InputRequests or InputResponses map.
type inputEntry struct {
	key string
	raw []byte
}

func findEntry(list []inputEntry, key string) []byte {
	for i := range list {
		if list[i].key == key {
			return list[i].raw
		}
	}
	return nil
}

// read reads a Modern request's inputResponses and requestState.
func (st *inputState) read(c *call, method string, params []byte) {
	st.key = c.stateKey()
	st.bind.method = method
	var state []byte
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return
	}
	for it.Next() {
		k, v := it.Key(), it.Value()
		switch {
		case decode.KeyEquals(k, "name") || decode.KeyEquals(k, "uri"):
			s, esc := proto.Str(v)
			st.bind.name = string(proto.Text(nil, s, esc))
		case decode.KeyEquals(k, "arguments"):
			st.bind.args = v
		case decode.KeyEquals(k, "inputResponses"):
			st.err = st.readResponses(v)
		case decode.KeyEquals(k, "requestState"):
			s, esc := proto.Str(v)
			if s == nil {
				st.err = st.refuse("requestState is a string")
			}
			state = proto.Text(nil, s, esc)
		}
		if st.err != nil {
			return
		}
	}
	if state != nil {
		st.err = st.open(state)
	}
}

func (st *inputState) readResponses(v []byte) error {
	var it decode.Iter
	if !it.Reset(v) || !it.IsObject() {
		return st.refuse("inputResponses is an object of the client's answers")
	}
	for it.Next() {
		k, err := decode.AppendUnquote(nil, append(append([]byte{'"'}, it.Key()...), '"'))
		if err != nil {
			return st.refuse("inputResponses has an invalid key")
		}
		st.given = append(st.given, inputEntry{key: string(k), raw: it.Value()})
	}
	return nil
}

// ask looks reqs' answers up, decoding those found and recording the
// others.
func (st *inputState) ask(reqs []InputRequest) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return st.err
	}
	missing := false
	for i := range reqs {
		r := &reqs[i]
		raw := findEntry(st.carried, r.Key)
		if raw == nil {
			raw = findEntry(st.given, r.Key)
		}
		if raw == nil {
			missing = true
			if err := st.request(r); err != nil {
				return err
			}
			continue
		}
		if raw[0] != '{' {
			return st.refuse("inputResponses[\"" + r.Key + "\"] is not an object")
		}
		if r.Result != nil {
			if err := json.Unmarshal(raw, r.Result); err != nil {
				return st.refuse("inputResponses[\"" + r.Key + "\"] does not fit the " + r.Method + " result: " + err.Error())
			}
		}
		if findEntry(st.kept, r.Key) == nil {
			st.kept = append(st.kept, inputEntry{key: r.Key, raw: raw})
		}
	}
	if missing {
		st.asked = true
		return ErrInputRequired
	}
	return nil
}

// refuse fails the call with Invalid params saying why.
func (st *inputState) refuse(why string) error {
	st.err = dispatch.NewError(encode.CodeInvalidParams, "Invalid params", encode.AppendString(nil, why))
	return st.err
}

// request records r as asked (once per key).
func (st *inputState) request(r *InputRequest) error {
	if findEntry(st.pending, r.Key) != nil {
		return nil
	}
	raw, err := inputRequestJSON(r)
	if err != nil {
		return err
	}
	st.pending = append(st.pending, inputEntry{key: r.Key, raw: raw})
	return nil
}

// inputRequestJSON returns r as a member of inputRequests:
// {"method":...,"params":...}.
func inputRequestJSON(r *InputRequest) ([]byte, error) {
	params, err := rpcmsg.MarshalParams(r.Params, dispatch.ErrPeerParams)
	if err != nil {
		return nil, err
	}
	raw := encode.AppendString(append([]byte(nil), `{"method":`...), r.Method)
	if params == nil {
		params = []byte("{}")
	}
	return append(appendOneLine(append(raw, `,"params":`...), params), '}'), nil
}

// appendResult appends the call's InputRequiredResult, or returns the
// error that refused its request.
func (st *inputState) appendResult(dst []byte) ([]byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil {
		return dst, st.err
	}
	dst = append(dst, `{"resultType":"input_required","inputRequests":{`...)
	for i, p := range st.pending {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(encode.AppendString(dst, p.key), ':'), p.raw...)
	}
	dst = append(dst, `},"requestState":`...)
	dst = encode.AppendString(dst, st.seal())
	return append(dst, '}'), nil
}
