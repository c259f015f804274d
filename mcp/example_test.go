package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jetrpc/jetrpc/mcp"
)

// A tool whose work may run long hands it to RunTask. A 2026-07-28 request
// that declares the tasks extension gets a task to poll with tasks/get;
// any other request gets the result at once.
func ExampleRunTask() {
	s := mcp.New(mcp.Implementation{Name: "example", Version: "1"}, nil)
	defer s.Close()
	report := mcp.NewTool("report", "Builds a report.", func(ctx context.Context, in struct{ Month string }) (*mcp.Result, error) {
		return mcp.RunTask(ctx, func(ctx context.Context) (*mcp.Result, error) {
			time.Sleep(10 * time.Millisecond) // the long work
			return mcp.TextResult("report for " + in.Month), nil
		})
	})
	report.Tasks = mcp.TaskOptional
	if err := s.AddTool(report); err != nil {
		panic(err)
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	var out struct {
		Result struct {
			ResultType, TaskID, Status string
			Result                     struct{ Content []struct{ Text string } }
		}
	}
	send := func(req string) {
		_ = json.Unmarshal(s.Engine().Process(nil, []byte(req)), &out)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report","arguments":{"month":"May"},` + meta + `}}`)
	fmt.Println(out.Result.ResultType, out.Result.Status)
	id := out.Result.TaskID
	for out.Result.Status != "completed" {
		time.Sleep(5 * time.Millisecond) // a client waits pollIntervalMs
		send(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + id + `",` + meta + `}}`)
	}
	fmt.Println(out.Result.Status, out.Result.Result.Content[0].Text)
	// Output:
	// task working
	// completed report for May
}
