package a2a_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jetrpc/jetrpc/a2a"
)

// An agent is a card and an executor. Mount s.ServeFastHTTP at POST /a2a
// and s.ServeCard at /.well-known/agent-card.json (jetrpc serve --a2a
// does); here one blocking message/send (A2A 0.3) is driven in process,
// through the engine of that wire.
func Example() {
	card := a2a.AgentCard{Name: "greeter", Description: "Says hello.", Version: "1.0.0",
		Skills: []a2a.AgentSkill{{ID: "greet", Name: "Greet", Description: "Greets whoever writes.", Tags: []string{"demo"}}}}
	s := a2a.New(card, a2a.ExecutorFunc(func(ctx context.Context, r *a2a.Run) error {
		who := r.Message.Parts[0].Text
		r.Status(a2a.StateWorking, nil)
		r.Artifact(a2a.Artifact{Parts: []a2a.Part{a2a.TextPart("hello, " + who)}}, false, true)
		return nil // completed
	}), nil) // nil options: a streamstore.Memory keeps the tasks' events
	defer s.Close()

	req := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":` +
		`{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"Ada"}]},` +
		`"configuration":{"blocking":true}}}` // wait for the task to end
	var out struct {
		Result struct {
			Kind      string
			Status    struct{ State string }
			Artifacts []struct{ Parts []struct{ Text string } }
		}
	}
	if err := json.Unmarshal(s.Engine(a2a.V03).Process(nil, []byte(req)), &out); err != nil {
		panic(err)
	}
	fmt.Println(out.Result.Kind, out.Result.Status.State, out.Result.Artifacts[0].Parts[0].Text)
	// Output:
	// task completed hello, Ada
}
