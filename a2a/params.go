package a2a

// NOTE: the params of both wires, bound by dispatch.Typed. Where the two
// wires name a member alike it has one field; a message and its parts are
// read into the same structs on both, and toMessage checks them against
// the wire's rules (strict: a message without messageId, with no parts,
// an unknown role or a part that is none of text, file and data is
// -32602).

import (
	"encoding/json"
	"strconv"

	"github.com/jetrpc/jetrpc/encode"
)

type fileIn struct {
	Name     string  `json:"name"`
	MimeType string  `json:"mimeType"`
	Bytes    *string `json:"bytes"`
	URI      *string `json:"uri"`
}

type partIn struct {
	Kind      *string         `json:"kind"`
	Text      *string         `json:"text"`
	File      *fileIn         `json:"file"`
	Data      json.RawMessage `json:"data"`
	Raw       *string         `json:"raw"`
	URL       *string         `json:"url"`
	MediaType string          `json:"mediaType"`
	Filename  string          `json:"filename"`
	Metadata  json.RawMessage `json:"metadata"`
}

type messageIn struct {
	Kind             *string         `json:"kind"`
	MessageID        *string         `json:"messageId"`
	ContextID        string          `json:"contextId"`
	TaskID           string          `json:"taskId"`
	Role             *string         `json:"role"`
	Parts            []partIn        `json:"parts"`
	Metadata         json.RawMessage `json:"metadata"`
	Extensions       []string        `json:"extensions"`
	ReferenceTaskIDs []string        `json:"referenceTaskIds"`
}

// authIn is 0.3's PushNotificationAuthenticationInfo ({schemes,
// credentials}) and 1.0's AuthenticationInfo ({scheme, credentials}).
type authIn struct {
	Schemes     []string `json:"schemes"`
	Scheme      string   `json:"scheme"`
	Credentials string   `json:"credentials"`
}

// pushIn is a push notification config: 0.3's PushNotificationConfig,
// or 1.0's TaskPushNotificationConfig (which adds taskId and tenant).
type pushIn struct {
	ID             string  `json:"id"`
	TaskID         string  `json:"taskId"`
	URL            *string `json:"url"`
	Token          string  `json:"token"`
	Authentication *authIn `json:"authentication"`
	Tenant         string  `json:"tenant"`
}

type sendConfigIn struct {
	AcceptedOutputModes        []string `json:"acceptedOutputModes"`
	HistoryLength              *int     `json:"historyLength"`
	Blocking                   *bool    `json:"blocking"`          // 0.3
	ReturnImmediately          *bool    `json:"returnImmediately"` // 1.0
	PushNotificationConfig     *pushIn  `json:"pushNotificationConfig"`
	TaskPushNotificationConfig *pushIn  `json:"taskPushNotificationConfig"`
}

// sendParams are 0.3's MessageSendParams and 1.0's SendMessageRequest.
type sendParams struct {
	Message       *messageIn      `json:"message"`
	Configuration *sendConfigIn   `json:"configuration"`
	Metadata      json.RawMessage `json:"metadata"`
	Tenant        string          `json:"tenant"`
}

// taskParams are 0.3's TaskQueryParams and TaskIdParams, and 1.0's
// GetTaskRequest, CancelTaskRequest and SubscribeToTaskRequest.
type taskParams struct {
	ID            *string         `json:"id"`
	HistoryLength *int            `json:"historyLength"`
	Metadata      json.RawMessage `json:"metadata"`
	Tenant        string          `json:"tenant"`
}

// listParams are ListTasksRequest (1.0; served on 0.3 as tasks/list too).
type listParams struct {
	ContextID            string `json:"contextId"`
	Status               string `json:"status"`
	PageSize             *int   `json:"pageSize"`
	PageToken            string `json:"pageToken"`
	HistoryLength        *int   `json:"historyLength"`
	StatusTimestampAfter string `json:"statusTimestampAfter"`
	IncludeArtifacts     *bool  `json:"includeArtifacts"`
	Tenant               string `json:"tenant"`
}

// pushSetParams03 is 0.3's TaskPushNotificationConfig.
type pushSetParams03 struct {
	TaskID                 *string `json:"taskId"`
	PushNotificationConfig *pushIn `json:"pushNotificationConfig"`
}

// pushIDParams03 are 0.3's Get/List/DeleteTaskPushNotificationConfigParams
// (id is the task's).
type pushIDParams03 struct {
	ID                       *string         `json:"id"`
	PushNotificationConfigID string          `json:"pushNotificationConfigId"`
	Metadata                 json.RawMessage `json:"metadata"`
}

// pushIDParams10 are 1.0's Get/List/DeleteTaskPushNotificationConfigRequest.
type pushIDParams10 struct {
	TaskID    *string `json:"taskId"`
	ID        string  `json:"id"`
	PageSize  *int    `json:"pageSize"`
	PageToken string  `json:"pageToken"`
	Tenant    string  `json:"tenant"`
}

// toMessage checks a client's message against wire w's rules.
func toMessage(w Wire, in *messageIn) (Message, error) {
	if in == nil {
		return Message{}, invalidParams("message", "required")
	}
	if in.Kind != nil && *in.Kind != "message" {
		return Message{}, invalidParams("message.kind", `must be "message"`)
	}
	if in.MessageID == nil || *in.MessageID == "" {
		return Message{}, invalidParams("message.messageId", "required")
	}
	m := Message{MessageID: *in.MessageID, ContextID: in.ContextID, TaskID: in.TaskID,
		Metadata: nullToNil(in.Metadata), Extensions: in.Extensions, ReferenceTaskIDs: in.ReferenceTaskIDs}
	if in.Role == nil {
		return Message{}, invalidParams("message.role", "required")
	}
	switch r := *in.Role; {
	case r == "user" && w == V03, r == "ROLE_USER" && w == V10:
	case r == "agent" && w == V03, r == "ROLE_AGENT" && w == V10:
		m.Agent = true
	default:
		return Message{}, invalidParams("message.role", "unknown role "+quote(r))
	}
	if len(in.Parts) == 0 {
		return Message{}, invalidParams("message.parts", "must not be empty")
	}
	if !isObjectOrNull(in.Metadata) {
		return Message{}, invalidParams("message.metadata", "must be an object")
	}
	m.Parts = make([]Part, len(in.Parts))
	for i := range in.Parts {
		p, problem := toPart(w, &in.Parts[i])
		if problem != "" {
			return Message{}, invalidParams("message.parts["+itoa(i)+"]", problem)
		}
		m.Parts[i] = p
	}
	return m, nil
}

func toPart(w Wire, in *partIn) (Part, string) {
	p := Part{Metadata: nullToNil(in.Metadata)}
	if !isObjectOrNull(in.Metadata) {
		return p, "metadata must be an object"
	}
	if w == V10 {
		n := 0
		if in.Text != nil {
			n++
			p.Text, p.IsText = *in.Text, true
		}
		if in.Raw != nil {
			n++
			p.Raw = *in.Raw
		}
		if in.URL != nil {
			n++
			p.URL = *in.URL
		}
		if in.Data != nil {
			n++
			p.Data = in.Data
		}
		if n != 1 {
			return p, "exactly one of text, raw, url and data"
		}
		p.MediaType, p.Filename = in.MediaType, in.Filename
		return p, ""
	}
	if in.Kind == nil {
		return p, "kind is required"
	}
	switch *in.Kind {
	case "text":
		if in.Text == nil {
			return p, "a text part needs text"
		}
		p.Text, p.IsText = *in.Text, true
	case "file":
		f := in.File
		if f == nil || (f.Bytes == nil) == (f.URI == nil) {
			return p, "a file part needs a file with one of bytes and uri"
		}
		if f.Bytes != nil {
			p.Raw = *f.Bytes
		} else {
			p.URL = *f.URI
		}
		p.MediaType, p.Filename = f.MimeType, f.Name
	case "data":
		if len(in.Data) == 0 || in.Data[0] != '{' {
			return p, "a data part needs data, an object"
		}
		p.Data = in.Data
	default:
		return p, "unknown kind " + quote(*in.Kind)
	}
	return p, ""
}

func isObjectOrNull(v json.RawMessage) bool {
	return len(v) == 0 || v[0] == '{' || string(v) == "null"
}

// checkHistory checks a historyLength.
func checkHistory(field string, h *int) (int, error) {
	if h == nil {
		return -1, nil
	}
	if *h < 0 {
		return 0, invalidParams(field, "must not be negative")
	}
	return *h, nil
}

func quote(s string) string { return string(encode.AppendString(nil, s)) }

func itoa(i int) string { return strconv.Itoa(i) }

// nullToNil drops a JSON null, so that nothing renders it back.
func nullToNil(v json.RawMessage) json.RawMessage {
	if string(v) == "null" {
		return nil
	}
	return v
}
