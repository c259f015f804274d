// Command benchserver is a Go server of interop/a2a's benchmarks (#21),
// in a process of its own as the a2a-js one (jsagent/server.mjs) is:
//
//	benchserver -impl jetrpc   # jetrpc's a2a package (fasthttp), both wires
//	benchserver -impl a2a-go   # a2a-go v0.3.3's a2asrv (net/http), 0.3
//	benchserver -impl fixed    # fixed bytes: the load generator's ceiling
//
// Each serves the same instant echo agent (a submitted task, working, an
// artifact with the text, completed with the text as the status message)
// on 127.0.0.1 at an ephemeral port, and prints "listening URL" with its
// JSON-RPC endpoint on stdout. A "stats" line on stdin is answered with
// "stats RSS HEAP MALLOCS BYTES" (bytes of resident memory, of heap in
// use, and the runtime's cumulative count and bytes of allocations), and
// the end of stdin stops it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"

	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/valyala/fasthttp"
)

// fixedAnswer is what -impl fixed answers to every POST.
const fixedAnswer = `{"jsonrpc":"2.0","id":1,"result":{"id":"t","contextId":"c","status":{"state":"completed"},"kind":"task"}}`

func main() {
	impl := flag.String("impl", "jetrpc", "jetrpc, a2a-go or fixed")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	switch *impl {
	case "jetrpc":
		s := a2a.New(a2ademo.Card(), a2ademo.Echo(&a2ademo.Timings{}), &a2a.Options{MaxTasks: 1000})
		defer s.Close()
		go serveFast(ln, s.ServeFastHTTP)
		url += "/a2a"
	case "a2a-go":
		go http.Serve(ln, a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(goEcho{})))
		url += "/"
	case "fixed":
		body := []byte(fixedAnswer)
		go serveFast(ln, func(ctx *fasthttp.RequestCtx) { ctx.SetContentType("application/json"); ctx.SetBody(body) })
		url += "/"
	default:
		log.Fatalf("unknown -impl %q", *impl)
	}
	fmt.Println("listening", url)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "stats" {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Println("stats", rss(), m.HeapInuse, m.Mallocs, m.TotalAlloc)
		}
	}
}

func serveFast(ln net.Listener, h fasthttp.RequestHandler) {
	if err := (&fasthttp.Server{Handler: h}).Serve(ln); err != nil {
		log.Print(err)
	}
}

// rss is this process's resident memory in bytes (0 if unknown).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(rest, &kb)
			return kb << 10
		}
	}
	return 0
}
