// Package peerhttp is what the benchmark's peer servers share: the debug
// endpoint that reports the process's allocations and heap, and the
// listener that prints its address the way jetrpc serve does.
package peerhttp

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"time"
)

// MemPath is where Serve mounts MemHandler.
const MemPath = "/debug/mem"

// MemHandler answers with the process's runtime.MemStats counters as one
// JSON object: mallocs, totalAlloc, heapAlloc and heapInuse (bytes). With
// ?gc=1 it runs a garbage collection first, so heapAlloc is the live heap.
func MemHandler(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("gc") == "1" {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b := make([]byte, 0, 128)
	b = append(b, `{"mallocs":`...)
	b = strconv.AppendUint(b, m.Mallocs, 10)
	b = append(b, `,"totalAlloc":`...)
	b = strconv.AppendUint(b, m.TotalAlloc, 10)
	b = append(b, `,"heapAlloc":`...)
	b = strconv.AppendUint(b, m.HeapAlloc, 10)
	b = append(b, `,"heapInuse":`...)
	b = strconv.AppendUint(b, m.HeapInuse, 10)
	b = append(b, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// Serve listens on addr, mounts mcp at /mcp, MemHandler at MemPath and
// net/http/pprof at /debug/pprof/ (for a look at where the peer allocates),
// prints "listening http ADDR" on stderr (as jetrpc serve does) and serves
// until the listener fails.
func Serve(addr string, mcp http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	mux.HandleFunc(MemPath, MemHandler)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	fmt.Fprintln(os.Stderr, "listening http", ln.Addr().String())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	return srv.Serve(ln)
}
