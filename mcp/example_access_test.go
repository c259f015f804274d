package mcp_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/auth/oauth"
	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
)

// Options.Access hides from each caller what its scopes do not allow and
// refuses calling it. Here the caller's identity comes with its context
// (as a transport gives it); its OAuth token has the scope mcp, and add
// needs math too.
func ExampleOptions_access() {
	rules, err := oauth.ParseScopeRules([]string{"*=mcp", "add=mcp math"})
	if err != nil {
		panic(err)
	}
	s := mcp.New(mcp.Implementation{Name: "example", Version: "1"}, &mcp.Options{Access: rules})
	defer s.Close()
	if err := mcpdemo.Register(s); err != nil {
		panic(err)
	}
	alice := &auth.Identity{Name: "alice", Scheme: oauth.Scheme, Attrs: &oauth.Token{Subject: "alice", Scopes: []string{"mcp"}}}
	ctx := auth.WithIdentity(context.Background(), alice)
	call := func(req string) {
		fmt.Println(string(s.Engine().ProcessContext(ctx, nil, []byte(req))))
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	fmt.Println(oauth.StepUpScope(alice, rules.Needed("add")))
	// Output:
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32007,"message":"Forbidden","data":{"name":"add","scope":"mcp math"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}
	// mcp math
}
