package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/natstest"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
	"github.com/stretchr/testify/require"
)

// a2aReplica is a jetrpc serve --a2a process sharing the NATS store.
func a2aReplica(t *testing.T, natsURL string) (*process, string) {
	t.Helper()
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--a2a", "--a2a-store", natsURL)
	return p, "http://" + p.stderr.listening(t, "http")["http"] + "/a2a"
}

// a2aPost posts one JSON-RPC call to an A2A endpoint.
func a2aPost(t *testing.T, url, version, last, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	require.NoError(t, err)
	return res
}

// TestA2AReplicasKill: two jetrpc serve --a2a processes share a NATS
// JetStream store (embedded here). A client streams a task (the echo
// agent's 5 s one) from replica A and stops reading after two events;
// while A still works, it subscribes again on replica B with
// Last-Event-ID 2: B reads the task from the store (working) and follows
// A's events live, the artifact and the completed status, once each. A is
// then SIGKILLed, the client's stream from it still open; a resubscribe
// on B (the other wire) replays the same events from the store, and B
// answers GetTask with the final state.
func TestA2AReplicasKill(t *testing.T) {
	natsURL := natstest.Start(t)
	a, urlA := a2aReplica(t, natsURL)
	_, urlB := a2aReplica(t, natsURL)

	resA := a2aPost(t, urlA, "", "", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message",`+
		`"messageId":"test-resubscribe-message-id-kill","role":"user","parts":[{"kind":"text","text":"across replicas"}]}}}`)
	require.Equal(t, "text/event-stream", resA.Header.Get("Content-Type"))
	defer resA.Body.Close()
	first := readEvents(bufio.NewReader(resA.Body), 2) // the task, then working; the client reads no more
	require.Len(t, first, 2)
	require.Equal(t, "1", first[0].id)
	require.Equal(t, "2", first[1].id)
	var r struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(first[0].data), &r))
	id := r.Result.ID
	require.NotEmpty(t, id)

	// B follows the task A works on.
	resB := a2aPost(t, urlB, "1.0", "2", `{"jsonrpc":"2.0","id":"b","method":"SubscribeToTask","params":{"id":"`+id+`"}}`)
	require.Equal(t, 200, resB.StatusCode)
	get := a2aPost(t, urlB, "1.0", "", `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"`+id+`"}}`)
	body, _ := io.ReadAll(get.Body)
	get.Body.Close()
	require.Contains(t, string(body), `"TASK_STATE_WORKING"`, "B reads the task A runs")
	live := readEvents(bufio.NewReader(resB.Body), -1)
	resB.Body.Close()
	require.Len(t, live, 2, "%q", live)
	require.Equal(t, "3", live[0].id)
	require.Contains(t, live[0].data, `"artifactUpdate"`)
	require.Contains(t, live[0].data, "across replicas")
	require.Equal(t, "4", live[1].id)
	require.Contains(t, live[1].data, `"TASK_STATE_COMPLETED"`)

	// The final event is in the store: A dies without a word, its client's
	// stream open.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store, err := natsstore.Connect(ctx, natsURL, &natsstore.Options{Stream: "A2A_EVENTS", Bucket: "A2A_TASKS", Prefix: "a2a"})
	require.NoError(t, err)
	defer store.Close()
	var seqs []uint64
	found, err := store.Replay(ctx, streamstore.Key{Session: "a2a:" + id, Stream: 1}, 0, func(ev streamstore.Event) error {
		seqs = append(seqs, ev.Seq)
		return nil
	})
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []uint64{1, 2, 3, 4}, seqs)
	require.NoError(t, a.cmd.Process.Kill())
	<-a.done
	a.done <- nil // for the cleanup

	// The client resumes through B, on 0.3.
	res := a2aPost(t, urlB, "", "2", `{"jsonrpc":"2.0","id":"r","method":"tasks/resubscribe","params":{"id":"`+id+`"}}`)
	rest := readEvents(bufio.NewReader(res.Body), -1)
	res.Body.Close()
	require.Len(t, rest, 2, "%q", rest)
	for i, ev := range rest {
		require.Equal(t, strconv.Itoa(i+3), ev.id)
		require.Contains(t, ev.data, `"id":"r"`)
	}
	require.Contains(t, rest[0].data, `"kind":"artifact-update"`)
	require.Contains(t, rest[1].data, `"state":"completed"`)
	require.Contains(t, rest[1].data, `"final":true`)
	get = a2aPost(t, urlB, "", "", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+id+`"}}`)
	body, _ = io.ReadAll(get.Body)
	get.Body.Close()
	require.Contains(t, string(body), `"state":"completed"`)
	require.Contains(t, string(body), `"text":"across replicas"`)
	// Nothing after the last event.
	res = a2aPost(t, urlB, "", "4", `{"jsonrpc":"2.0","id":"q","method":"tasks/resubscribe","params":{"id":"`+id+`"}}`)
	none := readEvents(bufio.NewReader(res.Body), -1)
	res.Body.Close()
	require.Empty(t, none)
}

// TestA2AReplicasOwnerKilled: replica A is SIGKILLed while its task works
// (the echo agent's 5 s one), its client's stream open after two events.
// The client resubscribes on B with Last-Event-ID 2: the task's executor
// died with A, so B, once A has not beaten for the owner timeout (10 s),
// ends the task as failed; the client gets that final event once, and
// B's GetTask says failed.
func TestA2AReplicasOwnerKilled(t *testing.T) {
	natsURL := natstest.Start(t)
	a, urlA := a2aReplica(t, natsURL)
	_, urlB := a2aReplica(t, natsURL)
	resA := a2aPost(t, urlA, "", "", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message",`+
		`"messageId":"test-resubscribe-message-id-dies","role":"user","parts":[{"kind":"text","text":"lost"}]}}}`)
	defer resA.Body.Close()
	first := readEvents(bufio.NewReader(resA.Body), 2)
	require.Len(t, first, 2)
	var r struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(first[0].data), &r))
	id := r.Result.ID
	require.NoError(t, a.cmd.Process.Kill()) // mid-task
	<-a.done
	a.done <- nil
	start := time.Now()
	res := a2aPost(t, urlB, "", "2", `{"jsonrpc":"2.0","id":"r","method":"tasks/resubscribe","params":{"id":"`+id+`"}}`)
	rest := readEvents(bufio.NewReader(res.Body), -1)
	res.Body.Close()
	require.Len(t, rest, 1, "%q", rest)
	require.Equal(t, "3", rest[0].id)
	require.Contains(t, rest[0].data, `"state":"failed"`)
	require.Contains(t, rest[0].data, `"final":true`)
	require.Greater(t, time.Since(start), 5*time.Second, "failed before the owner timeout")
	// The state is saved right after the final event is appended (in that
	// order, so that a state that says terminal never hides an event from
	// a replay): B's GetTask may see working for a moment after the event.
	var body []byte
	for deadline := time.Now().Add(5 * time.Second); ; {
		get := a2aPost(t, urlB, "", "", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+id+`"}}`)
		body, _ = io.ReadAll(get.Body)
		get.Body.Close()
		if strings.Contains(string(body), `"state":"failed"`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.Contains(t, string(body), `"state":"failed"`)
}
