package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// Updates and content blocks are written with the members of their kind
// (the required ones always) and read back to the same values.
func TestUpdateJSON(t *testing.T) {
	line := 3
	old := "a"
	f := func(u acp.SessionUpdate, want string) {
		t.Helper()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(acp.SessionNotification{SessionID: "s", Update: u}); err != nil {
			t.Fatal(err)
		}
		b := bytes.TrimSpace(buf.Bytes())
		if got := string(b); got != `{"sessionId":"s","update":`+want+`}` {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		var back acp.SessionNotification
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Update, u) {
			t.Fatalf("read back %+v\nwant %+v", back.Update, u)
		}
	}
	f(acp.AgentMessage(acp.TextBlock("")), `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""}}`)
	f(acp.SessionUpdate{Kind: acp.AgentThoughtChunk, Content: acp.TextBlock("<x> \"q\""), MessageID: "m1"},
		`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"<x> \"q\""},"messageId":"m1"}`)
	f(acp.UserMessage(acp.ContentBlock{Type: "resource_link", URI: "file:///a", Name: "a", Size: new(int64)}),
		`{"sessionUpdate":"user_message_chunk","content":{"type":"resource_link","uri":"file:///a","name":"a","size":0}}`)
	f(acp.UserMessage(acp.ContentBlock{Type: "resource", Resource: &acp.EmbeddedResource{URI: "u", Text: ""}}),
		`{"sessionUpdate":"user_message_chunk","content":{"type":"resource","resource":{"uri":"u","text":""}}}`)
	f(acp.UserMessage(acp.ContentBlock{Type: "image", Data: "AA==", MimeType: "image/png"}),
		`{"sessionUpdate":"user_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`)
	f(acp.StartToolCall(acp.ToolCall{ToolCallID: "c"}), `{"sessionUpdate":"tool_call","toolCallId":"c","title":""}`)
	f(acp.UpdateToolCall(acp.ToolCall{ToolCallID: "c", Status: acp.StatusCompleted,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("t")),
			{Type: "diff", Path: "/p", OldText: &old, NewText: ""}, {Type: "terminal", TerminalID: "t1"}},
		Locations: []acp.ToolCallLocation{{Path: "/p", Line: &line}}, RawOutput: json.RawMessage(`{"n":1}`)}),
		`{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[{"type":"content","content":{"type":"text","text":"t"}},`+
			`{"type":"diff","path":"/p","oldText":"a","newText":""},{"type":"terminal","terminalId":"t1"}],"locations":[{"path":"/p","line":3}],"rawOutput":{"n":1}}`)
	f(acp.SessionUpdate{Kind: acp.PlanUpdated, Entries: []acp.PlanEntry{{Content: "x", Priority: "high", Status: "pending"}}},
		`{"sessionUpdate":"plan","entries":[{"content":"x","priority":"high","status":"pending"}]}`)
	f(acp.SessionUpdate{Kind: acp.AvailableCommandsUpdate, AvailableCommands: []acp.AvailableCommand{{Name: "n", Description: "d",
		Input: &acp.AvailableCommandInput{Hint: "h"}}}},
		`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"n","description":"d","input":{"hint":"h"}}]}`)
	f(acp.ModeChanged("code"), `{"sessionUpdate":"current_mode_update","currentModeId":"code"}`)
	f(acp.SessionUpdate{Kind: "usage_update", Raw: json.RawMessage(`{"sessionUpdate":"usage_update","used":1,"size":2}`)},
		`{"sessionUpdate":"usage_update","used":1,"size":2}`)
}

// Update allocates nothing: the notification is appended into pooled
// buffers and handed to the connection.
func TestUpdateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	e := dispatch.New(nil)
	defer e.Close()
	srv := acp.NewServer(acpdemoNew(), nil)
	n := 0
	conn := engineconn.NewConn(e, nil, engineconn.SendFunc(func(ctx context.Context, msg []byte) error { n += len(msg); return nil }), false)
	defer conn.Close()
	ctx := conn.Context()
	c := srv.ClientOf(ctx)
	u := acp.AgentMessage(acp.TextBlock("hello, world"))
	u.MessageID = "msg_1"
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Update(ctx, "sess_0123456789abcdef", u); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || n == 0 {
		t.Fatalf("Update: %v allocs per call (sent %d bytes)", allocs, n)
	}
}
