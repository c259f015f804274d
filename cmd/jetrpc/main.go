// Command jetrpc is the jetrpc command line: "jetrpc serve" runs the demo
// JSON-RPC 2.0 server over TCP, HTTP (with SSE and WebSocket) and stdio;
// "jetrpc bench" load-tests jetrpc beside an encoding/json baseline;
// "jetrpc call" sends one call or notification over TCP, HTTP or WebSocket
// and prints the result. Run "jetrpc help" for the commands and
// "jetrpc <command> -h" for the flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `Usage: jetrpc <command> [flags]

Commands:
  serve   run the demo JSON-RPC 2.0 server over TCP, HTTP and stdio
  proxy   forward JSON-RPC calls to upstream servers: route, fail over, hedge, cache
  bench   load-test jetrpc beside an encoding/json baseline (or --target ADDR)
  call    send one request to a server and print the response
  gen     write a typed Go client and server interface from an OpenRPC document
  ui      serve the web console for a JSON-RPC server (http, ws or tcp)
  help    print this help

Run "jetrpc <command> -h" for the flags of a command.
`

// run runs the command line args (without the program name) until it is
// done or ctx is cancelled, and returns the exit code: 0 success, 1 a
// runtime failure, 2 a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr} // shared by the log and the messages
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdin, stdout, stderr)
	case "proxy":
		return proxy(ctx, args[1:], stdin, stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "call":
		return runCall(ctx, args[1:], stdin, stdout, stderr)
	case "gen":
		return runGen(ctx, args[1:], stdout, stderr)
	case "ui":
		return runUI(ctx, args[1:], stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "jetrpc: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
