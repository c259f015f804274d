// The generated file openrpc_gen.go is jetrpc gen's output for the demo
// server's own document, fetched from a running "jetrpc serve" with
// rpc.discover; TestGenDemo in cmd/jetrpc regenerates it from the live
// server and fails when it differs (go test ./cmd/jetrpc -run TestGenDemo
// -update writes it). The tests here are the round trip: the generated
// client calls every demo method over TCP and HTTP, and the generated
// server interface, implemented in the test, passes the specification's
// vectors.

package democlient
