package ws

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"
)

// logLike is about n bytes of an eth_getLogs result: a few contract
// addresses and event signatures (as in a filtered query), indexed topics
// that pad an address with zeros, data words that are uint256 amounts,
// random transaction hashes (two logs each) and block hashes (eight logs
// each), block numbers and indexes.
func logLike(n int) []byte {
	x := uint32(1)
	hex := func(dst []byte, digits int) []byte {
		dst = append(dst, "0x"...)
		for range digits {
			x = x*1103515245 + 12345
			dst = append(dst, "0123456789abcdef"[x>>16&15])
		}
		return dst
	}
	var addrs [][]byte
	for range 8 {
		addrs = append(addrs, hex(nil, 40))
	}
	var topics [][]byte // event signatures
	for range 4 {
		topics = append(topics, hex(nil, 64))
	}
	var block, tx []byte
	b := []byte(`[`)
	for i := 0; len(b) < n-700; i++ {
		if i%8 == 0 {
			block = hex(block[:0], 64)
		}
		if i%2 == 0 {
			tx = hex(tx[:0], 64)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `{"address":"`...), addrs[i%8]...), `","topics":["`...)
		b = append(append(b, topics[i%4]...), `","0x000000000000000000000000`...)
		b = append(append(b, addrs[(i+3)%8][2:]...), `","0x000000000000000000000000`...)
		b = append(append(b, addrs[(i+5)%8][2:]...), `"],"data":"0x000000000000000000000000000000000000000000000000`...)
		b = append(b, hex(nil, 16)[2:]...) // a uint256 amount
		b = append(b, `","blockNumber":"0x`...)
		b = strconv.AppendInt(b, int64(19000000+i/8), 16)
		b = append(append(append(b, `","blockHash":"`...), block...), `","transactionHash":"`...)
		b = append(append(b, tx...), `","transactionIndex":"0x`...)
		b = append(strconv.AppendInt(b, int64(i/2), 16), `","logIndex":"0x`...)
		b = append(strconv.AppendInt(b, int64(i), 16), `","removed":false}`...)
	}
	return append(b, ']')
}

// BenchmarkDeflate compresses and inflates a 64 KiB log-like message and a
// 2 KiB one, without context takeover (pooled writers and readers) and
// with it; wire-B/msg is the frame's size.
func BenchmarkDeflate(b *testing.B) {
	for _, size := range []int{2 << 10, 64 << 10} {
		msg := logLike(size)
		for _, d := range []struct {
			name string
			d    Deflate
		}{{"no-takeover", Deflate{ServerNoContextTakeover: true}}, {"takeover", Deflate{}}} {
			b.Run("size="+strconv.Itoa(size>>10)+"KiB/"+d.name+"/write", func(b *testing.B) {
				var c Compressor
				defer c.Release()
				c.Reset(d.d, Server, 1024, false)
				b.ReportAllocs()
				b.SetBytes(int64(len(msg)))
				var out []byte
				for b.Loop() {
					out = c.AppendMessage(out[:0], OpText, msg, Mask{})
				}
				b.ReportMetric(float64(len(out)), "wire-B/msg")
			})
			b.Run("size="+strconv.Itoa(size>>10)+"KiB/"+d.name+"/read", func(b *testing.B) {
				var c Compressor
				defer c.Release()
				c.Reset(d.d, Server, 1024, false)
				var stream []byte
				for range 16 {
					stream = c.AppendMessage(stream, OpText, msg, Mask{})
				}
				b.ReportAllocs()
				b.SetBytes(16 * int64(len(msg)))
				var rd Reader
				src := bytes.NewReader(nil)
				for b.Loop() {
					src.Reset(stream)
					rd.Reset(src, Client, 0)
					rd.SetDeflate(d.d)
					for range 16 {
						if _, _, err := rd.Next(); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// BenchmarkDeflateMemory measures the heap that compression state costs per
// connection, over 1,000 of them, each after sending and receiving one
// 64 KiB message: a Compressor and a Reader each, with and without context
// takeover. Without it, what a connection keeps is its Reader's buffers
// (the same as uncompressed, plus the inflated message's) and nothing of
// flate's; with it, a flate writer (about 800 KiB at BestSpeed) and the
// peer's 32 KiB window. Run with -benchtime=1x.
func BenchmarkDeflateMemory(b *testing.B) {
	msg := logLike(64 << 10)
	const conns = 1000
	for _, d := range []struct {
		name string
		d    Deflate
		on   bool
	}{{"off", Deflate{}, false}, {"no-takeover", Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}, true},
		{"takeover", Deflate{}, true}} {
		b.Run(d.name, func(b *testing.B) {
			for b.Loop() {
				type conn struct {
					c  Compressor
					rd Reader
				}
				all := make([]*conn, conns)
				before := heap()
				src := bytes.NewReader(nil)
				for i := range all {
					cn := new(conn)
					min := 1024
					if !d.on {
						min = -1
					}
					cn.c.Reset(d.d, Client, min, false)
					frame := cn.c.AppendMessage(nil, OpText, msg, MaskWith(7))
					src.Reset(frame)
					cn.rd.Reset(src, Server, 0)
					if d.on {
						cn.rd.SetDeflate(d.d)
					}
					if _, p, err := cn.rd.Next(); err != nil || len(p) != len(msg) {
						b.Fatal(err)
					}
					all[i] = cn
				}
				after := heap()
				b.ReportMetric(float64(after-before)/conns, "heap-B/conn")
				runtime.KeepAlive(all)
				for _, cn := range all {
					cn.c.Release()
				}
			}
		})
	}
}

// heap is the live heap after a collection.
func heap() int64 {
	runtime.GC()
	runtime.GC() // and the pools' victim caches
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
