package a2a

// NOTE: the model is one set of types for both wires; append* render it
// as 0.3 JSON (kind discriminators, lower-case enums) or as 1.0 ProtoJSON
// (oneof member names, TASK_STATE_* and ROLE_* enums). Values from a
// client are kept as they came (metadata, data parts, base64 file bytes
// as their JSON text), so rendering never re-encodes them.

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/encode"
)

// Wire is an A2A protocol version as the endpoint speaks it.
type Wire uint8

const (
	// V03 is A2A 0.3 (message/send, ...), the default without an
	// A2A-Version header.
	V03 Wire = iota
	// V10 is A2A 1.0 (SendMessage, ...).
	V10
)

func (w Wire) String() string {
	if w == V10 {
		return "1.0"
	}
	return "0.3"
}

// State is a task's state.
type State uint8

// The task states, in the order of the 1.0 enum.
const (
	StateUnspecified State = iota
	StateSubmitted
	StateWorking
	StateCompleted
	StateFailed
	StateCanceled
	StateInputRequired
	StateRejected
	StateAuthRequired
)

var stateNames = [...][2]string{
	{"unknown", "TASK_STATE_UNSPECIFIED"},
	{"submitted", "TASK_STATE_SUBMITTED"},
	{"working", "TASK_STATE_WORKING"},
	{"completed", "TASK_STATE_COMPLETED"},
	{"failed", "TASK_STATE_FAILED"},
	{"canceled", "TASK_STATE_CANCELED"},
	{"input-required", "TASK_STATE_INPUT_REQUIRED"},
	{"rejected", "TASK_STATE_REJECTED"},
	{"auth-required", "TASK_STATE_AUTH_REQUIRED"},
}

// Name returns the state as wire w spells it.
func (s State) Name(w Wire) string {
	if int(s) >= len(stateNames) {
		s = StateUnspecified
	}
	return stateNames[s][w]
}

// Terminal reports whether no event follows the state.
func (s State) Terminal() bool {
	return s == StateCompleted || s == StateFailed || s == StateCanceled || s == StateRejected
}

// parseState reads a state in either spelling.
func parseState(name string) (State, bool) {
	for i, n := range stateNames {
		if i > 0 && (n[0] == name || n[1] == name) {
			return State(i), true
		}
	}
	return 0, false
}

// Part is one piece of a message or an artifact: text, a file (inline
// bytes in base64 or a URL) or structured data.
type Part struct {
	Text      string
	IsText    bool
	Raw       string          // base64 of a file's bytes, as sent
	URL       string          // a file's URI
	Data      json.RawMessage // a data part's value
	MediaType string
	Filename  string
	Metadata  json.RawMessage
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Text: s, IsText: true} }

// Message is a message of a user or an agent.
type Message struct {
	MessageID        string
	ContextID        string
	TaskID           string
	Agent            bool // the agent's (else the user's)
	Parts            []Part
	Metadata         json.RawMessage
	Extensions       []string
	ReferenceTaskIDs []string
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string
	Name        string
	Description string
	Parts       []Part
	Metadata    json.RawMessage
}

// Status is a task's state with its message and time.
type Status struct {
	State     State
	Message   *Message
	Timestamp time.Time
}

// Task is a snapshot of a task.
type Task struct {
	ID        string
	ContextID string
	Status    Status
	Artifacts []Artifact
	History   []Message
	Metadata  json.RawMessage
}

// appender renders the model for one wire.
type appender struct{ w Wire }

func appendKey(b []byte, first *bool, key string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStr(b []byte, first *bool, key, v string) []byte {
	if v == "" {
		return b
	}
	return encode.AppendString(appendKey(b, first, key), v)
}

func appendRaw(b []byte, first *bool, key string, v json.RawMessage) []byte {
	if len(v) == 0 {
		return b
	}
	return append(appendKey(b, first, key), v...)
}

func appendStrings(b []byte, first *bool, key string, v []string) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(appendKey(b, first, key), '[')
	for i, s := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = encode.AppendString(b, s)
	}
	return append(b, ']')
}

func (a appender) part(b []byte, p *Part) []byte {
	first := true
	b = append(b, '{')
	switch {
	case a.w == V10 && p.IsText:
		b = appendKey(b, &first, "text")
		b = encode.AppendString(b, p.Text)
	case a.w == V10 && p.Data != nil:
		b = appendRaw(b, &first, "data", p.Data)
	case a.w == V10:
		if p.URL != "" {
			b = appendStr(b, &first, "url", p.URL)
		} else {
			b = appendKey(b, &first, "raw")
			b = encode.AppendString(b, p.Raw)
		}
		b = appendStr(b, &first, "mediaType", p.MediaType)
		b = appendStr(b, &first, "filename", p.Filename)
	case p.IsText:
		b = append(b, `"kind":"text","text":`...)
		b = encode.AppendString(b, p.Text)
		first = false
	case p.Data != nil:
		b = append(b, `"kind":"data","data":`...)
		b = append(b, p.Data...)
		first = false
	default:
		b = append(b, `"kind":"file","file":{`...)
		f := true
		if p.URL != "" {
			b = appendStr(b, &f, "uri", p.URL)
		} else {
			b = appendKey(b, &f, "bytes")
			b = encode.AppendString(b, p.Raw)
		}
		b = appendStr(b, &f, "mimeType", p.MediaType)
		b = appendStr(b, &f, "name", p.Filename)
		b = append(b, '}')
		first = false
	}
	b = appendRaw(b, &first, "metadata", p.Metadata)
	return append(b, '}')
}

func (a appender) parts(b []byte, first *bool, ps []Part) []byte {
	b = append(appendKey(b, first, "parts"), '[')
	for i := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = a.part(b, &ps[i])
	}
	return append(b, ']')
}

func (a appender) message(b []byte, m *Message) []byte {
	first := true
	b = append(b, '{')
	if a.w == V03 {
		b = append(b, `"kind":"message"`...)
		first = false
	}
	b = appendStr(b, &first, "messageId", m.MessageID)
	b = appendStr(b, &first, "contextId", m.ContextID)
	b = appendStr(b, &first, "taskId", m.TaskID)
	role := [2][2]string{{"user", "ROLE_USER"}, {"agent", "ROLE_AGENT"}}[b2i(m.Agent)][a.w]
	b = appendStr(b, &first, "role", role)
	b = a.parts(b, &first, m.Parts)
	b = appendRaw(b, &first, "metadata", m.Metadata)
	b = appendStrings(b, &first, "extensions", m.Extensions)
	b = appendStrings(b, &first, "referenceTaskIds", m.ReferenceTaskIDs)
	return append(b, '}')
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (a appender) artifact(b []byte, x *Artifact) []byte {
	first := true
	b = append(b, '{')
	b = appendStr(b, &first, "artifactId", x.ArtifactID)
	b = appendStr(b, &first, "name", x.Name)
	b = appendStr(b, &first, "description", x.Description)
	b = a.parts(b, &first, x.Parts)
	b = appendRaw(b, &first, "metadata", x.Metadata)
	return append(b, '}')
}

func (a appender) status(b []byte, s *Status) []byte {
	b = append(b, `{"state":`...)
	b = encode.AppendString(b, s.State.Name(a.w))
	if s.Message != nil {
		b = append(b, `,"message":`...)
		b = a.message(b, s.Message)
	}
	if !s.Timestamp.IsZero() {
		b = append(b, `,"timestamp":"`...)
		b = s.Timestamp.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = append(b, '"')
	}
	return append(b, '}')
}

// task renders t with at most historyLength messages of its history (all
// when negative, none when 0).
func (a appender) task(b []byte, t *Task, historyLength int) []byte {
	b = append(b, `{"id":`...)
	b = encode.AppendString(b, t.ID)
	first := false
	b = appendStr(b, &first, "contextId", t.ContextID)
	b = append(appendKey(b, &first, "status"), a.status(nil, &t.Status)...)
	if len(t.Artifacts) > 0 {
		b = append(appendKey(b, &first, "artifacts"), '[')
		for i := range t.Artifacts {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.artifact(b, &t.Artifacts[i])
		}
		b = append(b, ']')
	}
	h := t.History
	if historyLength >= 0 && len(h) > historyLength {
		h = h[len(h)-historyLength:]
	}
	if len(h) > 0 || (a.w == V03 && historyLength != 0) {
		b = append(appendKey(b, &first, "history"), '[')
		for i := range h {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.message(b, &h[i])
		}
		b = append(b, ']')
	}
	b = appendRaw(b, &first, "metadata", t.Metadata)
	if a.w == V03 {
		b = append(b, `,"kind":"task"`...)
	}
	return append(b, '}')
}

// event is one event of a task's stream.
type event struct {
	task     *Task // a snapshot (the first event of a stream)
	message  *Message
	status   *Status
	artifact *Artifact
	appendA  bool // artifact: append to an artifact of the same id
	last     bool // artifact: its last chunk
	taskID   string
	ctxID    string
}

// final reports whether the event ends its stream.
func (e *event) final() bool {
	return e.message != nil || (e.status != nil && (e.status.State.Terminal() ||
		e.status.State == StateInputRequired || e.status.State == StateAuthRequired)) ||
		(e.task != nil && e.task.Status.State.Terminal())
}

// stream renders the event as a stream's result: 0.3 puts the object
// with its kind; 1.0 wraps it in the StreamResponse oneof member.
func (a appender) event(b []byte, e *event) []byte {
	wrap := func(name string) {
		if a.w == V10 {
			b = append(b, `{"`...)
			b = append(b, name...)
			b = append(b, `":`...)
		}
	}
	switch {
	case e.task != nil:
		wrap("task")
		b = a.task(b, e.task, -1)
	case e.message != nil:
		wrap("message")
		b = a.message(b, e.message)
	case e.status != nil:
		wrap("statusUpdate")
		b = append(b, `{"taskId":`...)
		b = encode.AppendString(b, e.taskID)
		b = append(b, `,"contextId":`...)
		b = encode.AppendString(b, e.ctxID)
		b = append(b, `,"status":`...)
		b = a.status(b, e.status)
		if a.w == V03 {
			b = append(b, `,"kind":"status-update","final":`...)
			b = strconv.AppendBool(b, e.final())
		}
		b = append(b, '}')
	default:
		wrap("artifactUpdate")
		b = append(b, `{"taskId":`...)
		b = encode.AppendString(b, e.taskID)
		b = append(b, `,"contextId":`...)
		b = encode.AppendString(b, e.ctxID)
		b = append(b, `,"artifact":`...)
		b = a.artifact(b, e.artifact)
		if e.appendA {
			b = append(b, `,"append":true`...)
		}
		if e.last {
			b = append(b, `,"lastChunk":true`...)
		}
		if a.w == V03 {
			b = append(b, `,"kind":"artifact-update"`...)
		}
		b = append(b, '}')
	}
	if a.w == V10 {
		b = append(b, '}')
	}
	return b
}

// clone returns a deep enough copy of t for a snapshot (the slices are
// copied; their elements are never changed in place).
func (t *Task) clone() *Task {
	c := *t
	c.Artifacts = slices.Clone(t.Artifacts)
	c.History = slices.Clone(t.History)
	return &c
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
