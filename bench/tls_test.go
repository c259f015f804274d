package bench_test

import (
	"bufio"
	"crypto/tls"
	"log/slog"
	"net"
	"testing"

	"github.com/jetrpc/jetrpc/internal/testcert"
	"github.com/jetrpc/jetrpc/netserver"
)

var quiet = slog.New(slog.DiscardHandler)

// startTLS serves the demo methods with TLS (a test CA's ECDSA P-256
// certificate) as name in s and returns a client configuration that
// trusts it.
func startTLS(b *testing.B, s servers, name string) *tls.Config {
	certs := testcert.New(b, "bench CA")
	srv := netserver.New(newEngine(b), &netserver.Options{TLS: certs.ServerConfig(), Logger: quiet})
	s.start(b, name, srv.Serve, shutdown(srv.Shutdown))
	c := certs.ClientConfig()
	c.ServerName = "127.0.0.1" // for tls.Client; load's tls.Dialer sets it itself
	return c
}

// BenchmarkTCPHandshake measures what a new connection costs, one at a
// time: dial, the TLS handshake, one small call and its answer, close.
// tls=off is plain TCP; tls=full a full TLS 1.3 handshake with Go's
// default key exchange (X25519MLKEM768, post-quantum hybrid) and an ECDSA
// P-256 certificate; tls=full-x25519 the same with X25519 alone (what
// clients without ML-KEM negotiate); tls=resumed one resuming the session
// of an earlier connection from its ticket (still an X25519MLKEM768
// exchange, no certificate). Client and server share the process, so
// ns/op and cpu-ns/op (the process's CPU time, steadier than wall time on
// a loaded machine) are both sides' work.
func BenchmarkTCPHandshake(b *testing.B) {
	s := servers{}
	srv := netserver.New(newEngine(b), nil)
	s.start(b, "plain", srv.Serve, shutdown(srv.Shutdown))
	clientTLS := startTLS(b, s, "tls")
	x25519 := clientTLS.Clone()
	x25519.CurvePreferences = []tls.CurveID{tls.X25519}
	resumed := clientTLS.Clone()
	resumed.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	for _, c := range []struct {
		name string
		addr string
		cfg  *tls.Config
	}{{"off", s["plain"], nil}, {"full", s["tls"], clientTLS}, {"full-x25519", s["tls"], x25519}, {"resumed", s["tls"], resumed}} {
		b.Run("tls="+c.name, func(b *testing.B) {
			call := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}` + "\n")
			rd := bufio.NewReaderSize(nil, 512)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				connectAndCall(b, c.addr, c.cfg, call, rd)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// connectAndCall dials addr (over TLS with cfg), sends call, reads the
// answer and closes. SO_LINGER 0 closes with a reset, so that thousands of
// connections do not use up the loopback ports in TIME_WAIT.
func connectAndCall(b *testing.B, addr string, cfg *tls.Config, call []byte, rd *bufio.Reader) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	nc.(*net.TCPConn).SetLinger(0)
	defer nc.Close()
	conn := nc
	if cfg != nil {
		tc := tls.Client(nc, cfg)
		if err := tc.Handshake(); err != nil {
			b.Fatal(err)
		}
		conn = tc
	}
	if _, err := conn.Write(call); err != nil {
		b.Fatal(err)
	}
	rd.Reset(conn)
	if line, err := rd.ReadSlice('\n'); err != nil || len(line) < 30 {
		b.Fatalf("answer %q: %v", line, err)
	}
}
