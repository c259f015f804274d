package compare

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// showProgress prints "label: N calls, R req/s, Ts" on w four times a
// second until the returned stop is called, which clears the line. With a
// nil w it does nothing.
func showProgress(w io.Writer, label string, done *atomic.Int64) (stop func()) {
	if w == nil {
		return func() {}
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		last, lastT := int64(0), start
		for {
			select {
			case <-quit:
				fmt.Fprint(w, "\r\033[K")
				return
			case now := <-tick.C:
				n := done.Load()
				rate := float64(n-last) / now.Sub(lastT).Seconds()
				last, lastT = n, now
				fmt.Fprintf(w, "\r\033[K%s: %d calls, %.0f req/s, %.1fs", label, n, rate, now.Sub(start).Seconds())
			}
		}
	}()
	return func() { close(quit); <-finished }
}
