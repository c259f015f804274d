package cache_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
	"github.com/stretchr/testify/require"
)

func TestParseRules(t *testing.T) {
	r, err := cache.ParseRules([]string{"eth_chainId=1h", "eth_get*=5s", "eth_getLogs*=2s", "eth_getBlockByNumber=30s", " web3_clientVersion = 1m "})
	require.NoError(t, err)
	f := func(method string, want time.Duration) {
		t.Helper()
		ttl, ok := r.TTL([]byte(method), []byte(`["0x1"]`))
		require.Equal(t, want != 0, ok, method)
		require.Equal(t, want, ttl, method)
		if ok {
			require.True(t, r.Keep([]byte(method), nil, []byte("null")))
		}
	}
	f("eth_chainId", time.Hour)
	f("eth_getBalance", 5*time.Second)
	f("eth_getLogs", 2*time.Second) // the longer prefix wins
	f("eth_getLogsX", 2*time.Second)
	f("eth_getBlockByNumber", 30*time.Second) // an exact name wins
	f("web3_clientVersion", time.Minute)
	f("eth_ge", 0)
	f("eth_chainIdX", 0)
	f("eth_sendRawTransaction", 0)
	f("", 0)

	bad := func(spec, wantErr string) {
		t.Helper()
		_, err := cache.ParseRules([]string{"ok=1s", spec})
		require.EqualError(t, err, wantErr)
	}
	bad("eth_chainId", `cache rule "eth_chainId": want NAME=TTL`)
	bad("eth_chainId=", `cache rule "eth_chainId=": bad TTL "" (want a duration such as 30s or 5m)`)
	bad("eth_chainId=10", `cache rule "eth_chainId=10": bad TTL "10" (want a duration such as 30s or 5m)`)
	bad("eth_chainId=-1s", `cache rule "eth_chainId=-1s": the TTL must be positive`)
	bad("eth_chainId=0s", `cache rule "eth_chainId=0s": the TTL must be positive`)
	bad("=1s", `cache rule "=1s": want a method name or a prefix such as eth_get*`)
	bad("*=1s", `cache rule "*=1s": want a method name or a prefix such as eth_get*`)
	bad("eth*get*=1s", `cache rule "eth*get*=1s": a name holds no spaces, and '*' only at its end`)
	bad("eth get=1s", `cache rule "eth get=1s": a name holds no spaces, and '*' only at its end`)
	bad("ok=2s", `cache rule "ok=2s": a second rule for ok`)

	var zero cache.Rules
	_, ok := zero.TTL([]byte("eth_chainId"), nil)
	require.False(t, ok)
}

const (
	hashA = `"0x88e96d4537bea4d9c05d12549907b32561d3bf31f45aae734cdc119f13406cb6"`
	txA   = `"0xb903239f8543d04b5dc1ba6579132b143087c68db1b2168786408fcbce568238"`
)

func TestEthereumPolicy(t *testing.T) {
	fin := cache.NewFinality(nil, nil)
	e := cache.NewEthereum(fin, nil)
	f := func(method, params string, want bool) {
		t.Helper()
		ttl, ok := e.TTL([]byte(method), []byte(params))
		require.Equal(t, want, ok, "%s %s", method, params)
		if ok {
			require.Equal(t, cache.DefaultEthereumTTL, ttl)
		}
	}
	// Before the finalized block is known: constants and hashes only.
	f("eth_chainId", ``, true)
	f("net_version", `[]`, true)
	f("eth_getBlockByHash", `[`+hashA+`,false]`, true)
	f("eth_getBlockByNumber", `["0x1",false]`, false)
	f("eth_getBlockByNumber", `["earliest",false]`, true)

	fin.Set(100) // 0x64
	f("eth_getBlockByNumber", `["0x64",false]`, true)
	f("eth_getBlockByNumber", `["0x63", true]`, true)
	f("eth_getBlockByNumber", ` [ "0x0" , false ] `, true)
	f("eth_getBlockByNumber", `["0x65",false]`, false)
	f("eth_getBlockByNumber", `["0xffffffffffffffff",false]`, false)
	f("eth_getBlockByNumber", `["0x10000000000000000",false]`, false) // beyond uint64
	f("eth_getBlockByNumber", `["latest",false]`, false)
	f("eth_getBlockByNumber", `["pending",false]`, false)
	f("eth_getBlockByNumber", `["safe",false]`, false)
	f("eth_getBlockByNumber", `["finalized",false]`, false)
	f("eth_getBlockByNumber", `["0x",false]`, false)
	f("eth_getBlockByNumber", `["0xg",false]`, false)
	f("eth_getBlockByNumber", `["\u0030x1",false]`, false) // escaped: not understood, not cached
	f("eth_getBlockByNumber", `[1,false]`, false)
	f("eth_getBlockByNumber", `[]`, false)
	f("eth_getBlockByNumber", ``, false)
	f("eth_getBlockByNumber", `{"block":"0x1"}`, false)
	f("eth_getBlockReceipts", `["0x10"]`, true)
	f("eth_getBlockReceipts", `[`+hashA+`]`, true)
	f("eth_getBlockReceipts", `[{"blockHash":`+hashA+`}]`, true)
	f("eth_getBlockReceipts", `["latest"]`, false)
	f("eth_getBlockTransactionCountByHash", `[`+hashA+`]`, true)
	f("eth_getTransactionByBlockHashAndIndex", `[`+hashA+`,"0x0"]`, true)
	f("eth_getUncleByBlockHashAndIndex", `[`+hashA+`,"0x0"]`, true)
	f("eth_getTransactionByBlockNumberAndIndex", `["0x5","0x0"]`, true)
	f("eth_getTransactionByBlockNumberAndIndex", `["0x500","0x0"]`, false)

	const addr = `"0x407d73d8a49eeb85d32cf465507dd71d507100c1"`
	f("eth_getBalance", `[`+addr+`,"0x64"]`, true)
	f("eth_getBalance", `[`+addr+`,"0x65"]`, false)
	f("eth_getBalance", `[`+addr+`,"latest"]`, false)
	f("eth_getBalance", `[`+addr+`]`, false) // absent: latest
	f("eth_getBalance", `[`+addr+`,{"blockNumber":"0x1"}]`, true)
	f("eth_getBalance", `[`+addr+`,{"blockNumber":"0x101"}]`, false)
	f("eth_getBalance", `[`+addr+`,{"blockHash":`+hashA+`,"requireCanonical":true}]`, true)
	f("eth_getBalance", `[`+addr+`,{"blockHash":"0x12"}]`, false)
	f("eth_getCode", `[`+addr+`,"0x2"]`, true)
	f("eth_getTransactionCount", `[`+addr+`,"pending"]`, false)
	f("eth_getStorageAt", `[`+addr+`,"0x0","0x2"]`, true)
	f("eth_getStorageAt", `[`+addr+`,"0x0"]`, false)
	f("eth_call", `[{"to":`+addr+`,"data":"0x"},"0x64"]`, true)
	f("eth_call", `[{"to":`+addr+`,"data":"0x"},"0x64",{}]`, true)
	f("eth_call", `[{"to":`+addr+`,"data":"0x"}]`, false)
	f("eth_call", `[{"to":`+addr+`,"data":"0x"},"latest"]`, false)

	f("eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64"}]`, true)
	f("eth_getLogs", `[{"fromBlock":"earliest","toBlock":"0x2","address":`+addr+`}]`, true)
	f("eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x65"}]`, false)
	f("eth_getLogs", `[{"fromBlock":"0x1"}]`, false) // toBlock: latest
	f("eth_getLogs", `[{"toBlock":"0x2"}]`, false)
	f("eth_getLogs", `[{"fromBlock":"0x1","toBlock":"latest"}]`, false)
	f("eth_getLogs", `[{"blockHash":`+hashA+`}]`, true)
	f("eth_getLogs", `[{}]`, false)
	f("eth_getLogs", `[]`, false)

	f("eth_getTransactionByHash", `[`+txA+`]`, true) // decided by Keep
	f("eth_getTransactionReceipt", `[`+txA+`]`, true)
	f("eth_blockNumber", `[]`, false)
	f("eth_gasPrice", `[]`, false)
	f("eth_sendRawTransaction", `["0x00"]`, false)
	f("eth_subscribe", `["newHeads"]`, false)

	keep := func(method, result string, want bool) {
		t.Helper()
		require.Equal(t, want, e.Keep([]byte(method), nil, []byte(result)), "%s %s", method, result)
	}
	keep("eth_getBlockByNumber", `{"number":"0x1"}`, true)
	keep("eth_getBlockByNumber", `null`, false)
	keep("eth_getBlockByNumber", ` null `, false)
	keep("eth_getBlockByHash", `null`, false)
	keep("eth_getLogs", `[]`, true)
	keep("eth_chainId", `"0x539"`, true)
	keep("eth_getTransactionByHash", `null`, false)
	keep("eth_getTransactionByHash", `{"hash":`+txA+`,"blockNumber":"0x64","blockHash":`+hashA+`}`, true)
	keep("eth_getTransactionByHash", `{"hash":`+txA+`,"blockNumber":"0x65"}`, false) // not final yet
	keep("eth_getTransactionByHash", `{"hash":`+txA+`,"blockNumber":null}`, false)   // pending
	keep("eth_getTransactionByHash", `{"hash":`+txA+`}`, false)
	keep("eth_getTransactionReceipt", `{"logs":[{"blockNumber":"0x999"}],"blockNumber":"0x3","status":"0x1"}`, true)
	keep("eth_getTransactionReceipt", `{"blockNumber":"0x99","status":"0x1"}`, false)

	// A nil Finality: numbers are never final.
	nf := cache.NewEthereum(nil, &cache.EthereumOptions{TTL: time.Minute})
	ttl, ok := nf.TTL([]byte("eth_getBlockByNumber"), []byte(`["0x0",false]`))
	require.False(t, ok)
	ttl, ok = nf.TTL([]byte("eth_chainId"), nil)
	require.True(t, ok)
	require.Equal(t, time.Minute, ttl)
}

func TestChain(t *testing.T) {
	rules, err := cache.ParseRules([]string{"eth_blockNumber=1s", "eth_getBlockByNumber=2s"})
	require.NoError(t, err)
	fin := cache.NewFinality(nil, nil)
	fin.Set(10)
	c := cache.Chain{rules, cache.NewEthereum(fin, nil)}
	f := func(method, params, result string, want time.Duration, wantKeep bool) {
		t.Helper()
		ttl, ok := c.TTL([]byte(method), []byte(params))
		require.Equal(t, want, ttl, method)
		require.Equal(t, want != 0, ok, method)
		require.Equal(t, wantKeep, c.Keep([]byte(method), []byte(params), []byte(result)), method)
	}
	f("eth_blockNumber", `[]`, `"0x5"`, time.Second, true)                     // the rule
	f("eth_getBlockByNumber", `["latest",false]`, `null`, 2*time.Second, true) // the rule overrides
	f("eth_chainId", `[]`, `"0x1"`, cache.DefaultEthereumTTL, true)            // the policy
	f("eth_getBlockByHash", `[`+hashA+`,false]`, `null`, cache.DefaultEthereumTTL, false)
	f("eth_gasPrice", `[]`, `"0x1"`, 0, false)
}

// fakeNode answers the finality follower's two calls.
type fakeNode struct {
	finalized atomic.Value // string: a result, or "" for an error
	head      atomic.Value
	calls     atomic.Int64
}

func (n *fakeNode) call(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	n.calls.Add(1)
	var v string
	switch method {
	case "eth_getBlockByNumber":
		if string(params) != `["finalized",false]` {
			return dst, errors.New("unexpected params " + string(params))
		}
		v = n.finalized.Load().(string)
	case "eth_blockNumber":
		v = n.head.Load().(string)
	default:
		return dst, errors.New("unexpected method " + method)
	}
	if v == "" {
		return dst, errors.New("the method failed")
	}
	return append(dst, v...), nil
}

func TestFinality(t *testing.T) {
	node := &fakeNode{}
	node.finalized.Store(`{"number":"0x20","hash":` + hashA + `}`)
	node.head.Store(`"0x100"`)
	fin := cache.NewFinality(node.call, &cache.FinalityOptions{Depth: 10})
	ctx := context.Background()
	f := func(want uint64, wantOK bool) {
		t.Helper()
		n, ok := fin.Block()
		require.Equal(t, wantOK, ok)
		require.Equal(t, want, n)
	}
	f(0, false)
	require.NoError(t, fin.Poll(ctx))
	f(0x20, true)

	// No finalized block (null, or an error): the head minus Depth.
	node.finalized.Store(`null`)
	require.NoError(t, fin.Poll(ctx))
	f(0x100-10, true)
	node.finalized.Store(``)
	node.head.Store(`"0x200"`)
	require.NoError(t, fin.Poll(ctx))
	f(0x200-10, true)

	// Both fail, or a head below Depth: the last known block stays.
	node.head.Store(``)
	require.Error(t, fin.Poll(ctx))
	f(0x200-10, true)
	node.head.Store(`"0x5"`)
	require.Error(t, fin.Poll(ctx))
	node.head.Store(`"latest"`)
	require.Error(t, fin.Poll(ctx))
	f(0x200-10, true)

	// Start polls at once and then every Interval, until Stop.
	node.finalized.Store(`{"number":"0x300"}`)
	fin2 := cache.NewFinality(node.call, &cache.FinalityOptions{Interval: 5 * time.Millisecond})
	fin2.Start(ctx)
	fin2.Start(ctx) // a second Start does nothing
	require.Eventually(t, func() bool { n, ok := fin2.Block(); return ok && n == 0x300 }, 5*time.Second, time.Millisecond)
	node.finalized.Store(`{"number":"0x301"}`)
	require.Eventually(t, func() bool { n, _ := fin2.Block(); return n == 0x301 }, 5*time.Second, time.Millisecond)
	fin2.Stop()
	fin2.Stop()
	calls := node.calls.Load()
	time.Sleep(30 * time.Millisecond)
	require.Equal(t, calls, node.calls.Load(), "polls after Stop")
}
