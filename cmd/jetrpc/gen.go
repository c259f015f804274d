package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
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
	out := fs.String("out", "", "write the package to `DIR` (created if need be), as "+genFile+
		"\n(default: a new directory named after the package, in the current one)")
	pkg := fs.String("package", "", "the package `NAME` (default: DIR's name, else from the document's title)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: jetrpc gen [--out DIR] [--package NAME] FILE|URL|ADDR\n\n"+
			"Writes a typed Go client and server interface from an OpenRPC document: a file (- for stdin),\n"+
			"an http(s):// URL (GET when it ends in .json, else the server's rpc.discover), or the\n"+
			"rpc.discover of a server at the addresses \"jetrpc call\" takes: tcp://HOST:PORT or a bare\n"+
			"HOST:PORT (raw TCP; an HTTP server there is asked over HTTP), ws(s)://HOST:PORT[/PATH]\n"+
			"(/ws when there is no path). It refuses to write into a directory holding another package.\n\n")
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
	var file string
	if err == nil {
		file, err = writePackage(doc, *out, packageFor(*pkg, *out))
	}
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc gen:", err)
		return 1
	}
	fmt.Fprintln(stdout, file)
	return 0
}

// packageFor is the package name: given, or DIR's base name when it is an
// identifier, or empty (gen then takes it from the title).
func packageFor(pkg, dir string) string {
	if pkg != "" || dir == "." || dir == "" {
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

// writePackage generates the package pkg (empty: named after the title)
// from doc into dir (empty: a directory named after the package) and
// returns the file's path. It refuses a directory that holds Go files of
// another package.
func writePackage(doc []byte, dir, pkg string) (string, error) {
	src, err := gen.Generate(doc, &gen.Options{Package: pkg})
	if err != nil {
		return "", err
	}
	name, err := packageName("", src)
	if err != nil {
		return "", err
	}
	given := dir != ""
	if !given {
		dir = name
	}
	if other, file := otherPackage(dir, name); other != "" {
		fix := "give --out NEWDIR"
		if !given {
			fix = "give --out NEWDIR or --package NAME"
		}
		return "", fmt.Errorf("%s holds package %s (%s), and the generated code is package %s: %s",
			dir, other, file, name, fix)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, genFile)
	return file, os.WriteFile(file, src, 0o644)
}

// packageName reads the package clause of the Go source src (a []byte),
// or of file when src is nil.
func packageName(file string, src any) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	return f.Name.Name, nil
}

// otherPackage returns the package of a Go file in dir that is not pkg (nor
// its external test package, nor the generated file gen would replace), and
// that file's name; "" when there is none.
func otherPackage(dir, pkg string) (other, file string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if filepath.Base(f) == genFile {
			continue
		}
		name, err := packageName(f, nil)
		if err == nil && name != pkg && name != pkg+"_test" {
			return name, f
		}
	}
	return "", ""
}

// readDocument reads the document at src: a file, stdin, or a server at
// one of the addresses "jetrpc call" takes.
func readDocument(ctx context.Context, src string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, genTimeout)
	defer cancel()
	scheme, _, _ := strings.Cut(src, "://")
	switch scheme {
	case "http", "https":
		if strings.HasSuffix(src, ".json") {
			return httpGet(src)
		}
		return discoverHTTP(ctx, src)
	case "tcp":
		return discoverTCP(ctx, strings.TrimPrefix(src, "tcp://"), false)
	case "ws", "wss":
		u, err := targetURL("ws", src, "/ws")
		if err != nil {
			return nil, err
		}
		return discover(ctx, func() (*client.Client, error) { return client.DialWebSocket(ctx, u, nil) })
	}
	if src == "-" {
		return io.ReadAll(os.Stdin)
	}
	if _, err := os.Stat(src); err != nil && isHostPort(src) { // a bare HOST:PORT, as call's --tcp
		return discoverTCP(ctx, src, true)
	}
	return os.ReadFile(src)
}

// isHostPort reports whether s is a HOST:PORT with a numeric port.
func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	if err != nil || port == "" {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}

// discoverHTTP calls rpc.discover over HTTP at url.
func discoverHTTP(ctx context.Context, url string) ([]byte, error) {
	return discover(ctx, func() (*client.Client, error) { return client.DialHTTP(url, nil) })
}

// discoverTCP calls rpc.discover over raw TCP at addr. When that fails and
// an HTTP server listens there, bare (an address without a scheme) asks it
// over HTTP instead; otherwise the error says to.
func discoverTCP(ctx context.Context, addr string, bare bool) ([]byte, error) {
	doc, err := discover(ctx, func() (*client.Client, error) { return client.Dial(ctx, "tcp", addr, nil) })
	if err == nil || ctx.Err() != nil {
		return doc, err
	}
	var rpcErr *encode.Error
	if errors.As(err, &rpcErr) || sniff(addr) != kindHTTP {
		return nil, err
	}
	if bare {
		return discoverHTTP(ctx, "http://"+addr+"/")
	}
	return nil, fmt.Errorf("%w (%s: this looks like an HTTP server; use http://%s/)", err, addr, addr)
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
