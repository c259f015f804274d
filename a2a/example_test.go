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

// A card that declares OAuth: Options.Security names the authorization
// server's metadata, the authorization code flow and the scopes every
// call needs. One card document carries the scheme in both versions'
// shapes: 1.0's oauth2SecurityScheme and securityRequirements, 0.3's
// flattened scheme and security.
func ExampleOptions_security() {
	s := a2a.New(a2a.AgentCard{Name: "greeter", Description: "Says hello."}, a2a.ExecutorFunc(func(context.Context, *a2a.Run) error { return nil }),
		&a2a.Options{Security: &a2a.OAuth2Security{
			MetadataURL:      "https://auth.example.com/.well-known/oauth-authorization-server",
			AuthorizationURL: "https://auth.example.com/authorize", TokenURL: "https://auth.example.com/token",
			Scopes: map[string]string{"agent": "call the agent"}, Required: []string{"agent"}}})
	defer s.Close()
	var card struct {
		SecuritySchemes map[string]struct {
			Type                 string   // 0.3
			OAuth2MetadataURL    string   `json:"oauth2MetadataUrl"`
			OAuth2SecurityScheme struct { // 1.0
				Flows struct{ AuthorizationCode struct{ TokenURL string } }
			}
		}
		Security             []map[string][]string // 0.3
		SecurityRequirements []struct {
			Schemes map[string]struct{ List []string }
		} // 1.0
	}
	if err := json.Unmarshal(s.Card("https://agent.example.com/a2a"), &card); err != nil {
		panic(err)
	}
	o := card.SecuritySchemes[a2a.SchemeName]
	fmt.Println(o.Type, o.OAuth2MetadataURL)
	fmt.Println(o.OAuth2SecurityScheme.Flows.AuthorizationCode.TokenURL)
	fmt.Println(card.Security[0]["oauth"], card.SecurityRequirements[0].Schemes["oauth"].List)
	// Output:
	// oauth2 https://auth.example.com/.well-known/oauth-authorization-server
	// https://auth.example.com/token
	// [agent] [agent]
}
