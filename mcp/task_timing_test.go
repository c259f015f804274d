package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/jetrpc/jetrpc/mcp"
)

const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskBenchServer serves a task tool "job" whose work returns at once.
func taskBenchServer(tb testing.TB) *mcp.Server {
	s := mcp.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	tb.Cleanup(s.Close)
	job := mcp.NewTool("job", "Returns at once.", func(ctx context.Context, _ struct{}) (*mcp.Result, error) {
		return mcp.RunTask(ctx, func(context.Context) (*mcp.Result, error) { return mcp.TextResult("done"), nil })
	})
	job.Tasks = mcp.TaskOptional
	if err := s.AddTool(job); err != nil {
		tb.Fatal(err)
	}
	if err := s.SetTaskOptions(mcp.TaskOptions{MaxTasks: 1 << 20}); err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkTask measures the extension's two requests in process: a
// tools/call that makes a task (create, start its work, answer the
// CreateTaskResult) and a tasks/get of a completed task (a client's poll).
func BenchmarkTask(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},` + taskMeta + `}}`)
	b.Run("create", func(b *testing.B) {
		e := taskBenchServer(b).Engine()
		var dst []byte
		b.ReportAllocs()
		for b.Loop() {
			dst = e.Process(dst[:0], call)
		}
	})
	b.Run("get", func(b *testing.B) {
		s := taskBenchServer(b)
		var created struct{ Result struct{ TaskID string } }
		if err := json.Unmarshal(s.Engine().Process(nil, call), &created); err != nil || created.Result.TaskID == "" {
			b.Fatal("no task", err)
		}
		get := []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + created.Result.TaskID + `",` + taskMeta + `}}`)
		var dst []byte
		for { // until its work has ended
			dst = s.Engine().Process(dst[:0], get)
			if json.Valid(dst) && bytes.Contains(dst, []byte(`"status":"completed"`)) {
				break
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			dst = s.Engine().Process(dst[:0], get)
		}
	})
}
