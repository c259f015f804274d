package interop

// NOTE: the measurements of #21 (bench.sh runs them). Both agents are
// processes on pipes: jetrpc serve --stdio --acp, and ./sdkagent, the same
// echo written on acp-go-sdk. One driver, raw NDJSON on the agent's stdin
// and stdout, sends a prompt of 10,000 words (each echoed as one
// agent_message_chunk, then a tool_call and its tool_call_update: 10,002
// session/update notifications a turn) and counts the lines until the
// prompt's answer. While a turn runs, the agent's resident memory is sampled
// from /proc every millisecond, all of it (RSS) and its anonymous part
// (anon: heap and stacks, without the pages of the binary, which for
// jetrpc's 40 MB binary are most of its RSS); its CPU time comes from
// /proc/PID/stat.
//
// "fast reader": the driver reads as fast as it can (throughput).
// "paused reader": the driver does not read for the first 300 ms of each
// turn, as a busy editor would not: what the agent holds meanwhile is the
// cost of a burst the client does not take.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

const burst = 10000

type agentUnderTest struct {
	name string
	bin  func() string
	args []string
}

var agents = []agentUnderTest{
	{"jetrpc", func() string { return jetrpcBin }, []string{"serve", "--stdio", "--acp"}},
	{"acp-go-sdk", func() string { return sdkAgentBin }, nil},
}

func BenchmarkUpdates(b *testing.B) {
	prompt := promptParams(words(burst))
	for _, a := range agents {
		b.Run("agent="+a.name, func(b *testing.B) {
			for _, paused := range []bool{false, true} {
				name := "reader=fast"
				if paused {
					name = "reader=paused"
				}
				b.Run(name, func(b *testing.B) { benchTurns(b, a, prompt, paused) })
			}
		})
	}
}

// benchTurns runs b.N turns of prompt on a fresh agent a.
func benchTurns(b *testing.B, a agentUnderTest, prompt string, paused bool) {
	p := startAgent(b, a.bin(), a.args...)
	d := &driver{t: b, w: p.stdin, r: bufio.NewReaderSize(p.stdout, 1<<20)}
	d.call("initialize", `{"protocolVersion":1,"clientCapabilities":{}}`, 0)
	sid := d.sessionID(d.call("session/new", `{"cwd":"/","mcpServers":[]}`, 0))
	params := strings.Replace(prompt, "SID", sid, 1)
	pid := p.cmd.Process.Pid
	idle := memOf(pid)
	cpu0 := cpuTime(pid)
	peak := startSampler(pid)
	var busy time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		var pause time.Duration
		if paused {
			pause = 300 * time.Millisecond
		}
		if n := d.callPaused("session/prompt", params, pause); n != burst+2 {
			b.Fatalf("%d updates, want %d", n, burst+2)
		}
		busy += time.Since(t0) - pause
	}
	b.StopTimer()
	top := peak()
	cpu := cpuTime(pid) - cpu0
	updates := float64(b.N) * (burst + 2)
	if !paused {
		b.ReportMetric(updates/busy.Seconds(), "updates/s")
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/updates, "agent-cpu-ns/update")
	b.ReportMetric(float64(idle.rss)/(1<<20), "idle-RSS-MiB")
	b.ReportMetric(float64(top.rss)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(idle.anon)/(1<<20), "idle-anon-MiB")
	b.ReportMetric(float64(top.anon)/(1<<20), "peak-anon-MiB")
}

// BenchmarkSDKClient: acp-go-sdk's client receiving a 10,000-update turn
// from each agent, with an editor that takes 20 µs per update (drawing
// it): it reports how many updates arrived and whether the turn ended with
// the connection up (closed=1: acp-go-sdk closed it, its queue of 1,024
// notifications having overflowed).
func BenchmarkSDKClient(b *testing.B) {
	prompt := words(burst)
	for _, a := range agents {
		b.Run("agent="+a.name, func(b *testing.B) {
			var received, closed atomic.Int64
			for b.Loop() {
				p := startAgent(b, a.bin(), a.args...)
				ed := &countingEditor{sdkEditor: sdkEditor{answer: allow}, n: &received, delay: 20 * time.Microsecond}
				conn := acp.NewClientSideConnection(ed, p.stdin, p.stdout)
				conn.SetLogger(quietLogger)
				ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
				_, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: 1})
				if err != nil {
					b.Fatal(err)
				}
				s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(prompt)}}); err != nil {
					closed.Add(1)
				}
				cancel()
			}
			b.ReportMetric(float64(received.Load())/float64(b.N), "updates-received")
			b.ReportMetric(float64(closed.Load())/float64(b.N), "closed")
		})
	}
}

type countingEditor struct {
	sdkEditor
	n     *atomic.Int64
	delay time.Duration
}

func (e *countingEditor) SessionUpdate(context.Context, acp.SessionNotification) error {
	time.Sleep(e.delay)
	e.n.Add(1)
	return nil
}

// driver speaks raw NDJSON to an agent.
type driver struct {
	t  testing.TB
	w  io.Writer
	r  *bufio.Reader
	id int
}

// call sends a request and reads until its answer, which it returns; n
// counts the session/update lines before it.
func (d *driver) call(method, params string, _ int) []byte {
	d.t.Helper()
	ans, _ := d.request(method, params, 0)
	return ans
}

func (d *driver) callPaused(method, params string, pause time.Duration) int {
	d.t.Helper()
	_, n := d.request(method, params, pause)
	return n
}

func (d *driver) request(method, params string, pause time.Duration) ([]byte, int) {
	d.id++
	line := `{"jsonrpc":"2.0","id":` + strconv.Itoa(d.id) + `,"method":"` + method + `","params":` + params + "}\n"
	if _, err := io.WriteString(d.w, line); err != nil {
		d.t.Fatal(err)
	}
	if pause > 0 {
		time.Sleep(pause)
	}
	n := 0
	for {
		l, err := d.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			rest, err2 := d.r.ReadBytes('\n')
			l, err = append(append([]byte(nil), l...), rest...), err2
		}
		if err != nil {
			d.t.Fatalf("reading the agent: %v", err)
		}
		if bytes.Contains(l, []byte(`"method":"session/update"`)) {
			n++
			continue
		}
		var m struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(l, &m) == nil && m.ID != nil && *m.ID == d.id && m.Method == "" {
			return append([]byte(nil), l...), n
		}
	}
}

func (d *driver) sessionID(answer []byte) string {
	var r struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &r); err != nil || r.Result.SessionID == "" {
		d.t.Fatalf("session/new answered %s", answer)
	}
	return r.Result.SessionID
}

func promptParams(text string) string {
	b, _ := json.Marshal(text)
	return `{"sessionId":"SID","prompt":[{"type":"text","text":` + string(b) + `}]}`
}

func words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("w" + strconv.Itoa(i))
	}
	return b.String()
}

// mem is a process's resident memory in bytes: all of it (VmRSS) and its
// anonymous part (RssAnon: heap, stacks; not the pages of its binary).
type mem struct{ rss, anon int64 }

// memOf reads process pid's mem from /proc (zeros if unknown).
func memOf(pid int) mem {
	var m mem
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return m
	}
	for line := range strings.Lines(string(b)) {
		k, rest, _ := strings.Cut(line, ":")
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &m.rss
		case "RssAnon":
			dst = &m.anon
		default:
			continue
		}
		if f := strings.Fields(rest); len(f) > 0 {
			kb, _ := strconv.ParseInt(f[0], 10, 64)
			*dst = kb << 10
		}
	}
	return m
}

// startSampler samples memOf(pid) every millisecond until the returned
// function is called, which returns the largest values seen.
func startSampler(pid int) func() mem {
	var top mem
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			m := memOf(pid)
			top.rss, top.anon = max(top.rss, m.rss), max(top.anon, m.anon)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() mem {
		close(stop)
		wg.Wait()
		return top
	}
}

// cpuTime returns the user+system CPU time of process pid.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ is 100 on Linux
}
