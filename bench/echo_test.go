package bench_test

import (
	"testing"

	"github.com/jetrpc/jetrpc/bench"
)

func TestAppendEcho(t *testing.T) {
	f := func(msg, want string) {
		t.Helper()
		if got := string(bench.AppendEcho(nil, []byte(msg), []byte("19"))); got != want {
			t.Errorf("AppendEcho(%s) = %s, want %s", msg, got, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1025}`, `{"jsonrpc":"2.0","id":1025,"result":19}`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id": "req-3" }`, `{"jsonrpc":"2.0","id":"req-3","result":19}`)
	f(`{"jsonrpc":"2.0","id":7,"method":"subtract","params":[42,23]}`, `{"jsonrpc":"2.0","id":7,"result":19}`)
	f(`{"jsonrpc":"2.0","method":"update"}`, `{"jsonrpc":"2.0","id":null,"result":19}`)
	f(`{"jsonrpc":"2.0","method":"update","id":}`, `{"jsonrpc":"2.0","id":null,"result":19}`)
}

func TestAppendEchoAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1025}`)
	dst := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { dst = bench.AppendEcho(dst[:0], msg, []byte("19")) }); n != 0 {
		t.Errorf("%v allocs per call", n)
	}
}
