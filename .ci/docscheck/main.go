// Command docscheck checks the code blocks of README.md and docs/*.md
// (.ci/docs-check.sh runs it; no dependencies beyond the standard library).
//
//   - Every ```go block compiles. A block with a package clause is a file
//     of its own (package main: a command); any other block is a fragment,
//     compiled as the body of a function in a package whose prelude
//     (prelude.go here) declares what fragments use without declaring
//     (ctx, e, ...). Imports are added for the package names a fragment
//     uses; variables it declares and does not use are fine. The blocks
//     build in a temporary module whose go.mod is the checkout's with a
//     replace directive to it; a block that imports the official MCP Go
//     SDK builds in one made from interop/mcp/go.mod instead.
//   - Every ```sh block parses (bash -n).
//   - A ```sh block after the line <!-- docs-check: serve --> starts the
//     server: its one "jetrpc serve" command runs the built binary on free
//     ports. Each ```sh block after <!-- docs-check: run --> then runs
//     against it with bash, its 127.0.0.1:7070 and :8080 (and localhost:8080)
//     rewritten to the ports bound, "jetrpc" and "go run ./cmd/jetrpc" to
//     the binary. A command followed by comment lines "# VALUE", or ending
//     in "# VALUE", where VALUE is JSON, must print that JSON (compared
//     compacted); other comments are prose. The server stops at the next
//     serve block and at the end of the file.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

//go:embed prelude.go.txt
var prelude string

type block struct {
	file   string // relative to the root
	line   int    // of the first line of code
	lang   string
	marker string // "serve", "run" or ""
	code   string
}

var (
	root = flag.String("root", "../..", "the checkout")
	bin  = flag.String("bin", "", "the jetrpc binary (run blocks)")
	keep = flag.Bool("keep", false, "keep the temporary directory")
)

func main() {
	flag.Parse()
	abs, err := filepath.Abs(*root)
	if err != nil {
		fatal(err)
	}
	*root = abs
	files := []string{"README.md"}
	docs, _ := filepath.Glob(filepath.Join(*root, "docs", "*.md"))
	for _, d := range docs {
		rel, _ := filepath.Rel(*root, d)
		files = append(files, rel)
	}
	var blocks []block
	for _, f := range files {
		bs, err := parseMarkdown(f)
		if err != nil {
			fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	tmp, err := os.MkdirTemp("", "docscheck")
	if err != nil {
		fatal(err)
	}
	if !*keep {
		defer os.RemoveAll(tmp)
	} else {
		fmt.Println("docscheck: keeping", tmp)
	}
	failed := false
	nGo, nSh, nRun := 0, 0, 0
	for _, b := range blocks {
		switch b.lang {
		case "go":
			nGo++
		case "sh", "bash":
			nSh++
			if err := bashSyntax(b); err != nil {
				fmt.Printf("%s:%d: %v\n", b.file, b.line, err)
				failed = true
			}
		}
	}
	if err := checkGo(tmp, blocks); err != nil {
		fmt.Println(err)
		failed = true
	}
	if *bin != "" {
		n, err := runShell(tmp, blocks)
		nRun = n
		if err != nil {
			fmt.Println(err)
			failed = true
		}
	}
	fmt.Printf("docscheck: %d files, %d Go blocks compiled, %d shell blocks parsed, %d run\n", len(files), nGo, nSh, nRun)
	if failed {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "docscheck:", err)
	os.Exit(1)
}

var markerRE = regexp.MustCompile(`^<!--\s*docs-check:\s*(\w+)\s*-->$`)

// parseMarkdown returns the fenced code blocks of file.
func parseMarkdown(file string) ([]block, error) {
	data, err := os.ReadFile(filepath.Join(*root, file))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var bs []block
	marker := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := markerRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			marker = m[1]
			continue
		}
		if !strings.HasPrefix(l, "```") {
			if strings.TrimSpace(l) != "" {
				marker = ""
			}
			continue
		}
		lang := strings.Fields(strings.TrimPrefix(l, "```") + " ")
		b := block{file: file, line: i + 2, marker: marker}
		if len(lang) > 0 {
			b.lang = lang[0]
		}
		marker = ""
		var code []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			code = append(code, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: unclosed code block", file, b.line-1)
		}
		b.code = strings.Join(code, "\n") + "\n"
		bs = append(bs, b)
	}
	return bs, nil
}

func bashSyntax(b block) error {
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(b.code)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("bash -n: %v: %s", err, out)
	}
	return nil
}

// ---- Go ----

// knownImports are the package names fragments may use without importing.
var knownImports = map[string]string{
	"context": "context", "errors": "errors", "fmt": "fmt", "log": "log", "net": "net", "os": "os",
	"strconv": "strconv", "time": "time", "http": "net/http", "slog": "log/slog", "exec": "os/exec",
	"dispatch": "github.com/jetrpc/jetrpc/dispatch", "netserver": "github.com/jetrpc/jetrpc/netserver",
	"nethttp": "github.com/jetrpc/jetrpc/netserver/nethttp",
	"client":  "github.com/jetrpc/jetrpc/client", "frame": "github.com/jetrpc/jetrpc/frame",
	"encode": "github.com/jetrpc/jetrpc/encode", "decode": "github.com/jetrpc/jetrpc/decode",
	"mcp": "github.com/jetrpc/jetrpc/mcp", "openrpc": "github.com/jetrpc/jetrpc/openrpc",
	"acp": "github.com/jetrpc/jetrpc/acp", "a2a": "github.com/jetrpc/jetrpc/a2a",
	"streamstore": "github.com/jetrpc/jetrpc/streamstore", "natsstore": "github.com/jetrpc/jetrpc/streamstore/natsstore",
	"metrics": "github.com/jetrpc/jetrpc/metrics", "tracing": "github.com/jetrpc/jetrpc/tracing",
	"auth": "github.com/jetrpc/jetrpc/auth", "tlsconfig": "github.com/jetrpc/jetrpc/tlsconfig",
	"democlient": "github.com/jetrpc/jetrpc/bench/demo/democlient",
	"prometheus": "github.com/prometheus/client_golang/prometheus",
	"promhttp":   "github.com/prometheus/client_golang/prometheus/promhttp",
	"fasthttp":   "github.com/valyala/fasthttp",
}

// checkGo compiles the Go blocks.
func checkGo(tmp string, blocks []block) error {
	mainMod := filepath.Join(tmp, "main")
	if err := writeModule(mainMod, filepath.Join(*root, "go.mod"), filepath.Join(*root, "go.sum"), true); err != nil {
		return err
	}
	frags := filepath.Join(mainMod, "frags")
	os.MkdirAll(frags, 0o755)
	if err := os.WriteFile(filepath.Join(frags, "prelude.go"), []byte(prelude), 0o644); err != nil {
		return err
	}
	var sdkMod string
	for i, b := range blocks {
		if b.lang != "go" {
			continue
		}
		if hasPackageClause(b.code) {
			mod := mainMod
			if strings.Contains(b.code, "github.com/modelcontextprotocol/go-sdk") {
				if sdkMod == "" {
					sdkMod = filepath.Join(tmp, "gosdk")
					if err := writeModule(sdkMod, filepath.Join(*root, "interop/mcp/go.mod"), filepath.Join(*root, "interop/mcp/go.sum"), false); err != nil {
						return err
					}
				}
				mod = sdkMod
			}
			dir := filepath.Join(mod, fmt.Sprintf("b%d", i))
			os.MkdirAll(dir, 0o755)
			src := fmt.Sprintf("//line %s:%d\n%s", filepath.Join(*root, b.file), b.line, b.code)
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
				return err
			}
			continue
		}
		src, err := wrapFragment(i, b)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", b.file, b.line, err)
		}
		if err := os.WriteFile(filepath.Join(frags, fmt.Sprintf("b%d.go", i)), []byte(src), 0o644); err != nil {
			return err
		}
	}
	var errs []error
	for _, mod := range []string{mainMod, sdkMod} {
		if mod == "" {
			continue
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(tmp, "bin")+string(filepath.Separator), "./...")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("go build of the Go blocks: %v\n%s", err, out))
		}
	}
	return errors.Join(errs...)
}

func hasPackageClause(code string) bool {
	for _, l := range strings.Split(code, "\n") {
		if strings.HasPrefix(l, "package ") {
			return true
		}
	}
	return false
}

// writeModule writes dir/go.mod and go.sum from a module's: module
// docscheck with its requirements, and when jetrpc is set a requirement of
// the checkout by a replace directive.
func writeModule(dir, gomod, gosum string, jetrpc bool) error {
	os.MkdirAll(dir, 0o755)
	mod, err := os.ReadFile(gomod)
	if err != nil {
		return err
	}
	lines := strings.Split(string(mod), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "module ") {
			lines[i] = "module docscheck"
		}
	}
	if jetrpc {
		lines = append(lines, "require github.com/jetrpc/jetrpc v0.0.0", "replace github.com/jetrpc/jetrpc => "+*root)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(gosum)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// wrapFragment makes the fragment of block i the body of a function.
func wrapFragment(i int, b block) (string, error) {
	body := fmt.Sprintf("func block%d() {\n//line %s:%d\n%s\n", i, filepath.Join(*root, b.file), b.line, b.code)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package frags\n"+body+"}\n", parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	fn := f.Decls[0].(*ast.FuncDecl)
	declared := map[string]bool{}
	var defined []string
	for _, st := range fn.Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, x := range st.Lhs {
					if id, ok := x.(*ast.Ident); ok && id.Name != "_" && !slices.Contains(defined, id.Name) {
						defined = append(defined, id.Name)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := st.Decl.(*ast.GenDecl); ok {
				for _, sp := range g.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, id := range sp.Names {
							if id.Name != "_" && !slices.Contains(defined, id.Name) {
								defined = append(defined, id.Name)
							}
						}
					case *ast.TypeSpec:
						declared[sp.Name.Name] = true
					}
				}
			}
		}
	}
	for _, d := range defined {
		declared[d] = true
	}
	imports := map[string]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && !declared[id.Name] {
				if path, ok := knownImports[id.Name]; ok {
					imports[path] = true
				}
			}
		}
		return true
	})
	var paths []string
	for p := range imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var src bytes.Buffer
	src.WriteString("package frags\n\nimport (\n")
	for _, p := range paths {
		fmt.Fprintf(&src, "\t%q\n", p)
	}
	src.WriteString(")\n\n")
	src.WriteString(body)
	for _, d := range defined {
		fmt.Fprintf(&src, "_ = %s\n", d)
	}
	src.WriteString("}\n")
	return src.String(), nil
}

// ---- shell ----

var (
	serveRE  = regexp.MustCompile(`^(go run \./cmd/jetrpc|jetrpc) serve\b`)
	jetrpcRE = regexp.MustCompile(`(^|[\s;&|(])(go run \./cmd/jetrpc|jetrpc) `)
	callRE   = regexp.MustCompile(`(^|[\s;&|(])JETRPC_BIN call `)
)

// server is a running "jetrpc serve" of a serve block.
type server struct {
	cmd       *exec.Cmd
	tcp, http string
	log       *bytes.Buffer
}

func (s *server) stop() {
	if s == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// runShell runs the serve and run blocks; it returns how many ran.
func runShell(tmp string, blocks []block) (int, error) {
	var srv *server
	defer func() { srv.stop() }()
	var errs []error
	n := 0
	file := ""
	for _, b := range blocks {
		if b.file != file {
			srv.stop()
			srv, file = nil, b.file
		}
		switch b.marker {
		case "serve":
			srv.stop()
			var err error
			if srv, err = startServer(tmp, b); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %v", b.file, b.line, err))
			}
			n++
		case "run":
			if srv == nil {
				errs = append(errs, fmt.Errorf("%s:%d: a run block without a server before it", b.file, b.line))
				continue
			}
			if err := runBlock(tmp, b, srv); err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %v", b.file, b.line, err))
			}
			n++
		}
	}
	return n, errors.Join(errs...)
}

// startServer runs the serve command of b on free ports.
func startServer(tmp string, b block) (*server, error) {
	var line string
	for _, l := range commands(b.code) {
		if serveRE.MatchString(l.cmd) {
			if line != "" {
				return nil, errors.New("more than one jetrpc serve command")
			}
			line = l.cmd
		}
	}
	if line == "" {
		return nil, errors.New("a serve block without a jetrpc serve command")
	}
	args := strings.Fields(serveRE.ReplaceAllString(line, ""))
	for i, a := range args {
		if strings.HasPrefix(a, "#") {
			args = args[:i]
			break
		}
	}
	for i, a := range args {
		if strings.HasPrefix(a, "127.0.0.1:") || strings.HasPrefix(a, "localhost:") {
			args[i] = "127.0.0.1:0"
		}
	}
	if !slices.Contains(args, "--tcp") {
		args = append(args, "--tcp", "127.0.0.1:0")
	}
	if !slices.Contains(args, "--http") {
		args = append(args, "--http", "127.0.0.1:0")
	}
	s := &server{log: new(bytes.Buffer)}
	s.cmd = exec.Command(*bin, append([]string{"serve"}, args...)...)
	s.cmd.Dir = tmp
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = pw
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	pw.Close()
	lines := make(chan string)
	go func() {
		buf := make([]byte, 4096)
		var acc []byte
		for {
			n, err := pr.Read(buf)
			acc = append(acc, buf[:n]...)
			for {
				i := bytes.IndexByte(acc, '\n')
				if i < 0 {
					break
				}
				lines <- string(acc[:i])
				acc = acc[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	timeout := time.After(30 * time.Second)
	for s.tcp == "" || s.http == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				return nil, fmt.Errorf("jetrpc serve %s ended: %s", strings.Join(args, " "), s.log)
			}
			s.log.WriteString(l + "\n")
			if f := strings.Fields(l); len(f) == 3 && f[0] == "listening" {
				switch f[1] {
				case "tcp":
					s.tcp = f[2]
				case "http":
					s.http = f[2]
				}
			}
		case <-timeout:
			s.stop()
			return nil, fmt.Errorf("jetrpc serve %s: no listening lines in 30 s: %s", strings.Join(args, " "), s.log)
		}
	}
	go func() {
		for range lines {
		}
	}()
	return s, nil
}

// command is one shell command of a block and the output it must print
// ("" when the block does not say).
type command struct {
	cmd, want string
}

// commands splits a shell block into commands (continuation lines joined)
// with their expected outputs.
func commands(code string) []command {
	var cs []command
	lines := strings.Split(code, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			if len(cs) > 0 {
				if v := strings.TrimSpace(strings.TrimPrefix(t, "#")); isJSON(v) && cs[len(cs)-1].want == "" {
					cs[len(cs)-1].want = v
				}
			}
			continue
		}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l += "\n" + lines[i]
		}
		c := command{cmd: l}
		if j := strings.LastIndex(l, " # "); j > 0 {
			if v := strings.TrimSpace(l[j+3:]); isJSON(v) {
				c.want = v
			}
		}
		cs = append(cs, c)
	}
	return cs
}

func isJSON(s string) bool {
	return s != "" && json.Valid([]byte(s)) && (s[0] == '{' || s[0] == '[' || s[0] == '"' || s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s == "true" || s == "false" || s == "null")
}

// runBlock runs b against srv and checks the outputs it states.
func runBlock(tmp string, b block, srv *server) error {
	_, httpPort, _ := strings.Cut(srv.http, ":")
	_, tcpPort, _ := strings.Cut(srv.tcp, ":")
	r := strings.NewReplacer("127.0.0.1:8080", srv.http, "localhost:8080", srv.http, "127.0.0.1:7070", srv.tcp,
		"/dev/tcp/127.0.0.1/7070", "/dev/tcp/127.0.0.1/"+tcpPort, "/dev/tcp/127.0.0.1/8080", "/dev/tcp/127.0.0.1/"+httpPort)
	outDir := filepath.Join(tmp, "out")
	os.MkdirAll(outDir, 0o755)
	var script strings.Builder
	script.WriteString("set -e\n")
	cs := commands(b.code)
	for i, c := range cs {
		cmd := r.Replace(c.cmd)
		cmd = jetrpcRE.ReplaceAllString(cmd, "${1}JETRPC_BIN ")
		code, _, _ := strings.Cut(cmd, " # ")
		if !strings.Contains(code, "--http") && !strings.Contains(code, "--ws") && !strings.Contains(code, "--tcp") {
			cmd = callRE.ReplaceAllString(cmd, "${1}JETRPC_BIN call --tcp "+srv.tcp+" ")
		}
		cmd = strings.ReplaceAll(cmd, "JETRPC_BIN", *bin)
		if c.want != "" {
			fmt.Fprintf(&script, "{ %s\n} > %s/%d\n", cmd, outDir, i)
		} else {
			fmt.Fprintf(&script, "%s\n", cmd)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("bash: %v\n%s\nscript:\n%s", err, out, script.String())
	}
	var errs []error
	for i, c := range cs {
		if c.want == "" {
			continue
		}
		got, _ := os.ReadFile(filepath.Join(outDir, fmt.Sprint(i)))
		if compact(got) != compact([]byte(c.want)) {
			errs = append(errs, fmt.Errorf("%s\n  printed %s\n  the docs say %s", strings.TrimSpace(c.cmd), bytes.TrimSpace(got), c.want))
		}
	}
	return errors.Join(errs...)
}

func compact(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, bytes.TrimSpace(b)) != nil {
		return string(bytes.TrimSpace(b))
	}
	return out.String()
}
