package acp

// NOTE: session/update and the tool-call types. SessionUpdate is a tagged
// union whose variants reuse member names with different types ("content"
// is a content block in a message chunk, a list of tool-call contents in a
// tool call), so it is one struct with the variants' fields, written by
// hand (appendJSON: only the members of its kind, the required ones
// always) and read through UnmarshalJSON. The agent's hot path, a message
// chunk, is appended straight into a pooled buffer (ClientConn.Update).

import (
	"encoding/json"
	"strconv"

	"github.com/jetrpc/jetrpc/encode"
)

// UpdateKind tags a session update (its "sessionUpdate" member).
type UpdateKind string

// Update kinds.
const (
	UserMessageChunk        UpdateKind = "user_message_chunk"
	AgentMessageChunk       UpdateKind = "agent_message_chunk"
	AgentThoughtChunk       UpdateKind = "agent_thought_chunk"
	ToolCallStarted         UpdateKind = "tool_call"
	ToolCallUpdated         UpdateKind = "tool_call_update"
	PlanUpdated             UpdateKind = "plan"
	AvailableCommandsUpdate UpdateKind = "available_commands_update"
	CurrentModeUpdate       UpdateKind = "current_mode_update"
)

// SessionNotification is the params of session/update.
type SessionNotification struct {
	SessionID string          `json:"sessionId"`
	Update    SessionUpdate   `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SessionUpdate is one update of a session, tagged by Kind:
//
//   - the message chunks (user, agent, thought): Content and MessageID
//   - "tool_call" and "tool_call_update": ToolCall (a tool_call always has
//     a title; in an update only ToolCallID is required)
//   - "plan": Entries
//   - "available_commands_update": AvailableCommands
//   - "current_mode_update": CurrentModeID
//
// Any other kind is kept whole in Raw when received, and written from Raw
// when sent (Raw must then be the whole update object).
type SessionUpdate struct {
	Kind              UpdateKind
	Content           ContentBlock
	MessageID         string
	ToolCall          ToolCall
	Entries           []PlanEntry
	AvailableCommands []AvailableCommand
	CurrentModeID     string
	Meta              json.RawMessage
	Raw               json.RawMessage
}

// AgentMessage returns an agent_message_chunk update carrying b.
func AgentMessage(b ContentBlock) SessionUpdate {
	return SessionUpdate{Kind: AgentMessageChunk, Content: b}
}

// AgentThought returns an agent_thought_chunk update carrying b.
func AgentThought(b ContentBlock) SessionUpdate {
	return SessionUpdate{Kind: AgentThoughtChunk, Content: b}
}

// UserMessage returns a user_message_chunk update carrying b (a session/load
// replays the user's messages with it).
func UserMessage(b ContentBlock) SessionUpdate {
	return SessionUpdate{Kind: UserMessageChunk, Content: b}
}

// StartToolCall returns the tool_call update that reports a new tool call.
func StartToolCall(tc ToolCall) SessionUpdate {
	return SessionUpdate{Kind: ToolCallStarted, ToolCall: tc}
}

// UpdateToolCall returns a tool_call_update with the fields of tc that are
// set.
func UpdateToolCall(tc ToolCall) SessionUpdate {
	return SessionUpdate{Kind: ToolCallUpdated, ToolCall: tc}
}

// ModeChanged returns a current_mode_update.
func ModeChanged(modeID string) SessionUpdate {
	return SessionUpdate{Kind: CurrentModeUpdate, CurrentModeID: modeID}
}

// ToolCall is a tool call as reported in tool_call, tool_call_update and
// session/request_permission.
type ToolCall struct {
	ToolCallID string             `json:"toolCallId"`
	Title      string             `json:"title,omitempty"`
	Kind       ToolKind           `json:"kind,omitempty"`
	Status     ToolCallStatus     `json:"status,omitempty"`
	Content    []ToolCallContent  `json:"content,omitempty"`
	Locations  []ToolCallLocation `json:"locations,omitempty"`
	RawInput   json.RawMessage    `json:"rawInput,omitempty"`
	RawOutput  json.RawMessage    `json:"rawOutput,omitempty"`
	Meta       json.RawMessage    `json:"_meta,omitempty"`
}

// ToolKind is the category of a tool.
type ToolKind string

// Tool kinds.
const (
	ToolRead       ToolKind = "read"
	ToolEdit       ToolKind = "edit"
	ToolDelete     ToolKind = "delete"
	ToolMove       ToolKind = "move"
	ToolSearch     ToolKind = "search"
	ToolExecute    ToolKind = "execute"
	ToolThink      ToolKind = "think"
	ToolFetch      ToolKind = "fetch"
	ToolSwitchMode ToolKind = "switch_mode"
	ToolOther      ToolKind = "other"
)

// ToolCallStatus is where a tool call is in its life.
type ToolCallStatus string

// Tool call statuses.
const (
	StatusPending    ToolCallStatus = "pending"
	StatusInProgress ToolCallStatus = "in_progress"
	StatusCompleted  ToolCallStatus = "completed"
	StatusFailed     ToolCallStatus = "failed"
)

// ToolCallContent is what a tool call produced, tagged by Type: "content"
// (Content), "diff" (Path, OldText (nil for a new file), NewText) or
// "terminal" (TerminalID).
type ToolCallContent struct {
	Type       string        `json:"type"`
	Content    *ContentBlock `json:"content,omitempty"`
	Path       string        `json:"path,omitempty"`
	OldText    *string       `json:"oldText,omitempty"`
	NewText    string        `json:"newText,omitempty"`
	TerminalID string        `json:"terminalId,omitempty"`
}

// ToolContent returns a "content" tool-call content.
func ToolContent(b ContentBlock) ToolCallContent {
	return ToolCallContent{Type: "content", Content: &b}
}

// MarshalJSON writes c with the members of its type.
func (c ToolCallContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

func (c *ToolCallContent) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = encode.AppendString(dst, c.Type)
	switch c.Type {
	case "content":
		dst = append(dst, `,"content":`...)
		if c.Content == nil {
			dst = append(dst, `{"type":"text","text":""}`...)
		} else {
			dst = c.Content.appendJSON(dst)
		}
	case "diff":
		dst = appendMember(dst, "path", c.Path)
		if c.OldText != nil {
			dst = appendMember(dst, "oldText", *c.OldText)
		}
		dst = appendMember(dst, "newText", c.NewText)
	case "terminal":
		dst = appendMember(dst, "terminalId", c.TerminalID)
	default:
		if c.Content != nil {
			dst = c.Content.appendJSON(append(dst, `,"content":`...))
		}
		dst = appendOptional(dst, "path", c.Path)
		dst = appendOptional(dst, "newText", c.NewText)
		dst = appendOptional(dst, "terminalId", c.TerminalID)
	}
	return append(dst, '}')
}

// ToolCallLocation is a file (and line, 1-based) a tool call works on.
type ToolCallLocation struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PlanEntry is one step of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
}

// AvailableCommand is a slash command the agent offers.
type AvailableCommand struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Input       *AvailableCommandInput `json:"input,omitempty"`
}

// AvailableCommandInput describes a command's free-text input.
type AvailableCommandInput struct {
	Hint string `json:"hint"`
}

// MarshalJSON writes n as session/update's params.
func (n SessionNotification) MarshalJSON() ([]byte, error) {
	return appendNotification(nil, n.SessionID, &n.Update, n.Meta), nil
}

// appendNotification appends session/update's params.
func appendNotification(dst []byte, sessionID string, u *SessionUpdate, meta json.RawMessage) []byte {
	dst = append(dst, `{"sessionId":`...)
	dst = encode.AppendString(dst, sessionID)
	dst = u.appendJSON(append(dst, `,"update":`...))
	dst = appendRaw(dst, "_meta", meta)
	return append(dst, '}')
}

// MarshalJSON writes u with the members of its kind.
func (u SessionUpdate) MarshalJSON() ([]byte, error) { return u.appendJSON(nil), nil }

func (u *SessionUpdate) appendJSON(dst []byte) []byte {
	switch u.Kind {
	case UserMessageChunk, AgentMessageChunk, AgentThoughtChunk, ToolCallStarted, ToolCallUpdated,
		PlanUpdated, AvailableCommandsUpdate, CurrentModeUpdate:
	default:
		if len(u.Raw) > 0 {
			return append(dst, u.Raw...)
		}
	}
	dst = append(dst, `{"sessionUpdate":`...)
	dst = encode.AppendString(dst, string(u.Kind))
	switch u.Kind {
	case UserMessageChunk, AgentMessageChunk, AgentThoughtChunk:
		dst = u.Content.appendJSON(append(dst, `,"content":`...))
		dst = appendOptional(dst, "messageId", u.MessageID)
	case ToolCallStarted, ToolCallUpdated:
		dst = u.ToolCall.appendFields(dst, u.Kind == ToolCallStarted)
	case PlanUpdated:
		dst = append(dst, `,"entries":[`...)
		for i := range u.Entries {
			e := &u.Entries[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"content":`...)
			dst = encode.AppendString(dst, e.Content)
			dst = appendMember(dst, "priority", e.Priority)
			dst = appendMember(dst, "status", e.Status)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	case AvailableCommandsUpdate:
		dst = append(dst, `,"availableCommands":[`...)
		for i := range u.AvailableCommands {
			c := &u.AvailableCommands[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = encode.AppendString(dst, c.Name)
			dst = appendMember(dst, "description", c.Description)
			if c.Input != nil {
				dst = encode.AppendString(append(dst, `,"input":{"hint":`...), c.Input.Hint)
				dst = append(dst, '}')
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	case CurrentModeUpdate:
		dst = appendMember(dst, "currentModeId", u.CurrentModeID)
	}
	dst = appendRaw(dst, "_meta", u.Meta)
	return append(dst, '}')
}

// appendFields appends the members of tc after others (each with its
// leading comma); the title is written even when empty if required.
func (tc *ToolCall) appendFields(dst []byte, titleRequired bool) []byte {
	dst = appendMember(dst, "toolCallId", tc.ToolCallID)
	if titleRequired {
		dst = appendMember(dst, "title", tc.Title)
	} else {
		dst = appendOptional(dst, "title", tc.Title)
	}
	dst = appendOptional(dst, "kind", string(tc.Kind))
	dst = appendOptional(dst, "status", string(tc.Status))
	if len(tc.Content) > 0 {
		dst = append(dst, `,"content":[`...)
		for i := range tc.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = tc.Content[i].appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if len(tc.Locations) > 0 {
		dst = append(dst, `,"locations":[`...)
		for i, l := range tc.Locations {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = encode.AppendString(append(dst, `{"path":`...), l.Path)
			if l.Line != nil {
				dst = strconv.AppendInt(append(dst, `,"line":`...), int64(*l.Line), 10)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendRaw(dst, "rawInput", tc.RawInput)
	dst = appendRaw(dst, "rawOutput", tc.RawOutput)
	return appendRaw(dst, "_meta", tc.Meta)
}

// wireUpdate is a session update as read: the members of every kind, with
// "content" left raw until the kind says what it is.
type wireUpdate struct {
	SessionUpdate     UpdateKind         `json:"sessionUpdate"`
	Content           json.RawMessage    `json:"content"`
	MessageID         string             `json:"messageId"`
	ToolCallID        string             `json:"toolCallId"`
	Title             string             `json:"title"`
	Kind              ToolKind           `json:"kind"`
	Status            ToolCallStatus     `json:"status"`
	Locations         []ToolCallLocation `json:"locations"`
	RawInput          json.RawMessage    `json:"rawInput"`
	RawOutput         json.RawMessage    `json:"rawOutput"`
	Entries           []PlanEntry        `json:"entries"`
	AvailableCommands []AvailableCommand `json:"availableCommands"`
	CurrentModeID     string             `json:"currentModeId"`
	Meta              json.RawMessage    `json:"_meta"`
}

// UnmarshalJSON reads an update of any kind; one this package does not
// know keeps Kind and is whole in Raw.
func (u *SessionUpdate) UnmarshalJSON(b []byte) error {
	var w wireUpdate
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*u = SessionUpdate{Kind: w.SessionUpdate, MessageID: w.MessageID, Meta: w.Meta}
	switch w.SessionUpdate {
	case UserMessageChunk, AgentMessageChunk, AgentThoughtChunk:
		if len(w.Content) > 0 {
			return json.Unmarshal(w.Content, &u.Content)
		}
	case ToolCallStarted, ToolCallUpdated:
		u.ToolCall = ToolCall{ToolCallID: w.ToolCallID, Title: w.Title, Kind: w.Kind, Status: w.Status,
			Locations: w.Locations, RawInput: w.RawInput, RawOutput: w.RawOutput}
		if len(w.Content) > 0 && string(w.Content) != "null" {
			return json.Unmarshal(w.Content, &u.ToolCall.Content)
		}
	case PlanUpdated:
		u.Entries = w.Entries
	case AvailableCommandsUpdate:
		u.AvailableCommands = w.AvailableCommands
	case CurrentModeUpdate:
		u.CurrentModeID = w.CurrentModeID
	default:
		u.Raw = append(json.RawMessage(nil), b...)
	}
	return nil
}
