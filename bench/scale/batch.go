package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// batchResult is one batch of one size on a fresh server process.
type batchResult struct {
	Server  string `json:"server"`
	Members int    `json:"members"`
	Method  string `json:"method"`
	Round   int    `json:"round"`
	Bytes   int64  `json:"message_bytes"`
	// The answer's time, and the bytes the server allocated for the batch
	// (all of it: frame buffer, task, engine, response, less a scrape).
	AnsweredMs float64 `json:"answered_ms"`
	FirstAlloc int64   `json:"first_batch_alloc_bytes"`
	// Before the batch, right after its answer, and 1 s after its answer.
	Goroutines [3]int64 `json:"goroutines"`
	StackBytes [3]int64 `json:"stack_bytes"`
	RSS        [3]int64 `json:"rss_bytes"`
	Err        string   `json:"error,omitempty"`
}

// measureBatches sends one batch of members calls of method to each server,
// a fresh process each time, rounds times, rotating their order.
func measureBatches(ctx context.Context, servers []server, members int, method string, rounds int) []batchResult {
	params := "[1]"
	if method == "subtract" {
		params = "[42,23]"
	}
	msg := batchOf(members, method, params)
	var out []batchResult
	for r := range rounds {
		order := append(slices.Clone(servers[r%len(servers):]), servers[:r%len(servers)]...)
		for _, s := range order {
			if ctx.Err() != nil {
				return out
			}
			res := batchOne(ctx, s, msg)
			res.Members, res.Method, res.Round, res.Bytes = members, method, r+1, int64(len(msg))
			fmt.Fprintf(os.Stderr, "batch %5d x %-8s round %d %-8s first batch %8d B, goroutines %v, answered in %.1f ms %s\n",
				members, method, r+1, s.name, res.FirstAlloc, res.Goroutines, res.AnsweredMs, res.Err)
			out = append(out, res)
		}
	}
	return out
}

func batchOf(n int, method, params string) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(i) + `}`)
	}
	b.WriteString("]\n")
	return b.Bytes()
}

func batchOne(ctx context.Context, s server, msg []byte) batchResult {
	res := batchResult{Server: s.name}
	p, err := start(ctx, s.bin, true, "serve", "--tcp", "127.0.0.1:0", "--http", "", "--admin", "127.0.0.1:0",
		"--max-batch", "10000")
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer p.stop()
	time.Sleep(300 * time.Millisecond)
	nc, err := net.Dial("tcp", p.addr)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer nc.Close()
	// A scrape allocates too: what one costs, once the first ones have
	// set up what they keep, is taken off the batch's figure.
	var ms [6]metricsSample
	for i := range ms {
		if ms[i], err = scrape(p.admin); err != nil {
			res.Err = err.Error()
			return res
		}
	}
	var deltas []float64
	for i := 2; i < len(ms); i++ {
		deltas = append(deltas, float64(ms[i].alloc-ms[i-1].alloc))
	}
	scrapeCost := int64(median(deltas)) // varies by about 100 KB: read the big batches
	m1 := ms[len(ms)-1]
	t0 := time.Now()
	nc.SetDeadline(time.Now().Add(time.Minute))
	if _, err := nc.Write(msg); err != nil {
		res.Err = err.Error()
		return res
	}
	answer, err := bufio.NewReaderSize(nc, 1<<20).ReadBytes('\n')
	answered := time.Now()
	res.AnsweredMs = float64(answered.Sub(t0).Microseconds()) / 1000
	if err != nil {
		res.Err = err.Error()
		return res
	}
	if got, want := bytes.Count(answer, []byte(`"result"`)), bytes.Count(msg, []byte(`"id"`)); got != want {
		res.Err = fmt.Sprintf("%d results for %d calls", got, want)
	}
	m2, err := scrape(p.admin)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	time.Sleep(time.Until(answered.Add(time.Second)))
	m3, err := scrape(p.admin)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	res.FirstAlloc = m2.alloc - m1.alloc - scrapeCost
	for i, m := range []metricsSample{m1, m2, m3} {
		res.Goroutines[i], res.StackBytes[i], res.RSS[i] = m.goroutines, m.stack, m.rss
	}
	return res
}

// metricsSample is what a scrape of /metrics told.
type metricsSample struct {
	goroutines, stack, rss, alloc int64
}

func scrape(admin string) (metricsSample, error) {
	var m metricsSample
	r, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		return m, err
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return m, err
	}
	for line := range strings.SplitSeq(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			m.goroutines = int64(v)
		case "go_memstats_stack_inuse_bytes":
			m.stack = int64(v)
		case "process_resident_memory_bytes":
			m.rss = int64(v)
		case "go_memstats_alloc_bytes_total":
			m.alloc = int64(v)
		}
	}
	if m.goroutines == 0 {
		return m, errors.New("no go_goroutines in /metrics")
	}
	return m, nil
}
