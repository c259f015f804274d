// Package bench holds jetrpc's benchmarks and their baseline: an
// encoding/json JSON-RPC server written the way a typical Go service writes
// one (unmarshal into a struct with json.RawMessage params and id, a map of
// handlers, json.Marshal of the response). The benchmarks BenchmarkEngine/<case>
// and BenchmarkStdlib/<case> run the same messages through both.
package bench
