package client_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

func TestCallRaw(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		f := func(method, params, want string) {
			t.Helper()
			got, err := c.CallRaw(ctx, []byte("prefix:"), method, []byte(params))
			if err != nil {
				t.Errorf("%s %s: %v", method, params, err)
				return
			}
			if string(got) != "prefix:"+want {
				t.Errorf("%s %s = %s, want prefix:%s", method, params, got, want)
			}
		}
		f("subtract", `[42,23]`, `19`)
		f("subtract", `{"minuend":42,"subtrahend":23}`, `19`)
		f("subtract", ` {"subtrahend":23,"minuend":42} `, `19`)
		f("sum", `[1,2,3,4]`, `10`)
		f("get_data", ``, `["hello",5]`)
		f("echo", `{"a":[1,"\u00e9",{"b":null}]}`, `{"a":[1,"\u00e9",{"b":null}]}`)
		f("echo", ``, `null`)
		f("update", `[1,2,3]`, `null`)
	})
}

func TestNotify(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		for _, n := range []struct {
			method string
			params any
		}{{"update", []int{1, 2}}, {"notify_hello", nil}, {"no_such_method", map[string]int{"a": 1}}} {
			if err := c.Notify(ctx, n.method, n.params); err != nil {
				t.Errorf("Notify %s: %v", n.method, err)
			}
		}
		// The connection stays in step: the next call gets its own answer.
		var r int
		if err := c.Call(ctx, "subtract", []int{3, 1}, &r); err != nil || r != 2 {
			t.Errorf("call after notifications = %d, %v", r, err)
		}
		if err := c.Notify(ctx, "update", 42); !errors.Is(err, client.ErrParams) {
			t.Errorf("Notify with scalar params: %v, want ErrParams", err)
		}
	})
}

func TestBatch(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		b := c.NewBatch()
		var diff int
		var data []any
		c1 := b.Call("subtract", []int{42, 23}, &diff)
		b.Notify("update", []int{1})
		c2 := b.Call("fail", map[string]any{"code": 7, "message": "seven", "data": []int{7}}, nil)
		b.Notify("notify_hello", []int{7})
		c3 := b.Call("get_data", nil, &data)
		c4 := b.Call("nope", nil, nil)
		c5 := b.Call("sum", []int{1, 2}, nil)
		if b.Len() != 7 {
			t.Errorf("Len = %d, want 7", b.Len())
		}
		if err := b.Send(ctx); err != nil {
			t.Fatalf("Send: %v", err)
		}
		if c1.Err() != nil || diff != 19 {
			t.Errorf("subtract: %d, %v", diff, c1.Err())
		}
		var rpcErr *encode.Error
		if !errors.As(c2.Err(), &rpcErr) || rpcErr.Code != 7 || rpcErr.Message != "seven" || string(rpcErr.Data) != "[7]" {
			t.Errorf("fail: %v", c2.Err())
		}
		if c3.Err() != nil || fmt.Sprint(data) != "[hello 5]" {
			t.Errorf("get_data: %v, %v", data, c3.Err())
		}
		if !errors.Is(c4.Err(), encode.CodeMethodNotFound.Err()) {
			t.Errorf("nope: %v", c4.Err())
		}
		if c5.Err() != nil || string(c5.Raw()) != "3" {
			t.Errorf("sum: %s, %v", c5.Raw(), c5.Err())
		}
		if err := b.Send(ctx); err == nil {
			t.Error("second Send: no error")
		}

		// Only notifications: no answer is due, Send returns once sent.
		b = c.NewBatch()
		b.Notify("update", nil)
		b.Notify("notify_sum", []int{1, 2})
		if err := b.Send(ctx); err != nil {
			t.Errorf("notifications only: %v", err)
		}
		if err := c.NewBatch().Send(ctx); err != nil {
			t.Errorf("empty batch: %v", err)
		}
		// Params that cannot be params: nothing is sent, every call fails.
		b = c.NewBatch()
		bad := b.Call("subtract", 5, nil)
		if err := b.Send(ctx); !errors.Is(err, client.ErrParams) || !errors.Is(bad.Err(), client.ErrParams) {
			t.Errorf("bad params: %v, %v", err, bad.Err())
		}
		// Still in step.
		if got, err := c.CallRaw(ctx, nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
			t.Errorf("call after batches = %s, %v", got, err)
		}
	})
}

func TestErrors(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		f := func(method, params string, code encode.Code, message, data string) {
			t.Helper()
			got, err := c.CallRaw(ctx, nil, method, []byte(params))
			var e *encode.Error
			if !errors.As(err, &e) {
				t.Errorf("%s %s = %s, %v; want an *encode.Error", method, params, got, err)
				return
			}
			if e.Code != code || e.Message != message || string(e.Data) != data {
				t.Errorf("%s %s: got {%d %q %s}, want {%d %q %s}", method, params, e.Code, e.Message, e.Data, code, message, data)
			}
		}
		f("fail", `{"code":-32099,"message":"custom","data":{"why":["x",1]}}`, -32099, "custom", `{"why":["x",1]}`)
		f("fail", `{"code":42,"message":"quote \" and \u00e9"}`, 42, "quote \" and é", "")
		f("fail", `{"code":1,"message":"","data":null}`, 1, "Error", "null") // the server fills in a message
		f("nope", ``, encode.CodeMethodNotFound, "Method not found", "")
		f("panic", ``, encode.CodeInternalError, "Internal error", `"handler panicked"`)
		f("sum", `{"a":1}`, encode.CodeInvalidParams, "Invalid params", `"want an array of numbers"`)

		if _, err := c.CallRaw(ctx, nil, "echo", []byte(`42`)); !errors.Is(err, client.ErrParams) {
			t.Errorf("scalar params: %v, want ErrParams", err)
		}
		err := c.Call(ctx, "nope", nil, nil)
		if !errors.Is(err, encode.CodeMethodNotFound.Err()) {
			t.Errorf("Call nope: %v", err)
		}
	})
}

func TestTypedCall(t *testing.T) {
	type operands struct {
		Minuend    int `json:"minuend"`
		Subtrahend int `json:"subtrahend"`
	}
	type item struct {
		Name string            `json:"name"`
		Tags []string          `json:"tags"`
		Meta map[string]string `json:"meta,omitempty"`
		N    float64           `json:"n"`
	}
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		var r int
		if err := c.Call(ctx, "subtract", operands{42, 23}, &r); err != nil || r != 19 {
			t.Errorf("subtract by name = %d, %v", r, err)
		}
		if err := c.Call(ctx, "subtract", [2]int{10, 20}, &r); err != nil || r != -10 {
			t.Errorf("subtract by position = %d, %v", r, err)
		}
		in := item{Name: "näme", Tags: []string{"a", "b"}, Meta: map[string]string{"k": "v"}, N: 1.5}
		var out item
		if err := c.Call(ctx, "echo", in, &out); err != nil || fmt.Sprint(out) != fmt.Sprint(in) {
			t.Errorf("echo struct = %+v, %v", out, err)
		}
		var strs []any
		if err := c.Call(ctx, "get_data", nil, &strs); err != nil || len(strs) != 2 || strs[0] != "hello" {
			t.Errorf("get_data = %v, %v", strs, err)
		}
		if err := c.Call(ctx, "get_data", nil, nil); err != nil {
			t.Errorf("result discarded: %v", err)
		}
		var wrong struct{ X int }
		if err := c.Call(ctx, "get_data", nil, &wrong); err == nil {
			t.Error("unmarshal an array into a struct: no error")
		}
		if err := c.Call(ctx, "echo", "scalar", nil); !errors.Is(err, client.ErrParams) {
			t.Errorf("scalar params: %v, want ErrParams", err)
		}
		var nilMap map[string]int // marshals to null: params left out
		if err := c.Call(ctx, "echo", nilMap, &strs); err != nil || strs != nil {
			t.Errorf("echo with null params = %v, %v", strs, err)
		}
	})
}

// TestConcurrent runs 1,000 calls at once on one client: each gets its own
// answer.
func TestConcurrent(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		const n = 1000
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				if i%2 == 0 {
					want := `["` + strconv.Itoa(i) + `"]`
					got, err := c.CallRaw(ctx, nil, "echo", []byte(want))
					if err == nil && string(got) != want {
						err = fmt.Errorf("echo %s = %s", want, got)
					}
					errs <- err
					return
				}
				var r int
				err := c.Call(ctx, "subtract", []int{i, 1}, &r)
				if err == nil && r != i-1 {
					err = fmt.Errorf("subtract [%d,1] = %d", i, r)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if d := c.Dropped(); d != 0 {
			t.Errorf("Dropped = %d, want 0", d)
		}
	})
}

func TestTooLarge(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		big := make([]byte, 5<<20)
		for i := range big {
			big[i] = ' '
		}
		big[0], big[len(big)-1] = '[', ']'
		if _, err := c.CallRaw(ctx, nil, "echo", big); !errors.Is(err, client.ErrTooLarge) {
			t.Errorf("5 MiB params: %v, want ErrTooLarge", err)
		}
		if got, err := c.CallRaw(ctx, nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
			t.Errorf("call after a refused one = %s, %v", got, err)
		}
	})
}
