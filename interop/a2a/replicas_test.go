package a2a

import (
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/jetrpc/jetrpc/internal/natstest"
)

// TestResubscribeOtherReplica: two jetrpc serve --a2a processes share a
// NATS JetStream store (--a2a-store; an embedded server). a2a-go's client
// streams a task from replica A; after its second event, a2a-go's client
// of replica B (made from B's card) resubscribes there: it gets the task
// as it is and then every remaining event exactly once, as A's stream
// does, and B's GetTask has the final state.
func TestResubscribeOtherReplica(t *testing.T) {
	nats := natstest.Start(t)
	ca := client(t, start(t, "--a2a-store", nats))
	cb := client(t, start(t, "--a2a-store", nats))
	ctx := ctxT(t)
	var first, sub []string
	var taskID sdk.TaskID
	done := make(chan struct{})
	for ev, err := range ca.SendStreamingMessage(ctx, &sdk.MessageSendParams{Message: text("elsewhere", "test-resubscribe-message-id-o")}) {
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, kind(ev))
		if task, ok := ev.(*sdk.Task); ok {
			taskID = task.ID
		}
		if len(first) == 2 { // working: on to replica B
			go func() {
				defer close(done)
				for ev, err := range cb.ResubscribeToTask(ctx, &sdk.TaskIDParams{ID: taskID}) {
					if err != nil {
						t.Error(err)
						return
					}
					sub = append(sub, kind(ev))
				}
			}()
		}
	}
	<-done
	if want := []string{"task:submitted", "status:working", "artifact", "status:completed"}; len(first) != 4 ||
		first[0] != want[0] || first[1] != want[1] || first[2] != want[2] || first[3] != want[3] {
		t.Fatalf("stream from A: %v", first)
	}
	if len(sub) != 3 || sub[0] != "task:working" || sub[1] != "artifact" || sub[2] != "status:completed" {
		t.Fatalf("resubscribe on B: %v", sub)
	}
	got, err := cb.GetTask(ctx, &sdk.TaskQueryParams{ID: taskID})
	if err != nil || got.Status.State != sdk.TaskStateCompleted || len(got.Artifacts) != 1 {
		t.Fatalf("GetTask on B: %v %+v", err, got)
	}
	if p, _ := got.Artifacts[0].Parts[0].(sdk.TextPart); p.Text != "elsewhere" {
		t.Fatalf("artifact on B: %+v", got.Artifacts[0])
	}
}
