package a2a

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
)

// TestList: a2a-go v0.3.3's client has no tasks/list (its JSON-RPC
// transport stops at tasks/get; ListTasks is only in its gRPC service), so
// the list is posted as a 0.3 JSON-RPC call and its tasks are decoded with
// a2a-go's own Task type: the two tasks a2a-go sent in one context, newest
// first, one per page with a token to the next, artifacts only when asked.
func TestList(t *testing.T) {
	addr := start(t)
	c := client(t, addr)
	ctx := ctxT(t)
	wait := true
	var ids []sdk.TaskID
	for _, s := range []string{"one", "two"} {
		m := text(s, "")
		m.ContextID = "ctx-list"
		res, err := c.SendMessage(ctx, &sdk.MessageSendParams{Message: m, Config: &sdk.MessageSendConfig{Blocking: &wait}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.(*sdk.Task).ID)
	}
	type page struct {
		Tasks         []sdk.Task `json:"tasks"`
		NextPageToken string     `json:"nextPageToken"`
		TotalSize     int        `json:"totalSize"`
	}
	list := func(params string) page {
		t.Helper()
		resp, err := http.Post("http://"+addr+"/a2a", "application/json",
			bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":`+params+`}`)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Result *page           `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Result == nil {
			t.Fatalf("tasks/list %s: %v %s", params, err, r.Error)
		}
		return *r.Result
	}
	all := list(`{"contextId":"ctx-list","includeArtifacts":true}`)
	if all.TotalSize != 2 || len(all.Tasks) != 2 || all.Tasks[0].ID != ids[1] || all.Tasks[1].ID != ids[0] || all.NextPageToken != "" {
		t.Fatalf("list: %+v", all)
	}
	for _, tk := range all.Tasks {
		if tk.Status.State != sdk.TaskStateCompleted || tk.ContextID != "ctx-list" || len(tk.Artifacts) != 1 {
			t.Fatalf("listed task: %+v", tk)
		}
	}
	first := list(`{"contextId":"ctx-list","pageSize":1}`)
	if len(first.Tasks) != 1 || first.Tasks[0].ID != ids[1] || first.NextPageToken == "" || len(first.Tasks[0].Artifacts) != 0 {
		t.Fatalf("page 1: %+v", first)
	}
	second := list(`{"contextId":"ctx-list","pageSize":1,"pageToken":"` + first.NextPageToken + `"}`)
	if len(second.Tasks) != 1 || second.Tasks[0].ID != ids[0] || second.NextPageToken != "" {
		t.Fatalf("page 2: %+v", second)
	}
}
