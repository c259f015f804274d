package openrpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

type tree struct {
	Label string  `json:"label"`
	Kids  []*tree `json:"kids,omitempty"`
	Size  uint8   `json:"size,omitempty"`
}

// TestValidateParams: with ValidateParams, params that do not fit the
// described ones are -32602 with the JSON pointer of the violation; those
// that fit reach the handler.
func TestValidateParams(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	if _, err := openrpc.Enable(e, &openrpc.Options{ValidateParams: true, Methods: demo.Docs()}); err != nil {
		t.Fatal(err)
	}
	if err := demo.Register(e); err != nil {
		t.Fatal(err)
	}
	ok := dispatch.Typed(func(context.Context, struct {
		T   tree    `json:"t"`
		N   []int8  `json:"n,omitempty"`
		Pos [2]bool `json:"pos,omitempty"`
	}) (string, error) {
		return "ok", nil
	})
	if err := e.Register("plant", ok); err != nil {
		t.Fatal(err)
	}
	f := func(method, params, want string) {
		t.Helper()
		msg := `{"jsonrpc":"2.0","method":"` + method + `","id":1`
		if params != "" {
			msg += `,"params":` + params
		}
		out := string(e.Process(nil, []byte(msg+"}")))
		if !strings.Contains(out, want) {
			t.Errorf("%s %s:\n got %s\nwant %s", method, params, out, want)
		}
	}
	bad := func(pointer, problem string) string {
		return `"code":-32602,"message":"Invalid params","data":{"pointer":"` + pointer + `","error":"` + problem
	}
	f("subtract", `[42,23]`, `"result":19`)
	f("subtract", `{"minuend":42,"subtrahend":23}`, `"result":19`)
	f("subtract", `[42,"x"]`, bad("/1", "want number"))
	f("subtract", `{"minuend":true,"subtrahend":23}`, bad("/minuend", "want number"))
	f("subtract", `[42]`, bad("/1", `required param \"subtrahend\" missing`))
	f("subtract", `{"minuend":42}`, bad("/subtrahend", `required param \"subtrahend\" missing`))
	f("subtract", ``, bad("/0", `required param \"minuend\" missing`))
	f("subtract", `[1,2,3]`, bad("/2", "too many params: want at most 2"))
	f("sum", `[1,2,4]`, `"result":7`)
	f("sum", `[1,2,"4"]`, bad("/2", "want number"))
	f("sum", `{"a":1}`, bad("", "want params by position (an array)"))
	f("fail", `[1,"x"]`, bad("", "want params by name (an object)"))
	f("fail", `{"code":1.5,"message":"m"}`, bad("/code", "want integer"))
	f("fail", `{"code":1,"message":""}`, bad("/message", "shorter than 1"))
	f("sleep", `[-1]`, bad("/0", "less than the minimum 0"))
	f("subscribe", `[100001]`, bad("/0", "more than the maximum 100000"))
	f("callback", `["m",5]`, bad("/1", "want array or object"))
	f("echo", `[1,"a",null]`, `"result":[1,"a",null]`)
	// typed: components, recursion through $ref, fixed arrays, ranges
	f("plant", `{"t":{"label":"a","kids":[{"label":"b"}]},"n":[1,-128]}`, `"result":"ok"`)
	f("plant", `[{"label":"a","kids":[{"label":"b","kids":[{"size":3}]}]}]`, bad("/0/kids/0/kids/0/label", "required member missing"))
	f("plant", `{"t":{"label":"a","size":256}}`, bad("/t/size", "more than the maximum 255"))
	f("plant", `{"t":{"label":"a"},"n":[1,200]}`, bad("/n/1", "more than the maximum 127"))
	f("plant", `{"t":{"label":"a"},"pos":[true]}`, bad("/pos", "1 items: want 2 to 2"))
	f("plant", `{"n":[]}`, bad("/t", `required param \"t\" missing`))
}

func TestValidateOff(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	_, _ = openrpc.Enable(e, &openrpc.Options{Methods: demo.Docs()})
	_ = demo.Register(e)
	out := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,"x"],"id":1}`)))
	if !strings.Contains(out, `"data":"want [minuend, subtrahend]`) { // the handler's own answer
		t.Fatalf("without ValidateParams: %s", out)
	}
}

// TestValidateConcurrent: checks of recursive types from many goroutines
// (run with -race).
func TestValidateConcurrent(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	_, _ = openrpc.Enable(e, &openrpc.Options{ValidateParams: true})
	_ = e.Register("plant", typed[struct {
		T tree `json:"t"`
	}, int]())
	msg := []byte(`{"jsonrpc":"2.0","method":"plant","params":{"t":{"label":"a","kids":[{"label":"b","kids":[{}]}]}},"id":1}`)
	done := make(chan string)
	for range 4 {
		go func() {
			var out []byte
			for range 200 {
				out = e.Process(out[:0], msg)
			}
			done <- string(out)
		}()
	}
	for range 4 {
		if out := <-done; !strings.Contains(out, `"pointer":"/t/kids/0/kids/0/label"`) {
			t.Errorf("got %s", out)
		}
	}
}
