package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// This file holds the reference the typed binder is checked against, by
// the table tests and by FuzzTyped: encoding/json, applied with Typed's
// rules (an object by name into the whole P; an array into a struct field by
// field, or into a slice, array or map P whole; a one-element array into any
// other P).

// mirror registers a typed handler for P that returns its params as
// received, so the response's result is the encoding of what was bound.
func mirror[P any](e *dispatch.Engine, name string) {
	if err := e.Register(name, dispatch.Typed(func(_ context.Context, p P) (P, error) { return p, nil })); err != nil {
		panic(err)
	}
}

// refBind binds params to a P as Typed documents it, with encoding/json.
func refBind[P any](params []byte) (P, bool) {
	var p P
	t := reflect.TypeFor[P]()
	st := t
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		st = t.Elem()
		reflect.ValueOf(&p).Elem().Set(reflect.New(st))
	}
	trimmed := bytes.TrimLeft(params, " \t\r\n")
	if _, ok := any(&p).(json.Unmarshaler); ok || len(trimmed) == 0 {
		return p, len(trimmed) == 0 || json.Unmarshal(params, &p) == nil
	}
	switch st.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Interface:
		return p, json.Unmarshal(params, &p) == nil
	case reflect.Struct:
		if trimmed[0] == '{' {
			return p, json.Unmarshal(params, &p) == nil
		}
		var elems []json.RawMessage
		if json.Unmarshal(params, &elems) != nil {
			return p, false
		}
		v := reflect.ValueOf(&p).Elem()
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		fields := flatFields(st)
		if len(elems) > len(fields) {
			return p, false
		}
		for i, raw := range elems {
			if json.Unmarshal(raw, v.FieldByIndex(fields[i]).Addr().Interface()) != nil {
				return p, false
			}
		}
		return p, true
	}
	var elems []json.RawMessage
	if trimmed[0] != '[' || json.Unmarshal(params, &elems) != nil || len(elems) != 1 {
		return p, false
	}
	return p, json.Unmarshal(elems[0], &p) == nil
}

// flatFields lists the members of a struct without embedded structs in
// declaration order (the positional order), skipping unexported and "-".
func flatFields(t reflect.Type) [][]int {
	var fs [][]int
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Tag.Get("json") == "-" {
			continue
		}
		fs = append(fs, sf.Index)
	}
	return fs
}

// refMarshal is encoding/json without HTML escaping, as Typed encodes.
func refMarshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// checkRef calls method with params and compares with the reference: the
// same value (its encoding), or both reject (-32602).
func checkRef[P any](tb testing.TB, e *dispatch.Engine, method string, params []byte) {
	tb.Helper()
	msg := append([]byte(`{"jsonrpc":"2.0","method":"`+method+`","id":1`), `,"params":`...)
	msg = append(append(msg, params...), '}')
	if len(params) == 0 {
		msg = []byte(`{"jsonrpc":"2.0","method":"` + method + `","id":1}`)
	}
	out := e.Process(nil, msg)
	var r struct {
		Result json.RawMessage
		Error  *struct {
			Code int
			Data json.RawMessage
		}
	}
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("%s %s: response %s: %v", method, params, out, err)
	}
	want, ok := refBind[P](params)
	switch {
	case !ok && r.Error == nil:
		tb.Fatalf("%s %s: encoding/json rejects, Typed bound %s", method, params, r.Result)
	case ok && r.Error != nil:
		tb.Fatalf("%s %s: encoding/json binds %s, Typed says %s", method, params, refMarshal(want), out)
	case !ok && r.Error.Code != -32602:
		tb.Fatalf("%s %s: rejected with %d, want -32602: %s", method, params, r.Error.Code, out)
	case ok && !bytes.Equal(r.Result, refMarshal(want)):
		tb.Fatalf("%s %s: Typed bound %s, encoding/json %s", method, params, r.Result, refMarshal(want))
	}
}
