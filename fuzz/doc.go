// Package fuzz holds jetrpc's fuzz harnesses and the project's reference classifier.
//
// [Classify] decides what a message is by the rules of PROTOCOL.md using only encoding/json,
// unicode/utf8 and maps: it shares no code with the scanner in decode/ so that the two can be
// compared on any input. It is slow and allocates freely; it is NOT on any hot path and nothing
// outside tests should call it.
//
// The harnesses live in the tests:
//
//   - FuzzScanner: decode.Parser against Classify, for every input and small limits: the same
//     parse-error / depth-error / valid decision, Kind, Reason and member bytes.
//   - FuzzProcess: dispatch.Engine.Process with the demo methods on arbitrary bytes: it never
//     panics, and what it writes is well-formed and answers exactly what Classify says is due.
//
// Run one with, e.g.:
//
//	go test -run '^$' -fuzz '^FuzzScanner$' -fuzztime 180s ./fuzz/
//
// Go minimizes every input that finds new coverage, for up to a minute by default. Inputs that
// are interesting only for their length (a long string crossing another loop-count bucket) do
// not shrink, and FuzzProcess's coverage is not fully deterministic (batch members run on pooled
// goroutines), so on a busy machine the fuzzer can spend long stretches minimizing;
// -fuzzminimizetime 1000x bounds that.
//
// Inputs found by the fuzzer that once failed are kept under testdata/fuzz/<Target>/ and run as
// unit tests with plain `go test`.
package fuzz
