//go:build goexperiment.jsonv2

package bench_test

import (
	"encoding/json"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
)

// TestStdlibV2: the encoding/json/v2 baseline answers every case, and the
// error cases, as the encoding/json one does (the same JSON values).
func TestStdlibV2(t *testing.T) {
	v1, v2 := bench.NewStdlib(), bench.NewStdlibV2()
	msgs := []string{
		`{"jsonrpc":"2.0","method":"nope","id":1}`,
		`{"jsonrpc":"2.0","method":"subtract","params":[1],"id":2}`,
		`{"jsonrpc":"1.0","method":"subtract","id":3}`,
		`{"jsonrpc":"2.0","method":"get_data","id":null}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1,2,3.5],"id":"s"}`,
		`{"jsonrpc":"2.0","method":"echo","params":{"a":[1,"x"]},"id":4}`,
		`{bad`,
		`[{"jsonrpc":"2.0","method":"update","params":[1]}]`,
	}
	for _, c := range bench.Cases() {
		msgs = append(msgs, string(c.Msg))
	}
	for _, m := range msgs {
		want, got := v1.Process([]byte(m)), v2.Process([]byte(m))
		if !sameJSON(t, want, got) {
			t.Errorf("%s:\n v2 %s\n v1 %s", m, got, want)
		}
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
