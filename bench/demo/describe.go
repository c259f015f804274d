package demo

import (
	"maps"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/openrpc"
)

// NOTE: the OpenRPC descriptions of the raw demo methods (Docs, which
// jetrpc serve gives to package openrpc), so that "jetrpc call rpc.discover" shows a useful
// document. Raw handlers say nothing of their types: each schema here is
// written to match what the handler accepts and returns.

const (
	numberSchema = `{"type":"number"}`
	anyValue     = `{}`
	nullValue    = `{"type":"null"}`
	countOf      = `{"type":"integer","minimum":0,"maximum":100000}`
)

func param(name, schema, description string) openrpc.ParamDoc {
	return openrpc.ParamDoc{Name: name, Schema: []byte(schema), Description: description, Required: true}
}

func variadic(name, schema, description string) openrpc.ParamDoc {
	return openrpc.ParamDoc{Name: name, Schema: []byte(schema), Description: description, Variadic: true}
}

func result(name, schema, description string) *openrpc.ParamDoc {
	return &openrpc.ParamDoc{Name: name, Schema: []byte(schema), Description: description}
}

func example(params, res string) openrpc.ExampleDoc {
	return openrpc.ExampleDoc{Params: []byte(params), Result: []byte(res)}
}

// descriptions are the demo methods' descriptions by name.
var descriptions = map[string]openrpc.MethodDoc{
	"subtract": {Summary: "Subtracts subtrahend from minuend.",
		Description: "The specification's example: [a, b] or {\"minuend\": a, \"subtrahend\": b}. " +
			"Integers stay exact while they fit in 64 bits.",
		Params: []openrpc.ParamDoc{param("minuend", numberSchema, ""), param("subtrahend", numberSchema, "")},
		Result: result("difference", numberSchema, "minuend - subtrahend"), Errors: []*encode.Error{errSubtract},
		Examples: []openrpc.ExampleDoc{example(`[42,23]`, `19`), example(`{"subtrahend":23,"minuend":42}`, `19`)}},
	"sum": {Summary: "Adds up its params.", ParamStructure: openrpc.ByPosition,
		Params: []openrpc.ParamDoc{variadic("numbers", numberSchema, "any number of numbers")},
		Result: result("sum", numberSchema, ""), Errors: []*encode.Error{errSum, errRange},
		Examples: []openrpc.ExampleDoc{example(`[1,2,4]`, `7`)}},
	"update":       ignored("The specification's notification example."),
	"notify_hello": ignored("The specification's notification example."),
	"notify_sum":   ignored("The specification's notification example."),
	"get_data": {Summary: "Returns [\"hello\", 5].",
		Result:   result("data", `{"type":"array","items":[{"type":"string"},{"type":"integer"}],"minItems":2,"maxItems":2}`, ""),
		Examples: []openrpc.ExampleDoc{{Result: []byte(`["hello",5]`)}}},
	"echo": {Summary: "Returns its params as received (null when absent).",
		Params: []openrpc.ParamDoc{variadic("values", anyValue, "any values; params by name come back as the object")},
		Result: result("params", anyValue, "the params"), Examples: []openrpc.ExampleDoc{example(`[1,"a"]`, `[1,"a"]`)}},
	"sleep": {Summary: "Waits ms milliseconds, then returns ms.",
		Description: "Runs off the connection's reader; cancelled when the server shuts down.",
		Params:      []openrpc.ParamDoc{param("ms", `{"type":"integer","minimum":0}`, "milliseconds")},
		Result:      result("ms", `{"type":"integer","minimum":0}`, ""), Errors: []*encode.Error{errSleep},
		Examples: []openrpc.ExampleDoc{example(`[10]`, `10`)}},
	"blob": {Summary: "Returns a string of n \"x\" bytes, streamed.",
		Description: "Written with dispatch.StreamResult: sent in pieces as it is produced where the transport can (NDJSON, WebSocket, HTTP chunked), held up to MaxResponse elsewhere.",
		Params:      []openrpc.ParamDoc{param("n", `{"type":"integer","minimum":0,"maximum":1073741824}`, "bytes")},
		Result:      result("xs", `{"type":"string"}`, "n x bytes"), Errors: []*encode.Error{errBlob},
		Examples: []openrpc.ExampleDoc{example(`[3]`, `"xxx"`)}},
	"fail": {Summary: "Answers with the error object it is given.", ParamStructure: openrpc.ByName,
		Params: []openrpc.ParamDoc{param("code", `{"type":"integer","minimum":-2147483648,"maximum":2147483647}`, ""),
			param("message", `{"type":"string","minLength":1}`, ""),
			{Name: "data", Schema: []byte(anyValue), Description: "error.data, optional"}},
		Result: result("never", nullValue, "fail never has a result"), Errors: []*encode.Error{errFail}},
	"panic": {Summary: "Panics: the answer is -32603 Internal error, and the server goes on.",
		Result: result("never", nullValue, "panic never has a result")},
	"subscribe": {Summary: "Sends count notifications \"subscription\", then returns count.",
		Description: "Each notification's params are {\"subscription\": <this call's id>, \"result\": i} for i = 1..count. " +
			"Needs a transport that can send to the client: TCP, stdio, WebSocket, or a POST with Accept: text/event-stream.",
		Params: []openrpc.ParamDoc{param("count", countOf, "")}, Result: result("count", countOf, ""),
		Errors: []*encode.Error{errSubscribe, errNoPeer}},
	"callback": {Summary: "Calls method on the caller with params, and returns its result.",
		Description: "Needs a connection both ways: TCP, stdio or WebSocket.",
		Params: []openrpc.ParamDoc{param("method", `{"type":"string","minLength":1}`, "the caller's method"),
			{Name: "params", Schema: []byte(`{"type":["array","object"]}`), Description: "its params, optional"}},
		Result: result("result", anyValue, "the caller's result"), Errors: []*encode.Error{errCallback, errNoCalls}},
	"demo_subscribe": {Summary: "Answers a subscription id, then sends count notifications \"demo_subscription\".",
		Description: "go-ethereum's subscription convention: params {\"subscription\": id, \"result\": i}, i = 1..count.",
		Params:      []openrpc.ParamDoc{param("count", countOf, "")}, Result: result("subscription", `{"type":"string"}`, "the id"),
		Errors: []*encode.Error{errSubscribe, errNoPeer}},
	"demo_unsubscribe": {Summary: "Returns true (the demo's subscriptions end by themselves).", ParamStructure: openrpc.ByPosition,
		Params: []openrpc.ParamDoc{param("subscription", `{"type":"string"}`, "the id")}, Result: result("ok", `{"type":"boolean"}`, "")},
}

func ignored(description string) openrpc.MethodDoc {
	return openrpc.MethodDoc{Summary: "Accepts any params and returns null.", Description: description,
		Params: []openrpc.ParamDoc{variadic("values", anyValue, "ignored")}, Result: result("null", nullValue, ""),
		Examples: []openrpc.ExampleDoc{example(`[1,2,3,4,5]`, `null`)}}
}

// Docs returns the OpenRPC descriptions of the methods Register registers,
// by name, for openrpc.Options.Methods (a map of the caller's own). The
// typed handlers of RegisterTyped are described by their types.
func Docs() map[string]openrpc.MethodDoc { return maps.Clone(descriptions) }
