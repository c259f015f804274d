package acp

// NOTE: the messages of ACP protocol version 1 (the schema's v1/schema.json),
// as Go structs with the wire's member names. Optional members are omitted
// when zero; members the schema requires are always written. _meta travels
// as raw JSON. Content blocks and session updates, which are tagged unions,
// are in content.go and update.go.

import "encoding/json"

// ProtocolVersion is the ACP protocol version this package speaks.
const ProtocolVersion = 1

// DefaultMaxMessage is the longest line this package's servers and clients
// accept by default: 32 MiB, as the TypeScript SDK's.
const DefaultMaxMessage = 32 << 20

// Method names.
const (
	MethodInitialize        = "initialize"
	MethodAuthenticate      = "authenticate"
	MethodSessionNew        = "session/new"
	MethodSessionLoad       = "session/load"
	MethodSessionPrompt     = "session/prompt"
	MethodSessionCancel     = "session/cancel"
	MethodSessionSetMode    = "session/set_mode"
	MethodSessionUpdate     = "session/update"
	MethodRequestPermission = "session/request_permission"
	MethodReadTextFile      = "fs/read_text_file"
	MethodWriteTextFile     = "fs/write_text_file"
	MethodTerminalCreate    = "terminal/create"
	MethodTerminalOutput    = "terminal/output"
	MethodTerminalRelease   = "terminal/release"
	MethodTerminalWait      = "terminal/wait_for_exit"
	MethodTerminalKill      = "terminal/kill"
	MethodCancelRequest     = "$/cancel_request"
)

// Implementation names a client or an agent (clientInfo, agentInfo).
type Implementation struct {
	Name    string          `json:"name"`
	Title   string          `json:"title,omitempty"`
	Version string          `json:"version"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// InitializeRequest opens a connection (initialize).
type InitializeRequest struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *Implementation    `json:"clientInfo,omitempty"`
	Meta               json.RawMessage    `json:"_meta,omitempty"`
}

// ClientCapabilities are what the editor offers the agent.
type ClientCapabilities struct {
	FS       FileSystemCapabilities `json:"fs"`
	Terminal bool                   `json:"terminal"`
	Meta     json.RawMessage        `json:"_meta,omitempty"`
}

// FileSystemCapabilities say which fs/* methods the editor serves.
type FileSystemCapabilities struct {
	ReadTextFile  bool            `json:"readTextFile"`
	WriteTextFile bool            `json:"writeTextFile"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// InitializeResponse is the agent's answer to initialize.
type InitializeResponse struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	AgentInfo         *Implementation   `json:"agentInfo,omitempty"`
	Meta              json.RawMessage   `json:"_meta,omitempty"`
}

// AgentCapabilities are what the agent supports.
type AgentCapabilities struct {
	LoadSession        bool               `json:"loadSession"`
	PromptCapabilities PromptCapabilities `json:"promptCapabilities"`
	MCPCapabilities    MCPCapabilities    `json:"mcpCapabilities"`
	Meta               json.RawMessage    `json:"_meta,omitempty"`
}

// PromptCapabilities say which content blocks beyond text and resource
// links a prompt may carry.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// MCPCapabilities say which MCP transports the agent can connect to.
type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// AuthMethod is a way to authenticate that the agent offers.
type AuthMethod struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// AuthenticateRequest selects an authentication method (authenticate).
type AuthenticateRequest struct {
	MethodID string          `json:"methodId"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// AuthenticateResponse answers authenticate.
type AuthenticateResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// MCPServer is an MCP server the agent should connect to: over stdio
// (Command, Args, Env; Type empty) or over "http" or "sse" (URL, Headers).
type MCPServer struct {
	Type    string          `json:"type,omitempty"`
	Name    string          `json:"name"`
	Command string          `json:"command,omitempty"`
	Args    []string        `json:"args,omitempty"`
	Env     []EnvVariable   `json:"env,omitempty"`
	URL     string          `json:"url,omitempty"`
	Headers []HTTPHeader    `json:"headers,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON writes the members the server's transport requires (a stdio
// server's args and env are always present).
func (m MCPServer) MarshalJSON() ([]byte, error) {
	type plain MCPServer
	if m.Type == "" {
		if m.Args == nil {
			m.Args = []string{}
		}
		if m.Env == nil {
			m.Env = []EnvVariable{}
		}
		return json.Marshal(struct {
			plain
			Args []string      `json:"args"`
			Env  []EnvVariable `json:"env"`
		}{plain(m), m.Args, m.Env})
	}
	if m.Headers == nil {
		m.Headers = []HTTPHeader{}
	}
	return json.Marshal(struct {
		plain
		URL     string       `json:"url"`
		Headers []HTTPHeader `json:"headers"`
	}{plain(m), m.URL, m.Headers})
}

// EnvVariable is one environment variable.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPHeader is one HTTP header.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NewSessionRequest creates a session (session/new).
type NewSessionRequest struct {
	Cwd        string          `json:"cwd"`
	MCPServers []MCPServer     `json:"mcpServers"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// NewSessionResponse answers session/new.
type NewSessionResponse struct {
	SessionID string            `json:"sessionId"`
	Modes     *SessionModeState `json:"modes,omitempty"`
	Meta      json.RawMessage   `json:"_meta,omitempty"`
}

// LoadSessionRequest resumes a session, replaying its history as
// session/update notifications before the answer (session/load).
type LoadSessionRequest struct {
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	MCPServers []MCPServer     `json:"mcpServers"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// LoadSessionResponse answers session/load.
type LoadSessionResponse struct {
	Modes *SessionModeState `json:"modes,omitempty"`
	Meta  json.RawMessage   `json:"_meta,omitempty"`
}

// SessionModeState is a session's current mode and the modes it offers.
type SessionModeState struct {
	CurrentModeID  string          `json:"currentModeId"`
	AvailableModes []SessionMode   `json:"availableModes"`
	Meta           json.RawMessage `json:"_meta,omitempty"`
}

// SessionMode is one mode an agent can run a session in.
type SessionMode struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionModeRequest switches a session's mode (session/set_mode).
type SetSessionModeRequest struct {
	SessionID string          `json:"sessionId"`
	ModeID    string          `json:"modeId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// SetSessionModeResponse answers session/set_mode.
type SetSessionModeResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// PromptRequest is a user message: it starts a prompt turn
// (session/prompt).
type PromptRequest struct {
	SessionID string          `json:"sessionId"`
	Prompt    []ContentBlock  `json:"prompt"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// PromptResponse ends a prompt turn.
type PromptResponse struct {
	StopReason StopReason      `json:"stopReason"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// StopReason says why a turn ended.
type StopReason string

// Stop reasons.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// CancelNotification cancels a session's turn in progress (session/cancel).
type CancelNotification struct {
	SessionID string          `json:"sessionId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// RequestPermissionRequest asks the user whether a tool call may run
// (session/request_permission). ToolCall is the update form: only
// ToolCallID is required.
type RequestPermissionRequest struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCall           `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	Meta      json.RawMessage    `json:"_meta,omitempty"`
}

// PermissionOption is one choice offered to the user.
type PermissionOption struct {
	OptionID string          `json:"optionId"`
	Name     string          `json:"name"`
	Kind     PermissionKind  `json:"kind"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// PermissionKind hints at what an option does.
type PermissionKind string

// Permission option kinds.
const (
	AllowOnce    PermissionKind = "allow_once"
	AllowAlways  PermissionKind = "allow_always"
	RejectOnce   PermissionKind = "reject_once"
	RejectAlways PermissionKind = "reject_always"
)

// RequestPermissionResponse is the user's decision.
type RequestPermissionResponse struct {
	Outcome PermissionOutcome `json:"outcome"`
	Meta    json.RawMessage   `json:"_meta,omitempty"`
}

// PermissionOutcome is "selected" with the option chosen, or "cancelled"
// (the turn was cancelled).
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// Selected reports the option chosen, or "" for a cancelled outcome.
func (o PermissionOutcome) Selected() string {
	if o.Outcome != "selected" {
		return ""
	}
	return o.OptionID
}

// Selected returns the outcome of choosing optionID.
func Selected(optionID string) PermissionOutcome {
	return PermissionOutcome{Outcome: "selected", OptionID: optionID}
}

// CancelledOutcome is the outcome of a permission request whose turn was
// cancelled.
var CancelledOutcome = PermissionOutcome{Outcome: "cancelled"}

// ReadTextFileRequest reads a text file of the editor, unsaved changes
// included (fs/read_text_file). Line (1-based) and Limit are optional.
type ReadTextFileRequest struct {
	SessionID string          `json:"sessionId"`
	Path      string          `json:"path"`
	Line      *int            `json:"line,omitempty"`
	Limit     *int            `json:"limit,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ReadTextFileResponse holds the text read.
type ReadTextFileResponse struct {
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileRequest writes a text file (fs/write_text_file).
type WriteTextFileRequest struct {
	SessionID string          `json:"sessionId"`
	Path      string          `json:"path"`
	Content   string          `json:"content"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileResponse answers fs/write_text_file.
type WriteTextFileResponse struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CreateTerminalRequest runs a command in a new terminal of the editor
// (terminal/create).
type CreateTerminalRequest struct {
	SessionID       string          `json:"sessionId"`
	Command         string          `json:"command"`
	Args            []string        `json:"args,omitempty"`
	Env             []EnvVariable   `json:"env,omitempty"`
	Cwd             string          `json:"cwd,omitempty"`
	OutputByteLimit *int64          `json:"outputByteLimit,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// CreateTerminalResponse names the terminal created.
type CreateTerminalResponse struct {
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalRequest names a terminal: the params of terminal/output,
// terminal/release, terminal/wait_for_exit and terminal/kill.
type TerminalRequest struct {
	SessionID  string          `json:"sessionId"`
	TerminalID string          `json:"terminalId"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// TerminalOutputResponse is a terminal's output so far.
type TerminalOutputResponse struct {
	Output     string              `json:"output"`
	Truncated  bool                `json:"truncated"`
	ExitStatus *TerminalExitStatus `json:"exitStatus,omitempty"`
	Meta       json.RawMessage     `json:"_meta,omitempty"`
}

// TerminalExitStatus is how a terminal's command ended (the answer of
// terminal/wait_for_exit too).
type TerminalExitStatus struct {
	ExitCode *int            `json:"exitCode,omitempty"`
	Signal   *string         `json:"signal,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// Empty is the answer of terminal/release and terminal/kill: {}.
type Empty struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CancelRequestParams cancels one request by id ($/cancel_request).
type CancelRequestParams struct {
	RequestID json.RawMessage `json:"requestId"`
}
