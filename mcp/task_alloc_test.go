//go:build !race

package mcp_test

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestTaskGetAllocs: a client's poll (tasks/get of a task) allocates
// nothing, in process.
func TestTaskGetAllocs(t *testing.T) {
	s := taskBenchServer(t)
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},` + taskMeta + `}}`)
	var created struct{ Result struct{ TaskID string } }
	if err := json.Unmarshal(s.Engine().Process(nil, call), &created); err != nil || created.Result.TaskID == "" {
		t.Fatal("no task", err)
	}
	get := []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + created.Result.TaskID + `",` + taskMeta + `}}`)
	dst := make([]byte, 0, 512)
	for i := 0; !bytes.Contains(dst, []byte(`"status":"completed"`)); i++ {
		if i == 100000 {
			t.Fatalf("the task did not complete: %s", dst)
		}
		dst = s.Engine().Process(dst[:0], get)
	}
	if n := testing.AllocsPerRun(1000, func() { dst = s.Engine().Process(dst[:0], get) }); n != 0 {
		t.Fatalf("tasks/get: %v allocations per poll, want 0", n)
	}
}
