package interop

// go-ethereum's WebSocket client with permessage-deflate against the
// jetrpc binary. rpc.DialWebsocket's own dialer leaves compression off;
// rpc.WithWebsocketDialer with gorilla/websocket's Dialer{EnableCompression:
// true} (the library geth dials with) turns it on: gorilla offers
// "permessage-deflate; server_no_context_takeover;
// client_no_context_takeover" and compresses every message it sends.

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"
)

// countConn counts the bytes read from the server.
type countConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// dialWSCounting connects geth's client to s, compressing or not, and
// returns it with the count of bytes it reads.
func dialWSCounting(t *testing.T, s *server, compress bool) (*rpc.Client, *atomic.Int64) {
	t.Helper()
	read := new(atomic.Int64)
	d := websocket.Dialer{
		EnableCompression: compress,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countConn{nc, read}, nil
		},
	}
	c, err := rpc.DialOptions(ctx(t), "ws://"+s.HTTP+"/ws", rpc.WithWebsocketDialer(d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, read
}

// logLike returns about n bytes of eth_getLogs-like objects: hex
// addresses, topics, block numbers.
func logLike(n int) []map[string]any {
	hex := func(digits int, seed uint32) string {
		b := make([]byte, 0, 2+digits)
		b = append(b, "0x"...)
		for range digits {
			seed = seed*1103515245 + 12345
			b = append(b, "0123456789abcdef"[seed>>16&15])
		}
		return string(b)
	}
	addrs := []string{hex(40, 1), hex(40, 2), hex(40, 3), hex(40, 4)}
	topic := hex(64, 99)
	var out []map[string]any
	for i, size := 0, 0; size < n; i++ {
		l := map[string]any{
			"address":         addrs[i%4],
			"topics":          []string{topic, "0x000000000000000000000000" + addrs[(i+1)%4][2:]},
			"data":            "0x" + strings.Repeat("0", 48) + hex(16, uint32(i))[2:],
			"blockNumber":     "0x" + strconv.FormatInt(int64(19000000+i/8), 16),
			"transactionHash": hex(64, uint32(1000+i/2)),
			"logIndex":        "0x" + strconv.FormatInt(int64(i), 16),
			"removed":         false,
		}
		out = append(out, l)
		size += 420
	}
	return out
}

// TestGethWebsocketCompressed: with compression the calls, a batch and
// go-ethereum's subscriptions work, and a 64 KiB log-like result takes at
// least 5 times fewer bytes than on a connection without it.
func TestGethWebsocketCompressed(t *testing.T) {
	s := startServer(t)
	c, zread := dialWSCounting(t, s, true)
	plain, read := dialWSCounting(t, s, false)
	t.Run("subtract", func(t *testing.T) { testWSSubtract(t, c) })
	t.Run("batch", func(t *testing.T) { testWSBatch(t, c) })
	t.Run("large", func(t *testing.T) { testWSLarge(t, c) })
	t.Run("subscribe", func(t *testing.T) { testWSSubscribe(t, c) })
	t.Run("calls", func(t *testing.T) { testCalls(t, c) })
	t.Run("log-like", func(t *testing.T) {
		logs := logLike(64 << 10)
		var sizes [2]int64
		for i, cl := range []*rpc.Client{c, plain} {
			n := []*atomic.Int64{zread, read}[i]
			before := n.Load()
			var got []any
			if err := cl.CallContext(ctx(t), &got, "echo", logs); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || len(got[0].([]any)) != len(logs) {
				t.Fatalf("echo: %d values", len(got))
			}
			sizes[i] = n.Load() - before
		}
		t.Logf("a 64 KiB log-like result: %d bytes compressed, %d plain (%.1fx)", sizes[0], sizes[1],
			float64(sizes[1])/float64(sizes[0]))
		if sizes[0]*5 > sizes[1] {
			t.Errorf("%d bytes compressed, %d plain: want at least 5x fewer", sizes[0], sizes[1])
		}
	})
}
