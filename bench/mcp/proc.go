package mcpbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Kinds of server.
const (
	KindJetRPC = "jetrpc" // jetrpc serve --mcp; memory from its admin listener's /metrics
	KindGoSDK  = "gosdk"  // cmd/gosdkserver; memory from /debug/mem
	KindMCPGo  = "mcpgo"  // cmd/mcpgoserver; memory from /debug/mem
)

// Spec names one server of the benchmark: its label, kind and binary.
type Spec struct {
	Name, Kind, Bin string
}

// ParseSpec parses NAME=KIND:BINARY.
func ParseSpec(s string) (Spec, error) {
	name, rest, ok1 := strings.Cut(s, "=")
	kind, bin, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || name == "" || bin == "" {
		return Spec{}, errors.New("server " + s + ": want NAME=KIND:BINARY")
	}
	if kind != KindJetRPC && kind != KindGoSDK && kind != KindMCPGo {
		return Spec{}, errors.New("server " + s + ": kind is jetrpc, gosdk or mcpgo")
	}
	return Spec{name, kind, bin}, nil
}

// Proc is a running server process.
type Proc struct {
	Spec
	URL   string // the MCP endpoint
	admin string // jetrpc: the admin listener's base URL; peers: the HTTP listener's
	cmd   *exec.Cmd
	log   bytes.Buffer
	http  *http.Client
}

// Mem is what a server reports of its memory.
type Mem struct {
	Mallocs, TotalAlloc, HeapAlloc uint64 // runtime.MemStats
	RSS                            uint64 // VmRSS of /proc/PID/status, bytes
}

// Start runs s in a fresh process serving version (peers serve only that
// version; jetrpc serves them all, the client pins it) on loopback and
// waits until it listens.
func Start(s Spec, version string) (*Proc, error) {
	var args []string
	if s.Kind == KindJetRPC {
		args = []string{"serve", "--tcp", "", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--mcp"}
	} else {
		args = []string{"-http", "127.0.0.1:0", "-version", version}
	}
	p := &Proc{Spec: s, cmd: exec.Command(s.Bin, args...), http: &http.Client{Timeout: 30 * time.Second}}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	addrs := make(chan [2]string, 4)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "listening" {
				addrs <- [2]string{f[1], f[2]}
			} else if p.log.Len() < 1<<16 {
				p.log.WriteString(sc.Text() + "\n")
			}
		}
		close(addrs)
	}()
	timeout := time.After(30 * time.Second)
	for p.URL == "" || p.admin == "" {
		select {
		case a, ok := <-addrs:
			if !ok {
				p.Stop()
				return nil, errors.New(s.Name + " exited before listening")
			}
			switch {
			case a[0] == "http":
				p.URL = "http://" + a[1] + "/mcp"
				if s.Kind != KindJetRPC {
					p.admin = "http://" + a[1]
				}
			case a[0] == "admin":
				p.admin = "http://" + a[1]
			}
		case <-timeout:
			p.Stop()
			return nil, errors.New(s.Name + " did not listen within 30 s")
		}
	}
	return p, nil
}

// Stop kills the process and waits for it.
func (p *Proc) Stop() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// Mem reads the server's memory counters; with gc the server collects
// garbage first (jetrpc through /debug/pprof/heap?gc=1), so HeapAlloc is
// the live heap.
func (p *Proc) Mem(ctx context.Context, gc bool) (Mem, error) {
	var m Mem
	var err error
	if p.Kind == KindJetRPC {
		if gc {
			if _, err = p.get(ctx, "/debug/pprof/heap?gc=1"); err != nil {
				return m, err
			}
		}
		m, err = p.metricsMem(ctx)
	} else {
		m, err = p.debugMem(ctx, gc)
	}
	if err != nil {
		return m, err
	}
	m.RSS, err = rss(p.cmd.Process.Pid)
	return m, err
}

func (p *Proc) metricsMem(ctx context.Context) (Mem, error) {
	b, err := p.get(ctx, "/metrics")
	if err != nil {
		return Mem{}, err
	}
	var m Mem
	var found int
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, " ")
		var dst *uint64
		switch name {
		case "go_memstats_mallocs_total":
			dst = &m.Mallocs
		case "go_memstats_alloc_bytes_total":
			dst = &m.TotalAlloc
		case "go_memstats_heap_alloc_bytes":
			dst = &m.HeapAlloc
		}
		if !ok || dst == nil {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return m, errors.New("metrics: " + line)
		}
		*dst, found = uint64(f), found+1
	}
	if found != 3 {
		return m, errors.New("metrics: go_memstats_* missing (run jetrpc with --metrics)")
	}
	return m, nil
}

func (p *Proc) debugMem(ctx context.Context, gc bool) (Mem, error) {
	path := "/debug/mem"
	if gc {
		path += "?gc=1"
	}
	b, err := p.get(ctx, path)
	if err != nil {
		return Mem{}, err
	}
	var m Mem
	for _, f := range []struct {
		key string
		dst *uint64
	}{{`"mallocs":`, &m.Mallocs}, {`"totalAlloc":`, &m.TotalAlloc}, {`"heapAlloc":`, &m.HeapAlloc}} {
		_, rest, ok := strings.Cut(string(b), f.key)
		end := strings.IndexAny(rest, ",}")
		if !ok || end < 0 {
			return m, errors.New("debug/mem: " + string(b))
		}
		if *f.dst, err = strconv.ParseUint(rest[:end], 10, 64); err != nil {
			return m, err
		}
	}
	return m, nil
}

func (p *Proc) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.admin+path, nil)
	if err != nil {
		return nil, err
	}
	res, err := p.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode != http.StatusOK {
		err = errors.New(path + ": HTTP " + res.Status)
	}
	return b, err
}

// rss is the resident set of process pid, in bytes.
func rss(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	_, rest, ok := strings.Cut(string(b), "VmRSS:")
	if !ok {
		return 0, errors.New("no VmRSS")
	}
	f := strings.Fields(rest)
	kb, err := strconv.ParseUint(f[0], 10, 64)
	return kb * 1024, err
}
