package a2a_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
)

// TestMaxTasksEvicts: past MaxTasks the oldest terminal tasks are
// forgotten (tasks/get: -32001), a sixteenth of the bound at a time, so
// the server keeps between MaxTasks-MaxTasks/16 and MaxTasks of them, and
// always the newest.
func TestMaxTasksEvicts(t *testing.T) {
	const max, sends = 32, 100
	base, _ := serveWith(t, &a2a.Options{MaxTasks: max},
		&a2ademo.Timings{Submitted: time.Nanosecond, Working: time.Nanosecond})
	ids := make([]string, sends)
	for i := range ids {
		r := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"m`+strconv.Itoa(i)+
			`","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
		var res struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Status.State != "completed" {
			t.Fatalf("send %d: %+v %s", i, r.Error, r.Result)
		}
		ids[i] = res.ID
	}
	found := 0
	for i, id := range ids {
		r := call(t, base, "", "tasks/get", `{"id":"`+id+`"}`)
		switch {
		case r.Error == nil:
			found++
		case r.Error.Code != -32001:
			t.Fatalf("tasks/get %d: code %d", i, r.Error.Code)
		case i == sends-1:
			t.Fatalf("the newest task was forgotten")
		}
		if i == 0 && r.Error == nil {
			t.Fatalf("the oldest task is still kept")
		}
	}
	if found < max-max/16 || found > max {
		t.Fatalf("%d tasks kept, want %d to %d", found, max-max/16, max)
	}
}
