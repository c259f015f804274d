package a2a

// Benchmarks (interop/a2a/bench.sh): A2A SendMessage (message/send,
// blocking, 0.3 wire) over loopback HTTP against jetrpc's a2a package and
// against a2a-go's server (a2asrv), each with the same instant echo agent
// (a submitted task, working, an artifact with the text, completed), from
// the same net/http client; "client" is that client against a handler
// that answers fixed bytes, so that the client's own allocations can be
// taken off. All run in one process on the same cores: the ratio is what
// to read. BenchmarkFirstEvent: the time from a message/stream POST to its
// first SSE event.

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/valyala/fasthttp"
)

const sendBody = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"b1","role":"user","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}}`

func jetrpcServer(b *testing.B) string {
	s := a2a.New(a2ademo.Card(), a2ademo.Echo(&a2ademo.Timings{}), &a2a.Options{MaxTasks: 1000})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	hs := &fasthttp.Server{Handler: s.ServeFastHTTP}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Shutdown(); s.Close() })
	return "http://" + ln.Addr().String() + "/a2a"
}

type goEcho struct{}

func (goEcho) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := ""
	for _, p := range rc.Message.Parts {
		if tp, ok := p.(sdk.TextPart); ok {
			text += tp.Text
		}
	}
	if rc.StoredTask == nil {
		if err := q.Write(ctx, sdk.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	if err := q.Write(ctx, sdk.NewStatusUpdateEvent(rc, sdk.TaskStateWorking, nil)); err != nil {
		return err
	}
	art := sdk.NewArtifactEvent(rc, sdk.TextPart{Text: text})
	art.LastChunk = true
	if err := q.Write(ctx, art); err != nil {
		return err
	}
	done := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCompleted, sdk.NewMessage(sdk.MessageRoleAgent, sdk.TextPart{Text: text}))
	done.Final = true
	return q.Write(ctx, done)
}

func (goEcho) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

func a2aGoServer(b *testing.B) string {
	h := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(goEcho{}))
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func fixedServer(b *testing.B) string {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	resp := []byte(`{"jsonrpc":"2.0","id":1,"result":{"id":"t","contextId":"c","status":{"state":"completed"},"kind":"task"}}`)
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetContentType("application/json"); ctx.SetBody(resp) }}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Shutdown() })
	return "http://" + ln.Addr().String() + "/"
}

func BenchmarkSendMessage(b *testing.B) {
	for _, c := range []struct {
		name  string
		start func(*testing.B) string
	}{{"jetrpc", jetrpcServer}, {"a2a-go", a2aGoServer}, {"client", fixedServer}} {
		b.Run(c.name, func(b *testing.B) {
			url := c.start(b)
			tr := &http.Transport{MaxIdleConnsPerHost: 256}
			defer tr.CloseIdleConnections()
			cl := &http.Client{Transport: tr}
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := cl.Post(url, "application/json", strings.NewReader(sendBody))
					if err != nil {
						b.Error(err)
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if !strings.Contains(string(body), `"completed"`) {
						b.Errorf("%s", body)
						return
					}
				}
			})
		})
	}
}

const streamBody = `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"b2","role":"user","parts":[{"kind":"text","text":"hello"}]}}}`

func BenchmarkFirstEvent(b *testing.B) {
	for _, c := range []struct {
		name  string
		start func(*testing.B) string
	}{{"jetrpc", jetrpcServer}, {"a2a-go", a2aGoServer}} {
		b.Run(c.name, func(b *testing.B) {
			url := c.start(b)
			tr := &http.Transport{MaxIdleConnsPerHost: 16}
			defer tr.CloseIdleConnections()
			cl := &http.Client{Transport: tr}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := cl.Post(url, "application/json", strings.NewReader(streamBody))
				if err != nil {
					b.Fatal(err)
				}
				r := bufio.NewReader(resp.Body)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						b.Fatal(err)
					}
					if strings.HasPrefix(line, "data: ") {
						break
					}
				}
				io.Copy(io.Discard, resp.Body) // the rest of the stream, off the clock would need pausing; it is short
				resp.Body.Close()
			}
		})
	}
}
