package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

// subArgs are subtract's params by name.
type subArgs struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

// text is a struct of one string.
type text struct {
	S string `json:"s"`
}

// marshaled has a MarshalJSON method: the server sees the method's JSON.
type marshaled struct{}

func (marshaled) MarshalJSON() ([]byte, error) { return []byte(`{"minuend":5,"subtrahend":3}`), nil }

// quotedResult uses the ",string" option, which internal/unmarshal rejects
// (Compile fails): it is decoded by sonic.
type quotedResult struct {
	N int `json:"n,string"`
}

// decodeError reports whether err is a decoding error of the result: not
// the server's answer (an *encode.Error), not a malformed response, not the
// connection's end.
func decodeError(err error) bool {
	var rpcErr *encode.Error
	return err != nil && !errors.As(err, &rpcErr) && !errors.Is(err, client.ErrBadResponse) && !errors.Is(err, client.ErrClosed)
}

// TestCallCodecs: struct params by pointer and by value, pointer-shaped
// params, results that do not fit (a decoding error, the client stays in
// step), bad result targets (refused before sending) and the sonic
// fallbacks.
func TestCallCodecs(t *testing.T) {
	type inner struct {
		A []int `json:"a"`
	}
	type onePtr struct {
		P *inner `json:"p"`
	}
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		var r int
		args := &subArgs{42, 23}
		if err := c.Call(ctx, "subtract", args, &r); err != nil || r != 19 {
			t.Errorf("subtract &struct = %d, %v", r, err)
		}
		if err := c.Call(ctx, "subtract", *args, &r); err != nil || r != 19 {
			t.Errorf("subtract struct = %d, %v", r, err)
		}
		var nilArgs *subArgs // null: params left out, subtract refuses
		if err := c.Call(ctx, "subtract", nilArgs, &r); !errors.Is(err, encode.CodeInvalidParams.Err()) {
			t.Errorf("subtract nil *struct: %v, want -32602", err)
		}
		var one onePtr
		if err := c.Call(ctx, "echo", onePtr{&inner{[]int{1, 2}}}, &one); err != nil || one.P == nil || len(one.P.A) != 2 {
			t.Errorf("echo struct of one pointer = %+v, %v", one.P, err)
		}
		var raw json.RawMessage
		if err := c.Call(ctx, "echo", map[string]int{"k": 1}, &raw); err != nil || string(raw) != `{"k":1}` {
			t.Errorf("echo map = %s, %v", raw, err)
		}

		// A result that does not fit: a decoding error, as with sonic before.
		var s text
		for _, target := range []any{&r, &s} {
			if err := c.Call(ctx, "get_data", nil, target); !decodeError(err) {
				t.Errorf("get_data into %T: %v, want a decoding error", target, err)
			}
		}
		var invalid *json.InvalidUnmarshalError
		var nilInt *int
		for _, target := range []any{r, nilInt} {
			if err := c.Call(ctx, "subtract", args, target); !errors.As(err, &invalid) {
				t.Errorf("result %T: %v, want *json.InvalidUnmarshalError", target, err)
			}
		}
		if err := c.Call(ctx, "subtract", args, &r); err != nil || r != 19 {
			t.Errorf("still in step: %d, %v", r, err)
		}

		// The fallbacks.
		if err := c.Call(ctx, "subtract", marshaled{}, &r); err != nil || r != 2 {
			t.Errorf("MarshalJSON params = %d, %v", r, err)
		}
		var q quotedResult
		if err := c.Call(ctx, "echo", map[string]string{"n": "7"}, &q); err != nil || q.N != 7 {
			t.Errorf(",string result = %+v, %v", q, err)
		}
		if err := c.Notify(ctx, "update", &[1]marshaled{}); err != nil {
			t.Errorf("Notify MarshalJSON params: %v", err)
		}
		type withChan struct { // the compiled encoder rejects it; so does sonic
			C chan int `json:",omitempty"`
		}
		if err := c.Call(ctx, "echo", withChan{}, nil); err == nil || errors.Is(err, client.ErrParams) {
			t.Errorf("chan params: %v, want sonic's error", err)
		}

		// Notify refuses a scalar before anything is written.
		if err := c.Notify(ctx, "update", 5); !errors.Is(err, client.ErrParams) {
			t.Errorf("Notify scalar: %v, want ErrParams", err)
		}
		if got, err := c.CallRaw(ctx, nil, "subtract", []byte(`[2,1]`)); err != nil || string(got) != "1" {
			t.Errorf("after refused params = %s, %v", got, err)
		}
	})
}

// TestBatchCodecs: batch members with struct params and results, params
// encoded when added, and a result that does not fit failing its member
// alone with a decoding error.
func TestBatchCodecs(t *testing.T) {
	eachTransport(t, func(t *testing.T, c *client.Client) {
		ctx := context.Background()
		b := c.NewBatch()
		args := &subArgs{42, 23}
		var diff, wrong int
		var out text
		var one quotedResult
		c1 := b.Call("subtract", args, &diff)
		args.Minuend = 0 // encoded already
		c2 := b.Call("echo", &text{"batch"}, &out)
		c3 := b.Call("get_data", nil, &wrong)
		b.Notify("update", &[2]int{1, 2})
		c4 := b.Call("echo", map[string]string{"n": "3"}, &one)
		c5 := b.Call("subtract", nil, nil) // no params: -32602
		if err := b.Send(ctx); err != nil {
			t.Fatalf("Send: %v", err)
		}
		if c1.Err() != nil || diff != 19 {
			t.Errorf("subtract = %d, %v", diff, c1.Err())
		}
		if c2.Err() != nil || out.S != "batch" {
			t.Errorf("echo = %+v, %v", out, c2.Err())
		}
		if !decodeError(c3.Err()) || string(c3.Raw()) != `["hello",5]` {
			t.Errorf("get_data into int: %v (raw %s), want a decoding error", c3.Err(), c3.Raw())
		}
		if c4.Err() != nil || one.N != 3 {
			t.Errorf(",string = %+v, %v", one, c4.Err())
		}
		if !errors.Is(c5.Err(), encode.CodeInvalidParams.Err()) {
			t.Errorf("subtract without params: %v", c5.Err())
		}
	})
}
