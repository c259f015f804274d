package a2a

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestSendGetCancel: message/send (blocking: true), then
// tasks/get of the completed task; a long task is cancelled.
func TestSendGetCancel(t *testing.T) {
	addr := start(t)
	c := client(t, addr)
	ctx := ctxT(t)
	wait := true
	res, err := c.SendMessage(ctx, &sdk.MessageSendParams{Message: text("hello", ""), Config: &sdk.MessageSendConfig{Blocking: &wait}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*sdk.Task)
	if !ok || task.Status.State != sdk.TaskStateCompleted || len(task.Artifacts) != 1 {
		t.Fatalf("send: %#v", res)
	}
	if p, _ := task.Artifacts[0].Parts[0].(sdk.TextPart); p.Text != "hello" {
		t.Fatalf("artifact %#v", task.Artifacts[0])
	}
	got, err := c.GetTask(ctx, &sdk.TaskQueryParams{ID: task.ID})
	if err != nil || got.ID != task.ID || got.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("get: %v %#v", err, got)
	}
	blocking := false
	res, err = c.SendMessage(ctx, &sdk.MessageSendParams{Message: text("long", "test-resubscribe-message-id-c"),
		Config: &sdk.MessageSendConfig{Blocking: &blocking}})
	if err != nil {
		t.Fatal(err)
	}
	long := res.(*sdk.Task)
	canceled, err := c.CancelTask(ctx, &sdk.TaskIDParams{ID: long.ID})
	if err != nil || canceled.Status.State != sdk.TaskStateCanceled {
		t.Fatalf("cancel: %v %#v", err, canceled)
	}
	if _, err := c.CancelTask(ctx, &sdk.TaskIDParams{ID: long.ID}); err == nil {
		t.Fatal("second cancel succeeded")
	}
	if _, err := c.GetTask(ctx, &sdk.TaskQueryParams{ID: "nope"}); err == nil {
		t.Fatal("get of an unknown task succeeded")
	}
}

func kind(ev sdk.Event) string {
	switch e := ev.(type) {
	case *sdk.Task:
		return "task:" + string(e.Status.State)
	case *sdk.TaskStatusUpdateEvent:
		return "status:" + string(e.Status.State)
	case *sdk.TaskArtifactUpdateEvent:
		return "artifact"
	case *sdk.Message:
		return "message"
	}
	return "?"
}

// TestStreamResubscribe: message/stream; after its second event,
// tasks/resubscribe gets the task as it is and then every remaining event
// exactly once, as the first stream does.
func TestStreamResubscribe(t *testing.T) {
	addr := start(t)
	c := client(t, addr)
	ctx := ctxT(t)
	var first []string
	var taskID sdk.TaskID
	var sub []string
	var wg sync.WaitGroup
	for ev, err := range c.SendStreamingMessage(ctx, &sdk.MessageSendParams{Message: text("hi", "test-resubscribe-message-id-s")}) {
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, kind(ev))
		if task, ok := ev.(*sdk.Task); ok {
			taskID = task.ID
		}
		if len(first) == 2 { // working: subscribe again mid-stream
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ev, err := range c.ResubscribeToTask(ctx, &sdk.TaskIDParams{ID: taskID}) {
					if err != nil {
						t.Error(err)
						return
					}
					sub = append(sub, kind(ev))
				}
			}()
		}
	}
	wg.Wait()
	want := []string{"task:submitted", "status:working", "artifact", "status:completed"}
	if len(first) != 4 || first[0] != want[0] || first[1] != want[1] || first[2] != want[2] || first[3] != want[3] {
		t.Fatalf("stream: %v", first)
	}
	if len(sub) != 3 || sub[0] != "task:working" || sub[1] != "artifact" || sub[2] != "status:completed" {
		t.Fatalf("resubscribe: %v", sub)
	}
}

// TestPush: a config set on a running task; its webhook gets the
// notifications with the token; get, list and delete of the config.
func TestPush(t *testing.T) {
	addr := start(t)
	c := client(t, addr)
	ctx := ctxT(t)
	var mu sync.Mutex
	var got []string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hook := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Header.Get("X-A2A-Notification-Token")+" "+string(b))
		mu.Unlock()
	})}
	go hook.Serve(ln)
	defer hook.Close()
	blocking := false
	res, err := c.SendMessage(ctx, &sdk.MessageSendParams{Message: text("push", ""), Config: &sdk.MessageSendConfig{Blocking: &blocking}})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	cfg, err := c.SetTaskPushConfig(ctx, &sdk.TaskPushConfig{TaskID: task.ID,
		Config: sdk.PushConfig{ID: "hook", URL: "http://" + ln.Addr().String() + "/a2a-hook", Token: "secret-token"}})
	if err != nil || cfg.Config.ID != "hook" {
		t.Fatalf("set: %v %#v", err, cfg)
	}
	if g, err := c.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigParams{TaskID: task.ID, ConfigID: "hook"}); err != nil || g.Config.Token != "secret-token" {
		t.Fatalf("get: %v %#v", err, g)
	}
	if l, err := c.ListTaskPushConfig(ctx, &sdk.ListTaskPushConfigParams{TaskID: task.ID}); err != nil || len(l) != 1 {
		t.Fatalf("list: %v %#v", err, l)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		done := n > 0 && contains(got[n-1], `"state":"completed"`)
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook got %v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	for _, g := range got {
		if !contains(g, "secret-token ") {
			t.Errorf("notification without the token: %s", g)
		}
	}
	mu.Unlock()
	if err := c.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigParams{TaskID: task.ID, ConfigID: "hook"}); err != nil {
		t.Fatalf("delete: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
