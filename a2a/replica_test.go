package a2a_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
)

// replicas starts two echo agents, A and B, sharing a NATS JetStream
// store (an embedded server), with an OwnerTimeout of 400 ms (below the
// 2 s a test-resubscribe task works without an event).
func replicas(t *testing.T) (a, b string) {
	t.Helper()
	a, b, _ = replicaStores(t)
	return a, b
}

// replicaStores is replicas, with the store connection of each.
func replicaStores(t *testing.T) (a, b string, stores [2]*natsstore.Store) {
	t.Helper()
	url := natstest.Start(t)
	base := [2]string{}
	for i := range base {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := natsstore.Connect(ctx, url, &natsstore.Options{Stream: "A2A_EVENTS", Bucket: "A2A_TASKS", Prefix: "a2a", Memory: true})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		stores[i] = st
		base[i], _ = serveWith(t, &a2a.Options{Events: st, OwnerTimeout: 400 * time.Millisecond}, &a2ademo.Timings{Submitted: 20 * time.Millisecond,
			Working: 50 * time.Millisecond, Resubscribe: 2 * time.Second}) // time to subscribe on B meanwhile
	}
	return base[0], base[1], stores
}

func taskID(t *testing.T, ev sseEvent) string {
	t.Helper()
	var r struct {
		Result struct {
			ID   string `json:"id"`
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(ev.data), &r); err != nil {
		t.Fatalf("%v: %s", err, ev.data)
	}
	return r.Result.ID + r.Result.Task.ID
}

// checkIDs fails unless the events are numbered from..from+len-1.
func checkIDs(t *testing.T, evs []sseEvent, from int) {
	t.Helper()
	for i, ev := range evs {
		if ev.id != strconv.Itoa(from+i) {
			t.Fatalf("event %d has id %q, want %d: %v", i, ev.id, from+i, evs)
		}
	}
}

// TestReplicasResubscribe: a task runs on replica A; its client loses A's
// stream after two events and subscribes again, with Last-Event-ID, on
// replica B, while the task still works on A. B answers GetTask from the
// shared store, and its stream follows the events A goes on appending:
// every remaining one, exactly once, to the completed status; on both
// wires.
func TestReplicasResubscribe(t *testing.T) {
	a, b := replicas(t)
	for i, w := range []struct{ version, send, sub, get, working, completed, msg string }{
		{"", "message/stream", "tasks/resubscribe", "tasks/get", `"working"`, `"completed"`,
			`{"message":{"kind":"message","messageId":"test-resubscribe-message-id-r1","role":"user","parts":[{"kind":"text","text":"over there"}]}}`},
		{"1.0", "SendStreamingMessage", "SubscribeToTask", "GetTask", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
			`{"message":{"messageId":"test-resubscribe-message-id-r2","role":"ROLE_USER","parts":[{"text":"over there"}]}}`},
	} {
		first := stream(t, a, w.version, `{"jsonrpc":"2.0","id":"s","method":"`+w.send+`","params":`+w.msg+`}`)
		e1, e2 := <-first, <-first // the task, then working
		id := taskID(t, e1)
		checkIDs(t, []sseEvent{e1, e2}, 1)
		rest := stream(t, b, w.version, `{"jsonrpc":"2.0","id":"r","method":"`+w.sub+`","params":{"id":"`+id+`"}}`, "Last-Event-ID", "2")
		got := call(t, b, w.version, w.get, `{"id":"`+id+`"}`) // B reads the task A runs
		if got.Error != nil || !strings.Contains(string(got.Result), w.working) {
			t.Fatalf("%d: GetTask on B while A works: %+v %s", i, got.Error, got.Result)
		}
		evs := collect(rest)
		if len(evs) != 2 || !strings.Contains(evs[0].data, "over there") || !strings.Contains(evs[1].data, w.completed) ||
			!strings.Contains(evs[1].data, `"id":"r"`) {
			t.Fatalf("%d: B's stream: %v", i, evs)
		}
		checkIDs(t, evs, 3)
		orig := collect(first)
		for j := range evs { // what A's stream would have sent
			if want := strings.Replace(orig[j].data, `"id":"s"`, `"id":"r"`, 1); evs[j].data != want {
				t.Fatalf("%d: event %s from B %s, from A %s", i, evs[j].id, evs[j].data, orig[j].data)
			}
		}
		got = call(t, b, w.version, w.get, `{"id":"`+id+`"}`)
		if got.Error != nil || !strings.Contains(string(got.Result), w.completed) || !strings.Contains(string(got.Result), "over there") {
			t.Fatalf("%d: GetTask on B at the end: %+v %s", i, got.Error, got.Result)
		}
		// once ended, B replays from the store and ends the stream
		if again := collect(stream(t, b, w.version, `{"jsonrpc":"2.0","id":"q","method":"`+w.sub+`","params":{"id":"`+id+`"}}`, "Last-Event-ID", "3")); len(again) != 1 || again[0].id != "4" {
			t.Fatalf("%d: replay on B after the end: %v", i, again)
		}
	}
}

// TestReplicasSubscribeSnapshot: subscribing on B without Last-Event-ID
// to a task A runs begins with the task as A last saved it, numbered as
// its last event, then every later event once. What only the owner can do
// (cancel, push configs) is refused on B, naming the reason.
func TestReplicasSubscribeSnapshot(t *testing.T) {
	a, b := replicas(t)
	first := stream(t, a, "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"test-resubscribe-message-id-r3","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
	id := taskID(t, <-first)
	<-first // working
	r := call(t, b, "1.0", "CancelTask", `{"id":"`+id+`"}`)
	if r.Error == nil || r.Error.Code != -32002 || !strings.Contains(string(r.Error.Data), `"reason":"remote"`) {
		t.Fatalf("CancelTask on B: %+v", r.Error)
	}
	r = call(t, b, "", "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"https://example.com/hook"}}`)
	if r.Error == nil || r.Error.Code != -32004 {
		t.Fatalf("push config on B: %+v", r.Error)
	}
	sub := collect(stream(t, b, "1.0", `{"jsonrpc":"2.0","id":2,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`))
	if len(sub) != 3 || !strings.Contains(sub[0].data, `"task":`) || !strings.Contains(sub[0].data, "TASK_STATE_WORKING") ||
		!strings.Contains(sub[1].data, "artifactUpdate") || !strings.Contains(sub[2].data, "TASK_STATE_COMPLETED") {
		t.Fatalf("subscription on B: %v", sub)
	}
	checkIDs(t, sub, 2)
	collect(first)
	if r := call(t, b, "1.0", "GetTask", `{"id":"no-such-task"}`); r.Error == nil || r.Error.Code != -32001 {
		t.Fatalf("unknown task on B: %+v", r.Error)
	}
}

// TestReplicasOwnerDies: A loses the store (its NATS connection closes:
// no more events, no more beats) while its task works; a subscriber on B
// gets, once OwnerTimeout has passed, the task failed as the next event,
// and B's GetTask says failed.
func TestReplicasOwnerDies(t *testing.T) {
	a, b, stores := replicaStores(t)
	first := stream(t, a, "", `{"jsonrpc":"2.0","id":"s","method":"message/stream","params":{"message":{"kind":"message","messageId":"test-resubscribe-message-id-d","role":"user","parts":[{"kind":"text","text":"x"}]}}}`)
	e1, e2 := <-first, <-first
	id := taskID(t, e1)
	checkIDs(t, []sseEvent{e1, e2}, 1)
	stores[0].Close() // A is gone, as far as the other replicas can tell
	start := time.Now()
	evs := collect(stream(t, b, "", `{"jsonrpc":"2.0","id":"r","method":"tasks/resubscribe","params":{"id":"`+id+`"}}`, "Last-Event-ID", "2"))
	if len(evs) != 1 || !strings.Contains(evs[0].data, `"state":"failed"`) || !strings.Contains(evs[0].data, `"final":true`) ||
		!strings.Contains(evs[0].data, "stopped before the task ended") {
		t.Fatalf("B's stream: %v", evs)
	}
	checkIDs(t, evs, 3)
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("the task failed after %v, before OwnerTimeout", d)
	}
	// The state is saved right after the final event is appended (in that
	// order, so that a saved terminal state never hides an event from a
	// replay): GetTask may read working for a moment after the event.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r := call(t, b, "", "tasks/get", `{"id":"`+id+`"}`)
		if r.Error == nil && strings.Contains(string(r.Result), `"state":"failed"`) {
			break
		}
		if r.Error != nil || time.Now().After(deadline) {
			t.Fatalf("GetTask on B: %+v %s", r.Error, r.Result)
		}
	}
	collect(first)
}
