package decode

import "strings"

// Benchmark and allocation-test inputs.
var (
	smallMsg = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
	namedMsg = `{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}`
	largeMsg = `{"jsonrpc":"2.0","method":"eth_call","params":[{"from":"0xb60e8dd61c5d32be8058bb8eb970870f07233155",` +
		`"to":"0xd46e8dd67c5d32be8058bb8eb970870f07244567","gas":"0x76c0","gasPrice":"0x9184e72a000","value":"0x9184e72a",` +
		`"data":"0x` + strings.Repeat("d46e8dd67c5d32be8d46e8dd67c5d32be8058bb8eb970870f072445675", 6) + `"},"latest",` +
		`{"blockNumber":19000000,"nested":{"a":[1,2,3,4.5,-6e7,true,false,null],"b":{"c":{"d":[[],{}]}}},` +
		`"label":"caf\u00e9 – naïve résumé \"quoted\" \\ back\/slash\n","tags":["alpha","beta","gamma","delta","epsilon"],` +
		`"ratios":[0.25,0.5,0.75,1.0,1.25,1.5,1.75,2.0,3.14159,2.71828,-0.001,1e-9,6.02e23]}],"id":"req-0001"}`
	// Responses, as a client reads them: a small result as jetrpc writes it, and a block
	// header's worth of object.
	resultMsg  = `{"jsonrpc":"2.0","id":1,"result":19}`
	resultObj  = `{"jsonrpc":"2.0","id":"req-0001","result":{"number":"0x1b4","hash":"0xdc0818cf78f21a8e70579cb46a43643f78291264dda342ae31049421c82d21ae","parentHash":"0xe99e022112df268087ea7eafaf4790497fd21dbeeb6bd7a1721df161a6657a54","gasUsed":"0x9f759","timestamp":"0x54e34e8e","transactions":[],"uncles":[],"logs":[{"address":"0x1a94fce7ef36bc90959e206ba569a12afbc91ca1","topics":["0x24abdb5865df5079dcc5ac590ff6f01d5c16edbc5fab4e195d9febd1114503da"],"data":"0x","removed":false}]}}`
	batch10Msg = "[" + strings.Repeat(smallMsg+","+namedMsg+",", 4) + smallMsg + "," +
		`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}` + "]"
)

var benchCases = []struct{ name, in string }{
	{"small", smallMsg},
	{"named", namedMsg},
	{"large", largeMsg},
	{"batch10", batch10Msg},
	{"result", resultMsg},
	{"result-object", resultObj},
}
