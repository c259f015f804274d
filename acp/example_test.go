package acp_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/dispatch"
)

// echoAgent answers every prompt by sending its text back as one agent
// message chunk, then ends the turn.
type echoAgent struct{}

func (echoAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{AgentInfo: &acp.Implementation{Name: "echo", Version: "1.0.0"}}, nil
}

func (echoAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s1"}, nil
}

func (echoAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	var text strings.Builder
	for _, b := range req.Prompt {
		text.WriteString(b.Text)
	}
	// The editor receives this session/update before the turn's answer.
	if err := acp.ClientOf(ctx).Update(ctx, req.SessionID, acp.AgentMessage(acp.TextBlock("you said: "+text.String()))); err != nil {
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
}

func (echoAgent) Cancel(ctx context.Context, n *acp.CancelNotification) error { return nil }

// printingEditor prints the agent's messages and denies every permission request.
type printingEditor struct{}

func (printingEditor) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	fmt.Printf("update %s: %s\n", n.Update.Kind, n.Update.Content.Text)
	return nil
}

func (printingEditor) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome}, nil
}

// duplex joins the two pipe ends of one side into its connection;
// closing it closes both.
type duplex struct {
	*io.PipeReader
	*io.PipeWriter
}

func (d duplex) Close() error {
	d.PipeReader.Close()
	return d.PipeWriter.Close()
}

// Example runs an agent and an editor in one process, joined by pipes:
// the agent is served as jetrpc serve --stdio --acp serves it (NDJSON over
// its stdin and stdout), and the editor calls it with an AgentConn, as it
// would call an agent process started with StartAgent.
func Example() {
	// The agent's side: an engine with ACP's error codes, the agent's
	// methods registered on it, served over a stream.
	e := dispatch.New(&dispatch.Options{Codes: acp.EngineCodes()})
	defer e.Close()
	srv := acp.NewServer(echoAgent{}, nil)
	if err := srv.Register(e); err != nil {
		fmt.Println(err)
		return
	}
	toAgent, editorOut := io.Pipe()
	editorIn, fromAgent := io.Pipe()
	stream := srv.StreamServer(e, nil)
	served := make(chan error, 1)
	go func() { served <- stream.ServeStdio(toAgent, fromAgent) }()

	// The editor's side.
	agent, err := acp.NewAgentConn(duplex{editorIn, editorOut}, printingEditor{}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	init, err := agent.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("agent:", init.AgentInfo.Name, "protocol", init.ProtocolVersion)
	sess, err := agent.NewSession(ctx, &acp.NewSessionRequest{Cwd: "/tmp", MCPServers: []acp.MCPServer{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := agent.Prompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock("hello")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stop:", resp.StopReason)

	agent.Close()
	toAgent.Close()
	fromAgent.Close()
	stream.Shutdown(ctx)
	<-served
	// Output:
	// agent: echo protocol 1
	// update agent_message_chunk: you said: hello
	// stop: end_turn
}
