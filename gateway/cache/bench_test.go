package cache_test

// Benchmarks of the Memory store beside a sync.Map baseline (string keys,
// an expiry and a copied result per entry, no budget), and of the policy
// decisions beside an encoding/json reading of the same params:
//
//	go test -run '^$' -bench 'Store|Policy' -count 10 ./gateway/cache/ | tee /tmp/cache.txt
//	benchstat -col /impl /tmp/cache.txt

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/gateway/cache"
)

// syncMapStore is the baseline: what a Go programmer writes first.
type syncMapStore struct{ m sync.Map }

type syncMapEntry struct {
	exp int64
	val []byte
}

func (s *syncMapStore) Get(dst, key []byte) ([]byte, bool) {
	v, ok := s.m.Load(string(key))
	if !ok {
		return dst, false
	}
	e := v.(*syncMapEntry)
	if e.exp <= time.Now().UnixNano() {
		return dst, false
	}
	return append(dst, e.val...), true
}

func (s *syncMapStore) Set(key, result []byte, ttl time.Duration) {
	s.m.Store(string(key), &syncMapEntry{exp: time.Now().Add(ttl).UnixNano(), val: append([]byte(nil), result...)})
}

const benchKeys = 10000

func benchKeyset() ([][]byte, []byte) {
	keys := make([][]byte, benchKeys)
	for i := range keys {
		keys[i] = cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`["0x`+strconv.FormatInt(int64(1e7+i), 16)+`",false]`))
	}
	return keys, []byte(`{"number":"0x1","hash":"0x` + strings.Repeat("ab", 32) + `","transactions":[` + strings.Repeat(`"0x`+strings.Repeat("cd", 32)+`",`, 3) + `"0x00"]}`)
}

func BenchmarkStore(b *testing.B) {
	impls := []struct {
		name string
		new  func() cache.Store
	}{
		// A budget of 8 MiB (the 10,000 entries take 3.5 MB): filled three
		// times over, the ring has wrapped, so Set measures a warm cache.
		{"impl=memory", func() cache.Store { return cache.NewMemory(&cache.MemoryOptions{MaxBytes: 8 << 20}) }},
		{"impl=syncmap", func() cache.Store { return &syncMapStore{} }},
	}
	keys, val := benchKeyset()
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			s := impl.new()
			for range 3 {
				for _, k := range keys {
					s.Set(k, val, time.Hour)
				}
			}
			b.Run("op=hit", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(val)))
				dst := make([]byte, 0, 1024)
				for i := 0; b.Loop(); i++ {
					if _, ok := s.Get(dst[:0], keys[i%benchKeys]); !ok {
						b.Fatal("miss")
					}
				}
			})
			b.Run("op=hit-parallel", func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					dst := make([]byte, 0, 1024)
					for i := 0; pb.Next(); i++ {
						s.Get(dst[:0], keys[(i*7919)%benchKeys])
					}
				})
			})
			b.Run("op=miss", func(b *testing.B) {
				b.ReportAllocs()
				absent := cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`["0xffffff",false]`))
				for b.Loop() {
					s.Get(nil, absent)
				}
			})
			b.Run("op=set", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(val)))
				for i := 0; b.Loop(); i++ {
					s.Set(keys[i%benchKeys], val, time.Hour)
				}
			})
		})
	}
}

// BenchmarkStoreFootprint reports the heap bytes per entry of 100,000
// entries of a 200-byte result (run it with -benchtime 2x).
func BenchmarkStoreFootprint(b *testing.B) {
	const n = 100000
	val := make([]byte, 200)
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = cache.Key(nil, []byte("eth_getBlockByNumber"), []byte(`["0x`+strconv.FormatInt(int64(i), 16)+`",false]`))
	}
	for _, impl := range []struct {
		name string
		new  func() cache.Store
	}{
		{"impl=memory", func() cache.Store { return cache.NewMemory(&cache.MemoryOptions{MaxBytes: 64 << 20}) }},
		{"impl=syncmap", func() cache.Store { return &syncMapStore{} }},
	} {
		b.Run(impl.name, func(b *testing.B) {
			var per float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s := impl.new()
				for _, k := range keys {
					s.Set(k, val, time.Hour)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				if _, ok := s.Get(nil, keys[n-1]); !ok {
					b.Fatal("miss")
				}
				per = float64(after.HeapAlloc-before.HeapAlloc) / n
			}
			b.ReportMetric(per, "heapB/entry")
		})
	}
}

func BenchmarkPolicy(b *testing.B) {
	fin := cache.NewFinality(nil, nil)
	fin.Set(20_000_000)
	p := cache.NewEthereum(fin, nil)
	cases := []struct{ name, method, params, result string }{
		{"getBlockByNumber", "eth_getBlockByNumber", `["0x10d4f1b",false]`, `{"number":"0x10d4f1b"}`},
		{"getBalance", "eth_getBalance", `["0x407d73d8a49eeb85d32cf465507dd71d507100c1","0x10d4f1b"]`, `"0x0"`},
		{"getLogs", "eth_getLogs", `[{"address":"0x407d73d8a49eeb85d32cf465507dd71d507100c1","fromBlock":"0x10d4f00","toBlock":"0x10d4f1b","topics":["0x` + strings.Repeat("e", 64) + `"]}]`, `[]`},
		{"latest", "eth_getBlockByNumber", `["latest",false]`, ``},
		{"uncacheable", "eth_sendRawTransaction", `["0x00"]`, ``},
	}
	for _, c := range cases {
		m, params, result := []byte(c.method), []byte(c.params), []byte(c.result)
		b.Run("impl=jetrpc/call="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := p.TTL(m, params); ok {
					p.Keep(m, params, result)
				}
			}
		})
		b.Run("impl=stdlib/call="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				stdlibDecision(c.method, params, 20_000_000)
			}
		})
	}
}

var stdlibPos = map[string]int{"eth_getBlockByNumber": 0, "eth_getBalance": 1}

// stdlibDecision is the baseline: the same decision for the block-number
// methods above, with encoding/json reading the params.
func stdlibDecision(method string, params []byte, finalized uint64) bool {
	pos := stdlibPos
	var args []json.RawMessage
	if err := json.Unmarshal(params, &args); err != nil {
		return false
	}
	blockOK := func(raw json.RawMessage) bool {
		var s string
		if json.Unmarshal(raw, &s) != nil || !strings.HasPrefix(s, "0x") {
			return false
		}
		n, err := strconv.ParseUint(s[2:], 16, 64)
		return err == nil && n <= finalized
	}
	if method == "eth_getLogs" {
		if len(args) == 0 {
			return false
		}
		var f struct {
			FromBlock json.RawMessage `json:"fromBlock"`
			ToBlock   json.RawMessage `json:"toBlock"`
		}
		return json.Unmarshal(args[0], &f) == nil && blockOK(f.FromBlock) && blockOK(f.ToBlock)
	}
	i, ok := pos[method]
	return ok && i < len(args) && blockOK(args[i])
}
