// Package bench holds jetrpc's benchmarks and their baseline: an
// encoding/json JSON-RPC server written the way a typical Go service writes
// one (unmarshal into a struct with json.RawMessage params and id, a map of
// handlers, json.Marshal of the response). The benchmarks BenchmarkEngine/<case>
// and BenchmarkStdlib/<case> run the same messages through both.
//
// The network benchmarks (BenchmarkTCP, BenchmarkHTTP, BenchmarkWS) serve
// the baseline with LineServer, StdlibHTTP and WSServer, the transport's
// limit with EchoLine, and drive every server with bench/load, the one
// in-process load generator. bench/compare is the harness of "jetrpc bench"
// on top of them; bench/demo has the demo methods.
package bench
