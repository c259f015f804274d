package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/openrpc/gen"
	"github.com/valyala/fasthttp"
)

// genFile is the name of the file jetrpc gen writes in --out.
const genFile = "openrpc_gen.go"

// genTimeout bounds fetching a document from a server.
const genTimeout = 30 * time.Second

// runGen runs "jetrpc gen [--out DIR] [--package NAME] FILE|URL".
func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jetrpc gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", ".", "write the package to `DIR` (created if need be), as "+genFile)
	pkg := fs.String("package", "", "the package `NAME` (default: DIR's name, else from the document's title)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: jetrpc gen [--out DIR] [--package NAME] FILE|URL\n\n"+
			"Writes a typed Go client and server interface from an OpenRPC document: a file (- for stdin),\n"+
			"an http(s):// URL (GET when it ends in .json, else the server's rpc.discover), or tcp://HOST:PORT\n"+
			"or ws(s):// (rpc.discover).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jetrpc gen: want one FILE or URL\nRun \"jetrpc gen -h\" for usage.")
		return 2
	}
	doc, err := readDocument(ctx, fs.Arg(0))
	if err == nil {
		err = writePackage(doc, *out, packageFor(*pkg, *out))
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc gen:", err)
		return 1
	}
	fmt.Fprintln(stdout, filepath.Join(*out, genFile))
	return 0
}

// packageFor is the package name: given, or DIR's base name when it is an
// identifier, or empty (gen then takes it from the title).
func packageFor(pkg, dir string) string {
	if pkg != "" || dir == "." {
		return pkg
	}
	base := filepath.Base(dir)
	for i, r := range base {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return ""
		}
	}
	return base
}

func writePackage(doc []byte, dir, pkg string) error {
	src, err := gen.Generate(doc, &gen.Options{Package: pkg})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, genFile), src, 0o644)
}

// readDocument reads the document at src: a file, stdin, or a server.
func readDocument(ctx context.Context, src string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, genTimeout)
	defer cancel()
	scheme, _, _ := strings.Cut(src, "://")
	switch scheme {
	case "http", "https":
		if strings.HasSuffix(src, ".json") {
			return httpGet(src)
		}
		return discover(ctx, func() (*client.Client, error) { return client.DialHTTP(src, nil) })
	case "tcp":
		return discover(ctx, func() (*client.Client, error) {
			return client.Dial(ctx, "tcp", strings.TrimPrefix(src, "tcp://"), nil)
		})
	case "ws", "wss":
		return discover(ctx, func() (*client.Client, error) { return client.DialWebSocket(ctx, src, nil) })
	}
	if src == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(src)
}

// discover calls rpc.discover on the client dial returns.
func discover(ctx context.Context, dial func() (*client.Client, error)) ([]byte, error) {
	c, err := dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	doc, err := c.CallRaw(ctx, nil, "rpc.discover", nil)
	if err != nil {
		return nil, fmt.Errorf("rpc.discover: %w", err)
	}
	return doc, nil
}

func httpGet(url string) ([]byte, error) {
	status, body, err := fasthttp.GetTimeout(nil, url, genTimeout)
	if err != nil {
		return nil, err
	}
	if status != fasthttp.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d", url, status)
	}
	return body, nil
}
