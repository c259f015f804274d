// Command scale measures how jetrpc's cost grows with the connections and
// the batches it serves, each beside a limit, in interleaved passes
// (bench/scale.sh builds the binaries and runs it):
//
//   - connections: req/s, server CPU per call and RSS per connection of each
//     jetrpc binary given and of a line server that does no JSON work
//     (bench.LineServer answering with bench.EchoLine, the transport's
//     limit: "lines" through net.Conn, "lines-raw" with the raw system calls
//     jetrpc's netserver makes), at each connection count, every server in a fresh process of
//     its own, the order rotating from round to round; the load generator
//     (bench/load, TCP NDJSON, small calls) runs in this process;
//   - batches: the goroutines, stacks and RSS of each jetrpc binary before
//     a batch of blocking calls (the demo's sleep, 1 ms: never learned
//     quick), right after its answer and 1 s after, and the bytes the first
//     batch allocated (go_memstats_alloc_bytes_total, less what a scrape
//     allocates), from its /metrics.
//
// Usage:
//
//	scale [flags] NAME=JETRPC_BINARY...
//
// A BINARY of :inline, :default or :typed is this program serving the
// demo methods registered that way (bench/demo.RegisterAs) with netserver's
// defaults, built from this tree: the registrations `jetrpc serve` does not
// offer (it registers them Inline), each in a process of its own.
//
// Every figure is of the machine it runs on, loaded or not: run it in a
// quiet moment, and read the ratios.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "serve-"+lines || os.Args[1] == "serve-"+linesRaw) {
		serveLines(os.Args[1] == "serve-"+linesRaw)
		return
	}
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], serveMode) {
		serveJetrpc(strings.TrimPrefix(os.Args[1], serveMode))
		return
	}
	var (
		conns    = flag.String("conns", "16,256,2048,10000", "connection counts")
		pipeline = flag.Int("pipeline", 1, "calls in flight per connection")
		duration = flag.Duration("duration", 5*time.Second, "load per server and connection count, each round")
		rounds   = flag.Int("rounds", 3, "rounds; the servers' order rotates from one to the next")
		batches  = flag.String("batches", "1000,10000", "batch sizes (empty: no batch measurement)")
		methods  = flag.String("batch-methods", "sleep,subtract", "batch methods: sleep ([1], blocking) and/or subtract ([42,23], inline)")
		only     = flag.String("only", "", "conns or batches: run only that part")
		out      = flag.String("json", "", "also write the results as JSON to `FILE`")
	)
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: scale [flags] NAME=JETRPC_BINARY... (BINARY :inline, :default or :typed: this program, demo methods registered that way)")
		flag.PrintDefaults()
	}
	flag.Parse()
	var servers []server
	for _, a := range flag.Args() {
		name, bin, ok := strings.Cut(a, "=")
		if !ok || name == "" || bin == "" {
			flag.Usage()
			os.Exit(2)
		}
		if mode, self := strings.CutPrefix(bin, ":"); self {
			if _, err := demo.ParseMode(mode); err != nil {
				fmt.Fprintf(os.Stderr, "scale: %s: %v\n", a, err)
				os.Exit(2)
			}
		}
		servers = append(servers, server{name: name, bin: bin})
	}
	if len(servers) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var res results
	if *only != "batches" {
		for _, n := range ints(*conns) {
			res.Conns = append(res.Conns, measureConns(ctx, servers, n, *pipeline, *duration, *rounds)...)
		}
		printConns(os.Stdout, res.Conns)
	}
	if *only != "conns" && *batches != "" {
		for _, n := range ints(*batches) {
			for _, m := range strings.Split(*methods, ",") {
				res.Batches = append(res.Batches, measureBatches(ctx, servers, n, m, *rounds)...)
			}
		}
		printBatches(os.Stdout, res.Batches)
	}
	if *out != "" {
		b, _ := json.MarshalIndent(&res, "", "  ")
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
	}
}

// server is a jetrpc binary under test.
type server struct{ name, bin string }

type results struct {
	Conns   []connResult  `json:"conns"`
	Batches []batchResult `json:"batches"`
}

func ints(s string) []int {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "scale: %q is not a positive count\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}
