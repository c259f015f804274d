package auth_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// Static bearer tokens name the clients, and the rules of the tokens file
// restrict what one of them may call. A transport (package netserver, with
// a guard) does the authenticating; here it is done by hand, and the
// identity put in the call's context as the transport would.
func Example() {
	tokens, err := auth.ParseTokens(strings.NewReader(
		"ops ops-token-0123456789\n" +
			"reader reader-token-0123456789 sum get_*\n"))
	if err != nil {
		panic(err)
	}
	id, err := tokens.Authenticate(&auth.Request{Transport: "http", Token: []byte("reader-token-0123456789")})
	fmt.Println(id.Name, id.Scheme, err)
	_, err = tokens.Authenticate(&auth.Request{Transport: "http", Token: []byte("guess")})
	fmt.Println(auth.Reason(err))

	rules := tokens.Rules()
	rules["ops"] = []string{"*"}
	mw, err := auth.Authorize(rules)
	if err != nil {
		panic(err)
	}
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	if err := e.Use(mw); err != nil {
		panic(err)
	}
	ctx := auth.WithIdentity(context.Background(), id)
	fmt.Printf("%s\n", e.ProcessContext(ctx, nil, []byte(`{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}`)))
	fmt.Printf("%s\n", e.ProcessContext(ctx, nil, []byte(`{"jsonrpc":"2.0","method":"echo","params":[1],"id":2}`)))
	// Output:
	// reader bearer <nil>
	// unknown token
	// {"jsonrpc":"2.0","id":1,"result":3}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32007,"message":"Forbidden","data":"method \"echo\" is not allowed for this client"}}
}
