package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Pipelined sends total copies of req (one NDJSON line, a call) over conns
// connections to addr, keeping up to depth calls in flight on each, and waits
// for every answer. It returns the elapsed time and an error when a
// connection fails or an answer does not look like a success response.
// (A fuller load generator, with id matching and latency histograms, is
// bench/load's job; this one only measures throughput.)
func Pipelined(ctx context.Context, addr string, conns, depth, total int, req []byte) (time.Duration, error) {
	if conns < 1 || depth < 1 {
		return 0, errors.New("bench: conns and depth must be at least 1")
	}
	line := append(bytes.TrimRight(req, "\n"), '\n')
	var next atomic.Int64
	next.Store(int64(total))
	errs := make(chan error, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < conns; i++ {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if deadline, ok := ctx.Deadline(); ok {
				c.SetDeadline(deadline)
			}
			errs <- pipeline(c, depth, &next, line)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return elapsed, err
		}
	}
	return elapsed, nil
}

// pipeline claims calls from next and keeps up to depth of them in flight.
func pipeline(c net.Conn, depth int, next *atomic.Int64, line []byte) error {
	r := bufio.NewReaderSize(c, 64<<10)
	out := make([]byte, 0, depth*len(line))
	inflight := 0
	for {
		for inflight < depth && next.Add(-1) >= 0 {
			out = append(out, line...)
			inflight++
		}
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return err
			}
			out = out[:0]
		}
		if inflight == 0 {
			return nil
		}
		// Read what has arrived (at least one answer), then top up again.
		for {
			resp, err := r.ReadSlice('\n')
			if err != nil {
				return err
			}
			if !bytes.Contains(resp, []byte(`"result"`)) {
				return errors.New("bench: unexpected answer: " + string(resp))
			}
			inflight--
			if r.Buffered() == 0 || inflight == 0 {
				break
			}
		}
	}
}
