package demo_test

import (
	"encoding/json"
	"fmt"

	"github.com/jetrpc/jetrpc/bench/demo"
)

// Logs makes the compression benchmarks' eth_getLogs-like result: the
// same bytes on every call, a JSON array of log objects.
func ExampleLogs() {
	logs := demo.Logs(64 << 10)
	var v []struct {
		Address string   `json:"address"`
		Topics  []string `json:"topics"`
	}
	err := json.Unmarshal(logs, &v)
	fmt.Println(len(logs), len(v), len(v[0].Address), len(v[0].Topics), err)
	// Output: 65914 109 42 3 <nil>
}
