package main

// NOTE: call is three steps, as serve is: parseCall turns the command line
// into a callConfig (a problem is a usage error, exit 2; the flag package
// prints its own); callConfig.run dials the target, sends the call or
// notification and prints the answer (an error response or a transport
// failure is exit 1), then with --listen keeps the connection open. What the
// server sends on its own goes to inboundPrinter, on the client's handler
// goroutine, which prints it and lets an engine without methods answer it.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
)

const callUsage = `Usage: jetrpc call [flags] METHOD [PARAMS]

Sends one call to a JSON-RPC 2.0 server (one notification with --notify) and
prints the result as raw JSON on stdout. PARAMS is a JSON array or object as
one argument, or "-" to read it from stdin; without PARAMS the request has no
params. Flags go before METHOD.

  jetrpc call subtract '[42,23]'
  jetrpc call subtract '{"minuend":42,"subtrahend":23}'
  echo '[42,23]' | jetrpc call subtract -

An error response is printed to stderr as
"jetrpc: call: METHOD: error CODE: MESSAGE (data: DATA)".
Exit status: 0 a result (or the notification sent), 1 an error response or a
transport failure, 2 a usage error.

Flags (at most one of --tcp, --http and --ws):
  --tcp ADDR       raw TCP server (default 127.0.0.1:7070, where "jetrpc serve" listens);
                   tls://ADDR for TLS
                     jetrpc call --tcp 127.0.0.1:7070 subtract '[42,23]'
  --http URL       POST to an HTTP server; a bare host:port means http://host:port/;
                   https:// for TLS
                     jetrpc call --http http://127.0.0.1:8080/ get_data
  --ws URL         WebSocket; a bare host:port means ws://host:port/ws, and so does
                   ws://host:port without a path; wss:// for TLS
                     jetrpc call --ws ws://127.0.0.1:8080/ws subscribe '[3]'
  --framing KIND   TCP framing: ndjson (default), header or len32
                     jetrpc call --framing len32 sum '[1,2,3]'
  --notify         send a notification; exit 0 once it is sent (over HTTP: on 204)
                     jetrpc call --notify update '[1,2,3,4,5]'
  --timeout D      bound on dialing and the call (default 10s)
                     jetrpc call --timeout 2s sleep '[500]'
  --listen D       TCP and WebSocket: after the answer, keep the connection open
                   for D and go on printing what the server sends (default 0)
                     jetrpc call --listen 5s subscribe '[3]'

TLS (with tls://, https:// or wss://; the server's certificate is checked
against the system's roots and the host dialled):
  --tls-ca FILE    trust the CA certificates in FILE (PEM) instead
                     jetrpc call --tcp tls://127.0.0.1:7070 --tls-ca ca.pem sum '[1,2]'
  --tls-cert FILE  present the client certificate in FILE (PEM), whose key
  --tls-key FILE   is in this one (servers that require client certificates)
  --tls-insecure   do not check the server's certificate (tests only)

Credentials (over HTTP and WebSocket in the request's headers; over TCP in an
rpc.authenticate call sent first on the connection):
  --header 'Name: value'  send this header line (HTTP, WebSocket; repeatable)
                     jetrpc call --http 127.0.0.1:8080 --header 'X-Api-Key: 123' get_data
  --token-file FILE  send the bearer token in FILE (jetrpc serve --tokens)
                     jetrpc call --token-file token.txt sum '[1,2]'
  --jwt-secret FILE  send an HS256 JWT signed with the hex secret in FILE, with a fresh
                     iat (go-ethereum's engine API; jetrpc serve --jwt-secret)
                     jetrpc call --http 127.0.0.1:8551 --jwt-secret jwt.hex eth_syncing

Messages the server sends on its own (notifications, calls) during the call
or the --listen time are printed to stderr, one line each: "<- " and the
JSON. Its calls are answered -32601 Method not found. They are handled on a
goroutine of their own, so one may be printed just after the result; those
that trail the answer need --listen to be seen.

When a call fails without an answer, call checks what listens at the
address and says so when it is the other kind of server ("this looks like
an HTTP server; use --http ADDR", or a raw TCP one for --http and --ws).
`

// defaultCallTCP is where "jetrpc serve" listens by default.
const defaultCallTCP = "127.0.0.1:7070"

// callConfig is what the call command line asks for.
type callConfig struct {
	target  string // "tcp", "http" or "ws"
	addr    string // TCP address or URL
	framing frame.Kind
	notify  bool
	timeout time.Duration
	listen  time.Duration
	method  string
	params  []byte           // a JSON array or object; nil: left out
	tls     *tls.Config      // nil: plain (tls.go)
	header  []string         // --header lines (call_auth.go)
	token   client.TokenFunc // --token-file, --jwt-secret; nil: none
}

// usageError is a problem with the command line: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// flagError is the flag package's error, which it has printed already.
type flagError struct{ error }

// runCall runs "jetrpc call".
func runCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseCall(args, stdin, stderr)
	var ue *usageError
	var fe *flagError
	switch {
	case err == nil:
		return cfg.run(ctx, stdout, stderr)
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &fe):
		return 2
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "jetrpc: call: %v\nRun \"jetrpc call -h\" for usage.\n", err)
		return 2
	}
	fmt.Fprintln(stderr, "jetrpc: call:", err)
	return 1
}

// parseCall parses and checks the command line. A *usageError or a
// *flagError is a usage error; flag.ErrHelp is -h; anything else (reading
// stdin) a runtime failure.
func parseCall(args []string, stdin io.Reader, stderr io.Writer) (*callConfig, error) {
	fs := flag.NewFlagSet("jetrpc call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), callUsage) }
	cfg := &callConfig{}
	var tcp, httpURL, wsURL, framing string
	fs.StringVar(&tcp, "tcp", defaultCallTCP, "")
	fs.StringVar(&httpURL, "http", "", "")
	fs.StringVar(&wsURL, "ws", "", "")
	fs.StringVar(&framing, "framing", "ndjson", "")
	fs.BoolVar(&cfg.notify, "notify", false, "")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Second, "")
	fs.DurationVar(&cfg.listen, "listen", 0, "")
	var tlsFlags tlsClientFlags
	tlsFlags.define(fs, false)
	var creds credFlags
	creds.define(fs, false)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &flagError{err}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := cfg.setTarget(given, tcp, httpURL, wsURL); err != nil {
		return nil, err
	}
	if err := cfg.setTLS(given, &tlsFlags); err != nil {
		return nil, err
	}
	if err := cfg.checkFlags(given["framing"], framing); err != nil {
		return nil, err
	}
	var o client.Options
	if err := creds.apply(&o); err != nil {
		return nil, err
	}
	cfg.header, cfg.token = o.Header, o.Token
	return cfg, cfg.setArgs(fs.Args(), stdin)
}

// setTarget sets the target from --tcp, --http or --ws, whichever was given
// (--tcp's default when none was).
func (cfg *callConfig) setTarget(given map[string]bool, tcp, httpURL, wsURL string) error {
	var names []string
	for _, name := range []string{"tcp", "http", "ws"} {
		if given[name] {
			names = append(names, "--"+name)
		}
	}
	if len(names) > 1 {
		return usageErrorf("%s: give at most one target", strings.Join(names, " and "))
	}
	var err error
	switch {
	case given["http"]:
		cfg.target = "http"
		cfg.addr, err = targetURL("http", httpURL, "/")
	case given["ws"]:
		cfg.target = "ws"
		cfg.addr, err = targetURL("ws", wsURL, "/ws")
	default:
		cfg.target, cfg.addr = "tcp", tcp
		if err = checkAddr("tcp", strings.TrimPrefix(tcp, tlsScheme)); err != nil {
			err = &usageError{err.Error()}
		}
	}
	return err
}

// targetURL checks the URL of --http or --ws (scheme is http or ws, the
// flag's name); one without a scheme gets scheme, and one without a path
// (a bare host:port, ws://host:port) gets path.
func targetURL(scheme, s, path string) (string, error) {
	if !strings.Contains(s, "://") {
		if !strings.Contains(s, "/") {
			s += path
		}
		s = scheme + "://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", usageErrorf("--%s %s: %v", scheme, s, err)
	}
	if u.Scheme != scheme && u.Scheme != scheme+"s" || u.Host == "" {
		article := map[bool]string{false: "a", true: "an"}[scheme == "http"]
		return "", usageErrorf("--%s %s: want %s %s:// or %ss:// URL with a host", scheme, s, article, scheme, scheme)
	}
	if u.Path == "" && u.RawQuery == "" {
		s += path
	}
	return s, nil
}

// checkFlags checks --framing, --timeout and --listen against the target.
func (cfg *callConfig) checkFlags(framingGiven bool, framing string) error {
	kind, err := frame.ParseKind(framing)
	switch {
	case err != nil || kind == frame.Auto:
		return usageErrorf("--framing %s: must be ndjson, header or len32", framing)
	case framingGiven && cfg.target != "tcp":
		return usageErrorf("--framing with --%s: the framing applies to --tcp only", cfg.target)
	case cfg.timeout <= 0:
		return usageErrorf("--timeout %v: must be positive", cfg.timeout)
	case cfg.listen < 0:
		return usageErrorf("--listen %v: must not be negative", cfg.listen)
	case cfg.listen > 0 && cfg.target == "http":
		return usageErrorf("--listen with --http: the server cannot send on its own over HTTP; use --tcp or --ws")
	}
	cfg.framing = kind
	return nil
}

// setArgs takes METHOD and PARAMS ("-": from stdin).
func (cfg *callConfig) setArgs(args []string, stdin io.Reader) error {
	switch {
	case len(args) == 0:
		return usageErrorf("missing METHOD: jetrpc call [flags] METHOD [PARAMS]")
	case len(args) > 2:
		hint := ""
		if strings.HasPrefix(args[2], "-") {
			hint = " (flags go before METHOD)"
		}
		return usageErrorf("unexpected argument %q%s", args[2], hint)
	case args[0] == "":
		return usageErrorf("METHOD is empty")
	}
	cfg.method = args[0]
	if len(args) == 1 {
		return nil
	}
	raw := []byte(args[1])
	if args[1] == "-" {
		var err error
		if raw, err = readParams(stdin); err != nil {
			return err
		}
	}
	var err error
	cfg.params, err = checkParams(raw)
	return err
}

// readParams reads PARAMS from stdin, at most the largest message a client
// sends.
func readParams(stdin io.Reader) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(stdin, frame.DefaultMaxMessage+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("params: reading stdin: %v", err)
	case len(raw) > frame.DefaultMaxMessage:
		return nil, usageErrorf("params: more than %d bytes on stdin", frame.DefaultMaxMessage)
	}
	return raw, nil
}

// checkParams checks that raw is one JSON array or object and returns it
// without the whitespace around it.
func checkParams(raw []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, usageErrorf("params: empty; want a JSON array or object")
	}
	var p decode.Parser
	if _, err := p.Parse(raw); err != nil {
		var se *decode.SyntaxError
		switch {
		case !errors.As(err, &se):
			return nil, usageErrorf("params: %v", err)
		case errors.Is(se.Err, decode.ErrSyntax):
			return nil, usageErrorf("params: invalid JSON at offset %d", se.Offset)
		}
		return nil, usageErrorf("params: invalid JSON at offset %d: %v", se.Offset, se.Err)
	}
	if trimmed[0] != '[' && trimmed[0] != '{' {
		return nil, usageErrorf("params: want a JSON array or object")
	}
	return trimmed, nil
}

// run dials, sends and prints; it returns the exit code.
func (cfg *callConfig) run(ctx context.Context, stdout, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	e := dispatch.New(&dispatch.Options{Logger: log}) // no methods: answers calls -32601
	defer e.Close()
	in := &inboundPrinter{e: e, w: stderr}
	defer in.stop() // after the client's Close: nothing is printed once run returns
	cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	// One request: an idle HTTP connection need not be kept for long.
	opts := &client.Options{Framing: cfg.framing, Handler: in, Logger: log, IdleTimeout: time.Second, TLS: cfg.tls,
		Header: cfg.header, Token: cfg.token}
	c, err := cfg.dial(cctx, opts)
	if err != nil {
		cfg.report(stderr, cfg.addr, err)
		cfg.hint(stderr, err)
		return 1
	}
	defer c.Close()
	err = cfg.send(cctx, c, stdout)
	cancel()
	var rpcErr *encode.Error
	if err != nil {
		cfg.report(stderr, cfg.method, err)
		if !errors.As(err, &rpcErr) {
			cfg.hint(stderr, err)
			return 1 // no answer: nothing to listen for
		}
	}
	if cfg.listen > 0 {
		sleep(ctx, cfg.listen)
	}
	if err != nil {
		return 1
	}
	return 0
}

// dial connects to the target.
func (cfg *callConfig) dial(ctx context.Context, opts *client.Options) (*client.Client, error) {
	switch cfg.target {
	case "http":
		return client.DialHTTP(cfg.addr, opts)
	case "ws":
		return client.DialWebSocket(ctx, cfg.addr, opts)
	}
	return client.Dial(ctx, "tcp", cfg.addr, opts)
}

// send sends the call and prints its result, or sends the notification.
func (cfg *callConfig) send(ctx context.Context, c *client.Client, stdout io.Writer) error {
	if cfg.notify {
		var params any
		if cfg.params != nil {
			params = json.RawMessage(cfg.params)
		}
		return c.Notify(ctx, cfg.method, params)
	}
	res, err := c.CallRaw(ctx, nil, cfg.method, cfg.params)
	if err == nil {
		_, err = stdout.Write(append(res, '\n'))
	}
	return err
}

// report prints err on stderr: an error response as
// "METHOD: error CODE: MESSAGE (data: DATA)", anything else after what
// (the method, or the address for a failed dial).
func (cfg *callConfig) report(stderr io.Writer, what string, err error) {
	var rpcErr *encode.Error
	var httpErr *client.HTTPError
	b := []byte("jetrpc: call: ")
	switch {
	case errors.As(err, &rpcErr):
		b = fmt.Appendf(b, "%s: error %d: %s", cfg.method, rpcErr.Code, rpcErr.Message)
		if len(rpcErr.Data) > 0 {
			b = fmt.Appendf(b, " (data: %s)", rpcErr.Data)
		}
	case errors.Is(err, context.DeadlineExceeded):
		b = fmt.Appendf(b, "%s: timed out after %v (--timeout)", what, cfg.timeout)
	case errors.Is(err, context.Canceled):
		b = fmt.Appendf(b, "%s: interrupted", what)
	case cfg.tls != nil && cfg.target == "http" && errors.Is(err, client.ErrConnectionClosed):
		b = fmt.Appendf(b, "%s: %s: the server closed the connection without an answer "+
			"(one that requires a client certificate does so: give --tls-cert and --tls-key)", what, cfg.addr)
	case errors.As(err, &httpErr):
		b = fmt.Appendf(b, "%s: %s: HTTP status %d", what, cfg.addr, httpErr.StatusCode)
		if body := bytes.TrimSpace(httpErr.Body); len(body) > 0 {
			b = fmt.Appendf(b, " (%q)", body)
		}
	default:
		b = fmt.Appendf(b, "%s: %s", what, clip(err.Error()))
	}
	stderr.Write(append(b, '\n'))
}

// hint adds a line when a transport failure came from the wrong kind of
// server: an HTTP one for --tcp, a raw TCP one for --http or --ws.
func (cfg *callConfig) hint(stderr io.Writer, err error) {
	if cfg.tls != nil || errors.Is(err, context.Canceled) {
		return
	}
	if h := wrongTransport(cfg.target, cfg.addr); h != "" {
		fmt.Fprintln(stderr, "jetrpc: call:", h)
	}
}

// clip shortens a long error text (some quote a whole response).
func clip(s string) string {
	const most = 300
	if len(s) <= most {
		return s
	}
	return strings.ToValidUTF8(s[:most], "") + "..."
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// inboundPrinter is the client's Handler: it prints each message the server
// sends on its own as one line "<- " + JSON, then lets e, an engine without
// methods, answer it (-32601 for a call, nothing for a notification). After
// stop it prints nothing more.
type inboundPrinter struct {
	e    *dispatch.Engine
	mu   sync.Mutex
	w    io.Writer // nil once stopped
	line []byte
}

var _ client.Handler = (*inboundPrinter)(nil)

func (p *inboundPrinter) Process(dst, msg []byte) []byte {
	p.print(msg)
	return p.e.Process(dst, msg)
}

func (p *inboundPrinter) print(msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	p.line = appendOneLine(append(p.line[:0], "<- "...), msg)
	p.line = append(p.line, '\n')
	p.w.Write(p.line)
}

func (p *inboundPrinter) stop() {
	p.mu.Lock()
	p.w = nil
	p.mu.Unlock()
}

// appendOneLine appends msg, valid JSON, to dst on one line: compacted if it
// spans lines.
func appendOneLine(dst, msg []byte) []byte {
	msg = bytes.TrimSpace(msg)
	if !bytes.ContainsAny(msg, "\r\n") {
		return append(dst, msg...)
	}
	b := bytes.NewBuffer(dst)
	if json.Compact(b, msg) != nil {
		return append(dst, msg...)
	}
	return b.Bytes()
}
