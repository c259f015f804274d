package demo

import "github.com/jetrpc/jetrpc/dispatch"

// NOTE: the OpenRPC descriptions of the raw demo methods (Register adds
// them to each Method), so that "jetrpc call rpc.discover" shows a useful
// document. Raw handlers say nothing of their types: each schema here is
// written to match what the handler accepts and returns.

const (
	numberSchema = `{"type":"number"}`
	anyValue     = `{}`
	nullValue    = `{"type":"null"}`
	countOf      = `{"type":"integer","minimum":0,"maximum":100000}`
)

func param(name, schema, description string) dispatch.Param {
	return dispatch.Param{Name: name, Schema: []byte(schema), Description: description, Required: true}
}

func variadic(name, schema, description string) dispatch.Param {
	return dispatch.Param{Name: name, Schema: []byte(schema), Description: description, Variadic: true}
}

func result(name, schema, description string) *dispatch.Param {
	return &dispatch.Param{Name: name, Schema: []byte(schema), Description: description}
}

func example(params, res string) dispatch.Example {
	return dispatch.Example{Params: []byte(params), Result: []byte(res)}
}

// descriptions are the demo methods' descriptions by name.
var descriptions = map[string]dispatch.Method{
	"subtract": {Summary: "Subtracts subtrahend from minuend.",
		Description: "The specification's example: [a, b] or {\"minuend\": a, \"subtrahend\": b}. " +
			"Integers stay exact while they fit in 64 bits.",
		Params: []dispatch.Param{param("minuend", numberSchema, ""), param("subtrahend", numberSchema, "")},
		Result: result("difference", numberSchema, "minuend - subtrahend"), Errors: []*dispatch.Error{errSubtract},
		Examples: []dispatch.Example{example(`[42,23]`, `19`), example(`{"subtrahend":23,"minuend":42}`, `19`)}},
	"sum": {Summary: "Adds up its params.", ParamStructure: dispatch.ByPosition,
		Params: []dispatch.Param{variadic("numbers", numberSchema, "any number of numbers")},
		Result: result("sum", numberSchema, ""), Errors: []*dispatch.Error{errSum, errRange},
		Examples: []dispatch.Example{example(`[1,2,4]`, `7`)}},
	"update":       ignored("The specification's notification example."),
	"notify_hello": ignored("The specification's notification example."),
	"notify_sum":   ignored("The specification's notification example."),
	"get_data": {Summary: "Returns [\"hello\", 5].",
		Result:   result("data", `{"type":"array","items":[{"type":"string"},{"type":"integer"}],"minItems":2,"maxItems":2}`, ""),
		Examples: []dispatch.Example{{Result: []byte(`["hello",5]`)}}},
	"echo": {Summary: "Returns its params as received (null when absent).",
		Params: []dispatch.Param{variadic("values", anyValue, "any values; params by name come back as the object")},
		Result: result("params", anyValue, "the params"), Examples: []dispatch.Example{example(`[1,"a"]`, `[1,"a"]`)}},
	"sleep": {Summary: "Waits ms milliseconds, then returns ms.",
		Description: "Runs off the connection's reader; cancelled when the server shuts down.",
		Params:      []dispatch.Param{param("ms", `{"type":"integer","minimum":0}`, "milliseconds")},
		Result:      result("ms", `{"type":"integer","minimum":0}`, ""), Errors: []*dispatch.Error{errSleep},
		Examples: []dispatch.Example{example(`[10]`, `10`)}},
	"fail": {Summary: "Answers with the error object it is given.", ParamStructure: dispatch.ByName,
		Params: []dispatch.Param{param("code", `{"type":"integer","minimum":-2147483648,"maximum":2147483647}`, ""),
			param("message", `{"type":"string","minLength":1}`, ""),
			{Name: "data", Schema: []byte(anyValue), Description: "error.data, optional"}},
		Result: result("never", nullValue, "fail never has a result"), Errors: []*dispatch.Error{errFail}},
	"panic": {Summary: "Panics: the answer is -32603 Internal error, and the server goes on.",
		Result: result("never", nullValue, "panic never has a result")},
	"subscribe": {Summary: "Sends count notifications \"subscription\", then returns count.",
		Description: "Each notification's params are {\"subscription\": <this call's id>, \"result\": i} for i = 1..count. " +
			"Needs a transport that can send to the client: TCP, stdio, WebSocket, or a POST with Accept: text/event-stream.",
		Params: []dispatch.Param{param("count", countOf, "")}, Result: result("count", countOf, ""),
		Errors: []*dispatch.Error{errSubscribe, errNoPeer}},
	"callback": {Summary: "Calls method on the caller with params, and returns its result.",
		Description: "Needs a connection both ways: TCP, stdio or WebSocket.",
		Params: []dispatch.Param{param("method", `{"type":"string","minLength":1}`, "the caller's method"),
			{Name: "params", Schema: []byte(`{"type":["array","object"]}`), Description: "its params, optional"}},
		Result: result("result", anyValue, "the caller's result"), Errors: []*dispatch.Error{errCallback, errNoCalls}},
	"demo_subscribe": {Summary: "Answers a subscription id, then sends count notifications \"demo_subscription\".",
		Description: "go-ethereum's subscription convention: params {\"subscription\": id, \"result\": i}, i = 1..count.",
		Params:      []dispatch.Param{param("count", countOf, "")}, Result: result("subscription", `{"type":"string"}`, "the id"),
		Errors: []*dispatch.Error{errSubscribe, errNoPeer}},
	"demo_unsubscribe": {Summary: "Returns true (the demo's subscriptions end by themselves).", ParamStructure: dispatch.ByPosition,
		Params: []dispatch.Param{param("subscription", `{"type":"string"}`, "the id")}, Result: result("ok", `{"type":"boolean"}`, "")},
}

func ignored(description string) dispatch.Method {
	return dispatch.Method{Summary: "Accepts any params and returns null.", Description: description,
		Params: []dispatch.Param{variadic("values", anyValue, "ignored")}, Result: result("null", nullValue, ""),
		Examples: []dispatch.Example{example(`[1,2,3,4,5]`, `null`)}}
}

// describe adds m's description.
func describe(m dispatch.Method) dispatch.Method {
	d := descriptions[m.Name]
	m.Summary, m.Description, m.ParamStructure = d.Summary, d.Description, d.ParamStructure
	m.Params, m.Result, m.Errors, m.Examples = d.Params, d.Result, d.Errors, d.Examples
	return m
}
