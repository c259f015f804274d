//go:build linux

package netserver

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// BenchmarkWake measures the first call after an idle spell, one call at a
// time: on a connection that gave its buffers back and waits parked
// (wait=parked) or on a goroutine of its own (wait=goroutine, parking off:
// the way every idle connection waited before parking), and, for
// reference, on one that never goes idle (wait=busy). ns/op is the call's
// round trip; the wait before each call is not timed. Run it with a fixed
// count (-benchtime=200x): each call waits for an idle spell first.
func BenchmarkWake(b *testing.B) {
	for _, wait := range []string{"busy", "parked", "goroutine"} {
		b.Run("wait="+wait, func(b *testing.B) {
			s := newServer(b, nil)
			s.idleRelease = time.Millisecond
			if wait == "busy" {
				s.idleRelease = time.Hour
			}
			s.parker.off = wait == "goroutine"
			released := make(chan struct{}, 1)
			s.testHookRelease = func(c *conn) {
				c.rd.relShift = 0 // no back-off: every call comes after a release
				select {
				case released <- struct{}{}:
				default:
				}
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go s.Serve(ln)
			b.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				s.Shutdown(ctx)
			})
			nc, err := net.DialTimeout("tcp", ln.Addr().String(), testTimeout)
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			fr := frame.NewReader(nc, frame.NDJSON, 0)
			call := frame.AppendFrame(nil, frame.NDJSON, []byte(subtractCall))
			roundTrip := func() {
				if _, err := nc.Write(call); err != nil {
					b.Fatal(err)
				}
				if _, err := fr.Next(); err != nil {
					b.Fatal(err)
				}
			}
			nc.SetDeadline(time.Now().Add(time.Hour))
			roundTrip()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if wait != "busy" {
					b.StopTimer()
					select {
					case <-released:
					case <-time.After(testTimeout):
						b.Fatal("the connection did not give its buffers back")
					}
					// The connection parks, or its new goroutine blocks in a
					// read, right after the release.
					time.Sleep(2 * time.Millisecond)
					if p, _ := s.parked(); wait == "parked" && p != 1 {
						b.Fatal("the connection did not park")
					}
					b.StartTimer()
				}
				roundTrip()
			}
		})
	}
}
