// Package layers holds the test of who may import whom (../shared/DESIGN.md,
// "Packages and who may import whom"): the rules that keep a user from
// linking what they do not use.
package layers

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/jetrpc/jetrpc"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
	Standard   bool
}

// list runs go list -deps on the module's packages and returns them by
// import path (standard packages included, as Deps names them).
func list(t *testing.T) map[string]pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps,Standard", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) == 0 {
		t.Fatal("go list listed nothing")
	}
	return pkgs
}

func ours(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

func internal(path string) bool { return strings.HasPrefix(path, module+"/internal/") }

// TestLeafPackages: decode, encode and the framers import only the
// standard library and the module's internal packages, and decode and
// encode never import each other. One exception: frame/ws deflates with
// klauspost/compress's flate (pure Go, nothing further; fasthttp brings it
// into every build already), because compress/flate's inflater allocates
// for every dynamic Huffman block (11 allocations on a 64 KiB message,
// bench/ws_deflate.sh) and cost 1.6 times the CPU for 20% more bytes on the
// wire; see frame/ws's doc.
func TestLeafPackages(t *testing.T) {
	pkgs := list(t)
	for _, name := range []string{"decode", "encode", "frame", "frame/ws"} {
		p, ok := pkgs[module+"/"+name]
		if !ok {
			t.Errorf("%s: not listed", name)
			continue
		}
		for _, d := range p.Deps {
			if pkgs[d].Standard || internal(d) {
				continue
			}
			if name == "frame/ws" && strings.HasPrefix(d, "github.com/klauspost/compress/") {
				continue
			}
			t.Errorf("%s links %s: only the standard library and internal/ are allowed", name, d)
		}
	}
	for _, pair := range [][2]string{{"decode", "encode"}, {"encode", "decode"}} {
		for _, d := range pkgs[module+"/"+pair[0]].Deps {
			if d == module+"/"+pair[1] {
				t.Errorf("%s imports %s", pair[0], pair[1])
			}
		}
	}
}

// TestProtocolsApart: no protocol package (mcp, a2a, acp) links another,
// so that a server of one links none of the others.
func TestProtocolsApart(t *testing.T) {
	pkgs := list(t)
	protocols := []string{"mcp", "a2a", "acp"}
	for _, a := range protocols {
		p, ok := pkgs[module+"/"+a]
		if !ok {
			t.Errorf("%s: not listed", a)
			continue
		}
		for _, d := range p.Deps {
			for _, b := range protocols {
				if b != a && (d == module+"/"+b || strings.HasPrefix(d, module+"/"+b+"/")) {
					t.Errorf("%s links %s", a, d)
				}
			}
		}
	}
}

// TestClientLinks: the client never links the server side, and a TCP or
// stdio user of it links no HTTP library.
func TestClientLinks(t *testing.T) {
	pkgs := list(t)
	p, ok := pkgs[module+"/client"]
	if !ok {
		t.Fatal("client: not listed")
	}
	for _, d := range p.Deps {
		switch {
		case strings.HasPrefix(d, module+"/netserver"), strings.HasPrefix(d, module+"/dispatch"):
			t.Errorf("client links %s", d)
		case strings.Contains(d, "fasthttp"):
			t.Errorf("client links %s: a TCP or stdio user would link an HTTP library", d)
		}
	}
}

// TestNothingImportsTools: nothing but tests and cmd/ imports bench/,
// fuzz/ or cmd/.
func TestNothingImportsTools(t *testing.T) {
	pkgs := list(t)
	tools := []string{"/bench", "/fuzz", "/cmd/"}
	for path, p := range pkgs {
		if !ours(path) {
			continue
		}
		rel := strings.TrimPrefix(path, module)
		if strings.HasPrefix(rel, "/bench") || strings.HasPrefix(rel, "/fuzz") || strings.HasPrefix(rel, "/cmd/") || strings.HasPrefix(rel, "/interop") {
			continue
		}
		for _, imp := range p.Imports {
			for _, tool := range tools {
				if strings.HasPrefix(strings.TrimPrefix(imp, module), tool) && ours(imp) {
					t.Errorf("%s imports %s", path, imp)
				}
			}
		}
	}
}
