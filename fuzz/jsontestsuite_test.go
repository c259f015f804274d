package fuzz

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// suiteDir holds nst/JSONTestSuite's test_parsing files and the suite's MIT LICENSE
// (testdata/jsontestsuite/ORIGIN names the commit). y_ files must be accepted, n_ files
// rejected, i_ files are the implementation's choice.
const suiteDir = "testdata/jsontestsuite"

// maxSuiteSeed is the largest suite file used as a fuzz seed: the two larger ones (100,000 and
// 50,000 unclosed levels) are only run by TestJSONTestSuite, for the reason given at deep.
const maxSuiteSeed = 4 << 10

type suiteFile struct {
	name string
	data []byte
}

// jsonTestSuite reads every file of the suite.
func jsonTestSuite(tb testing.TB) []suiteFile {
	tb.Helper()
	names, err := filepath.Glob(filepath.Join(suiteDir, "*.json"))
	if err != nil || len(names) == 0 {
		tb.Fatalf("no JSONTestSuite files in %s: %v", suiteDir, err)
	}
	var fs []suiteFile
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		fs = append(fs, suiteFile{filepath.Base(n), b})
	}
	return fs
}

// TestJSONTestSuite runs every test_parsing file through Engine.Process (the demo methods,
// the default limits): a y_ file (valid JSON) is never answered -32700, an n_ file (not
// JSON) is answered with exactly one -32700 response, id null, and an i_ file gets a
// well-formed answer or none, and no crash.
func TestJSONTestSuite(t *testing.T) {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := cancelledContext() // the demo "sleep" returns at once
	counts := map[byte]int{}
	for _, f := range jsonTestSuite(t) {
		out := e.ProcessContext(ctx, nil, f.data)
		if len(out) > 0 && !json.Valid(out) {
			t.Errorf("%s: answer is not JSON: %.200s", f.name, out)
			continue
		}
		counts[f.name[0]]++
		switch f.name[0] {
		case 'y':
			if strings.Contains(string(out), `"code":-32700`) {
				t.Errorf("%s: valid JSON answered -32700: %.200s", f.name, out)
			}
		case 'n':
			var r struct {
				ID    json.RawMessage
				Error *struct{ Code int }
			}
			if len(out) == 0 || out[0] != '{' || json.Unmarshal(out, &r) != nil ||
				r.Error == nil || r.Error.Code != -32700 || string(r.ID) != "null" {
				t.Errorf("%s: want one -32700 with id null, got %.200s", f.name, out)
			}
		case 'i':
		default:
			t.Errorf("%s: not a y_, n_ or i_ file", f.name)
		}
	}
	if counts['y'] != 95 || counts['n'] != 188 || counts['i'] != 35 {
		t.Errorf("files y/n/i: %d/%d/%d, want 95/188/35", counts['y'], counts['n'], counts['i'])
	}
}
