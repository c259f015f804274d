package interop

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// TestGethDevCachePolicy holds gateway/cache's ethereum policy to a real
// go-ethereum dev node's answers: what finalized is, which answers may be
// kept as the chain grows, and that a kept answer is what the node still
// answers afterwards.
func TestGethDevCachePolicy(t *testing.T) {
	g := startGethDev(t)
	fin := cache.NewFinality(g.call, &cache.FinalityOptions{Interval: 20 * time.Millisecond, Timeout: callTimeout})
	policy := cache.NewEthereum(fin, nil)
	store := cache.NewMemory(nil)
	ctx := context.Background()

	// decide asks the policy about a call, makes it, and keeps the answer
	// as a gateway would; it returns whether the answer was kept.
	decide := func(method, params string) (allowed, kept bool, result []byte) {
		t.Helper()
		ttl, ok := policy.TTL([]byte(method), []byte(params))
		result = g.must(t, method, params)
		if ok && policy.Keep([]byte(method), []byte(params), result) {
			store.Set(cache.Key(nil, []byte(method), []byte(params)), result, ttl)
			return true, true, result
		}
		return ok, false, result
	}
	want := func(method, params string, wantAllowed, wantKept bool) []byte {
		t.Helper()
		allowed, kept, res := decide(method, params)
		if allowed != wantAllowed || kept != wantKept {
			t.Fatalf("%s %s -> %.200s: allowed %v kept %v, want %v %v", method, params, res, allowed, kept, wantAllowed, wantKept)
		}
		return res
	}

	// Finalized at the start: what the node says (the genesis in dev mode).
	require := func(cond bool, format string, args ...any) {
		t.Helper()
		if !cond {
			t.Fatalf(format, args...)
		}
	}
	if err := fin.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	f0, ok := fin.Block()
	require(ok && f0 == finalizedOf(t, g), "finalized %d %v, the node says %d", f0, ok, finalizedOf(t, g))

	want("eth_chainId", `[]`, true, true)
	want("net_version", `[]`, true, true)

	// A transaction, sealed at once (dev.period 0) in block n > finalized.
	from := firstAccount(t, g)
	var tx string
	if err := json.Unmarshal(g.must(t, "eth_sendTransaction", `[{"from":"`+from+`","to":"0x00000000000000000000000000000000000000bb","value":"0x1"}]`), &tx); err != nil {
		t.Fatal(err)
	}
	var receipt []byte
	deadline := time.Now().Add(callTimeout)
	for {
		// Right after start geth may answer "transaction indexing is in
		// progress" for a while: wait for the receipt.
		var err error
		receipt, err = g.call(ctx, receipt[:0], "eth_getTransactionReceipt", []byte(`["`+tx+`"]`))
		if err == nil && string(receipt) != "null" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receipt for %s within %v: %s %v", tx, callTimeout, receipt, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var r struct{ BlockNumber, BlockHash string }
	if err := json.Unmarshal(receipt, &r); err != nil || r.BlockHash == "" {
		t.Fatalf("receipt %s: %v", receipt, err)
	}
	n, _ := strconv.ParseUint(r.BlockNumber[2:], 16, 64)
	require(n > f0, "block %d at or below finalized %d", n, f0)
	nHex := `"` + r.BlockNumber + `"`

	// Not final yet: by number not allowed; the transaction by hash allowed
	// but its answer not kept; by block hash kept.
	want("eth_getBlockByNumber", `[`+nHex+`,false]`, false, false)
	want("eth_getBalance", `["`+from+`",`+nHex+`]`, false, false)
	want("eth_getTransactionReceipt", `["`+tx+`"]`, true, false)
	want("eth_getTransactionByHash", `["`+tx+`"]`, true, false)
	want("eth_getLogs", `[{"fromBlock":"0x0","toBlock":`+nHex+`}]`, false, false)
	want("eth_getBlockByHash", `["`+r.BlockHash+`",false]`, true, true)
	want("eth_getBlockByNumber", `["latest",false]`, false, false)
	want("eth_getBlockByNumber", `["0x0",false]`, true, true) // genesis: final

	// Unknown hashes and future blocks: null, never kept.
	const unknown = `"0x1111111111111111111111111111111111111111111111111111111111111111"`
	want("eth_getTransactionByHash", `[`+unknown+`]`, true, false)
	want("eth_getTransactionReceipt", `[`+unknown+`]`, true, false)
	want("eth_getBlockByHash", `[`+unknown+`,false]`, true, false)

	// The follower follows finalized as blocks are sealed: past 32, block
	// 32 is final, and n with it.
	fin.Start(ctx)
	defer fin.Stop()
	g.mine(t, 33)
	deadline = time.Now().Add(callTimeout)
	for {
		if f, _ := fin.Block(); f >= 32 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	f1, _ := fin.Block()
	require(f1 == 32 && f1 == finalizedOf(t, g), "finalized %d, the node says %d, want 32", f1, finalizedOf(t, g))
	require(n <= f1, "block %d above finalized %d", n, f1)

	block := want("eth_getBlockByNumber", `[`+nHex+`,false]`, true, true)
	want("eth_getBlockByNumber", `["0x20",true]`, true, true)
	want("eth_getBlockByNumber", `["0x21",false]`, false, false) // above finalized
	want("eth_getBlockByNumber", `["0x1000",false]`, false, false)
	want("eth_getBlockByNumber", `["safe",false]`, false, false)
	want("eth_getBlockByNumber", `["finalized",false]`, false, false)
	want("eth_getTransactionReceipt", `["`+tx+`"]`, true, true)
	want("eth_getTransactionByHash", `["`+tx+`"]`, true, true)
	want("eth_getBalance", `["`+from+`",`+nHex+`]`, true, true)
	want("eth_getBalance", `["`+from+`",{"blockNumber":`+nHex+`}]`, true, true)
	want("eth_getBalance", `["`+from+`","latest"]`, false, false)
	want("eth_getTransactionCount", `["`+from+`","0x20"]`, true, true)
	want("eth_getCode", `["0x00000000000000000000000000000000000000bb","0x20"]`, true, true)
	want("eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x20"}]`, true, true)
	want("eth_getLogs", `[{"fromBlock":"0x0","toBlock":"0x21"}]`, false, false)
	want("eth_getBlockReceipts", `[`+nHex+`]`, true, true)
	want("eth_getBlockTransactionCountByNumber", `[`+nHex+`]`, true, true)
	want("eth_getTransactionByBlockNumberAndIndex", `[`+nHex+`,"0x0"]`, true, true)
	want("eth_getTransactionByBlockHashAndIndex", `["`+r.BlockHash+`","0x0"]`, true, true)
	want("eth_call", `[{"to":"0x00000000000000000000000000000000000000bb","data":"0x"},"0x20"]`, true, true)

	// What the cache holds is what the node still answers, after more blocks.
	g.mine(t, 40)
	for _, c := range []struct{ method, params string }{
		{"eth_getBlockByNumber", `[` + nHex + `,false]`},
		{"eth_getTransactionReceipt", `["` + tx + `"]`},
		{"eth_getBalance", `["` + from + `",` + nHex + `]`},
		{"eth_getBlockByHash", `["` + r.BlockHash + `",false]`},
		{"eth_chainId", `[]`},
	} {
		got, ok := store.Get(nil, cache.Key(nil, []byte(c.method), []byte(c.params)))
		require(ok, "%s %s: not cached", c.method, c.params)
		fresh := g.must(t, c.method, c.params)
		require(string(got) == string(fresh), "%s %s: cached %s, the node now says %s", c.method, c.params, got, fresh)
	}
	got, _ := store.Get(nil, cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`[`+nHex+`,false]`)))
	require(string(got) == string(block), "block changed")
	for _, miss := range []struct{ method, params string }{
		{"eth_getTransactionByHash", `[` + unknown + `]`},
		{"eth_getBlockByNumber", `["0x21",false]`},
		{"eth_getBlockByNumber", `["latest",false]`},
	} {
		_, ok := store.Get(nil, cache.Key(nil, []byte(miss.method), []byte(miss.params)))
		require(!ok, "%s %s: cached", miss.method, miss.params)
	}
}

// finalizedOf asks the node for its finalized block's number.
func finalizedOf(t testing.TB, g *gethDev) uint64 {
	t.Helper()
	var b struct{ Number string }
	if err := json.Unmarshal(g.must(t, "eth_getBlockByNumber", `["finalized",false]`), &b); err != nil || len(b.Number) < 3 {
		t.Fatalf("finalized: %v %q", err, b.Number)
	}
	n, err := strconv.ParseUint(b.Number[2:], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// firstAccount returns the dev node's funded, unlocked account.
func firstAccount(t testing.TB, g *gethDev) string {
	t.Helper()
	var accts []string
	if err := json.Unmarshal(g.must(t, "eth_accounts", `[]`), &accts); err != nil || len(accts) == 0 {
		t.Fatalf("eth_accounts: %v %v", accts, err)
	}
	return accts[0]
}
