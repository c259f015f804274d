package guard_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// One Guard for a TCP and an HTTP server: both require a bearer token. A
// TCP client authenticates with its first call, rpc.authenticate; an HTTP
// client sends "Authorization: Bearer TOKEN" with each request.
func Example() {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	tokens, err := auth.ParseTokens(strings.NewReader("alice alice-token-0123456789\n"))
	if err != nil {
		panic(err)
	}
	g := guard.New(&guard.Options{Auth: tokens, RateLimit: 100})
	tcp := netserver.New(e, &netserver.Options{Guard: g})
	web := nethttp.New(e, &netserver.Options{Guard: g})
	tcpLn, _ := net.Listen("tcp", "127.0.0.1:0")
	webLn, _ := net.Listen("tcp", "127.0.0.1:0")
	go tcp.Serve(tcpLn)
	go web.Serve(webLn)
	defer tcp.Shutdown(context.Background())
	defer web.Shutdown(context.Background())

	c, err := net.Dial("tcp", tcpLn.Addr().String())
	if err != nil {
		panic(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	call := func(msg string) {
		io.WriteString(c, msg+"\n")
		line, _ := r.ReadString('\n')
		fmt.Print(line)
	}
	call(`{"jsonrpc":"2.0","method":"rpc.authenticate","params":{"token":"alice-token-0123456789"},"id":1}`)
	call(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`)

	post := func(token string) {
		req, _ := http.NewRequest("POST", "http://"+webLn.Addr().String(),
			strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":3}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)), resp.Header.Get("WWW-Authenticate"))
	}
	post("")
	post("alice-token-0123456789")
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"name":"alice","scheme":"bearer"}}
	// {"jsonrpc":"2.0","id":2,"result":19}
	// 401 missing credentials Bearer realm="jetrpc"
	// 200 {"jsonrpc":"2.0","id":3,"result":19}
}

// An OriginPolicy lets browser pages of the listed origins (and of the
// server's own host) call the server; other pages get 403.
func ExampleOriginPolicy() {
	p, err := guard.ParseOriginPolicy("https://app.example.com, null")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Allow("", "rpc.example.com"))                        // not a browser
	fmt.Println(p.Allow("https://app.example.com", "rpc.example.com")) // listed
	fmt.Println(p.Allow("https://rpc.example.com", "rpc.example.com")) // the server's own page
	fmt.Println(p.Allow("https://evil.example", "rpc.example.com"))
	// Output:
	// true
	// true
	// true
	// false
}

// A HostPolicy answers localhost, IP literals and the listed names only,
// against DNS rebinding.
func ExampleHostPolicy() {
	p, err := guard.ParseHostPolicy("rpc.example.com")
	if err != nil {
		panic(err)
	}
	for _, host := range []string{"localhost:8545", "127.0.0.1:8545", "RPC.example.com", "rebind.attacker.example"} {
		fmt.Println(host, p.Allow(host))
	}
	// Output:
	// localhost:8545 true
	// 127.0.0.1:8545 true
	// RPC.example.com true
	// rebind.attacker.example false
}

// An OAuth resource server's guard: Challenge points a refused client at
// the protected resource metadata (package auth/oauth builds the value),
// and Public serves that document without a token.
func ExampleOptions_challenge() {
	e := dispatch.New(nil)
	defer e.Close()
	tokens, err := auth.ParseTokens(strings.NewReader("alice alice-token-0123456789\n"))
	if err != nil {
		panic(err)
	}
	const meta = "/.well-known/oauth-protected-resource"
	g := guard.New(&guard.Options{Auth: tokens, Public: []string{meta},
		Challenge: func(dst []byte, err error) []byte {
			return append(dst, `Bearer resource_metadata="https://rpc.example.com`+meta+`"`...)
		}})
	web := nethttp.New(e, &netserver.Options{Guard: g, Documents: map[string]func() ([]byte, error){
		meta: func() ([]byte, error) { return []byte(`{"resource":"https://rpc.example.com/"}`), nil },
	}})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go web.Serve(ln)
	defer web.Shutdown(context.Background())

	resp, err := http.Post("http://"+ln.Addr().String(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"x","id":1}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	resp, err = http.Get("http://" + ln.Addr().String() + meta)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	// Output:
	// 401 Bearer resource_metadata="https://rpc.example.com/.well-known/oauth-protected-resource"
	// 200 {"resource":"https://rpc.example.com/"}
}
