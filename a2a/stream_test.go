package a2a_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

type sseEvent struct {
	id   string
	data string
}

// stream posts a streaming call and sends its events on a channel.
func stream(t *testing.T, base, version, body string, hdr ...string) <-chan sseEvent {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/a2a", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		var ev sseEvent
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[6:]
			case line == "" && ev.data != "":
				ch <- ev
				ev = sseEvent{}
			}
		}
	}()
	return ch
}

func collect(ch <-chan sseEvent) []sseEvent {
	var out []sseEvent
	for ev := range ch {
		out = append(out, ev)
	}
	return out
}

// TestResubscribeReplay: a stream cut after its second event is resumed
// with Last-Event-ID; the two together hold every event exactly once, as
// a stream that was never cut does.
func TestResubscribeReplay(t *testing.T) {
	base := serve(t)
	for _, w := range []struct{ version, send, sub, msg string }{
		{"", "message/stream", "tasks/resubscribe", `{"message":{"kind":"message","messageId":"test-resubscribe-message-id-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}`},
		{"1.0", "SendStreamingMessage", "SubscribeToTask", `{"message":{"messageId":"test-resubscribe-message-id-2","role":"ROLE_USER","parts":[{"text":"hi"}]}}`},
	} {
		first := stream(t, base, w.version, `{"jsonrpc":"2.0","id":"s","method":"`+w.send+`","params":`+w.msg+`}`)
		a, b := <-first, <-first // the task, then working
		var r struct {
			Result struct {
				ID   string `json:"id"`
				Task struct {
					ID string `json:"id"`
				} `json:"task"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(a.data), &r)
		id := r.Result.ID + r.Result.Task.ID
		if id == "" || a.id != "1" || b.id != "2" {
			t.Fatalf("%s: first events %+v %+v", w.version, a, b)
		}
		full := append([]sseEvent{a, b}, collect(first)...) // the original stream runs on to the end
		// a second subscriber, resuming after event 2
		rest := collect(stream(t, base, w.version, `{"jsonrpc":"2.0","id":"r","method":"`+w.sub+`","params":{"id":"`+id+`"}}`, "Last-Event-ID", "2"))
		got := append([]sseEvent{a, b}, rest...)
		if len(got) != len(full) || len(full) != 4 {
			t.Fatalf("%s: %d events resumed, %d in the stream: %v / %v", w.version, len(got), len(full), got, full)
		}
		for i := range got {
			want := strings.Replace(full[i].data, `"id":"s"`, `"id":"r"`, 1)
			if got[i].id != full[i].id || (i >= 2 && got[i].data != want) {
				t.Fatalf("%s: event %d: %+v, want %+v", w.version, i, got[i], full[i])
			}
		}
	}
}

// TestSubscribeMidStream: a subscription without Last-Event-ID while the
// task works begins with the task as it is, then every later event once.
func TestSubscribeMidStream(t *testing.T) {
	base := serve(t)
	first := stream(t, base, "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"test-resubscribe-message-id-3","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`)
	a := <-first
	var r struct {
		Result struct{ Task struct{ ID string } } `json:"result"`
	}
	json.Unmarshal([]byte(a.data), &r)
	<-first // working
	sub := collect(stream(t, base, "1.0", `{"jsonrpc":"2.0","id":2,"method":"SubscribeToTask","params":{"id":"`+r.Result.Task.ID+`"}}`))
	if len(sub) != 3 || !strings.Contains(sub[0].data, `"task":`) || !strings.Contains(sub[0].data, "TASK_STATE_WORKING") ||
		!strings.Contains(sub[1].data, "artifactUpdate") || !strings.Contains(sub[2].data, "TASK_STATE_COMPLETED") || sub[0].id != "2" {
		t.Fatalf("subscription: %v", sub)
	}
	collect(first)
}

// TestPush: a webhook gets the task's notifications with the token.
func TestPush(t *testing.T) {
	base := serve(t)
	var mu sync.Mutex
	var tokens, bodies []string
	fails := 1
	hook := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 { // the first delivery fails: it is tried again
			fails--
			w.WriteHeader(503)
			return
		}
		tokens = append(tokens, r.Header.Get("X-A2A-Notification-Token"))
		bodies = append(bodies, string(b))
	})}
	ln := listen(t)
	go hook.Serve(ln)
	defer hook.Close()
	r := call(t, base, "", "message/send", `{"message":{"kind":"message","messageId":"p1","role":"user","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true,"pushNotificationConfig":{"url":"http://`+ln.Addr().String()+`/hook","token":"tok-1"}}}`)
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		done := len(bodies) > 0 && strings.Contains(bodies[len(bodies)-1], `"completed"`)
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) == 0 || !strings.Contains(bodies[len(bodies)-1], `"completed"`) {
		t.Fatalf("webhook got %v", bodies)
	}
	for _, tok := range tokens {
		if tok != "tok-1" {
			t.Fatalf("token %q", tok)
		}
	}
}
