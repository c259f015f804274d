package demo

import "strconv"

// Logs returns a JSON array of Ethereum-style log objects (as eth_getLogs
// answers) of about size bytes, the same bytes on every call, shaped like
// mainnet's: a few contracts and event signatures that repeat; indexed
// addresses half from a pool of 64 busy ones (routers, exchanges), half
// random; data a uint256 amount (zero-padded); about three logs per
// transaction and a new block every 100 logs (mainnet has hundreds).
// It is the compression benchmarks' result: how such answers compress is
// what node operators care about.
func Logs(size int) []byte {
	var contracts, events [6]uint64
	var busy [64]uint64
	r := xorshift(0x9e3779b97f4a7c15)
	for i := range contracts {
		contracts[i], events[i] = r.next(), r.next()
	}
	for i := range busy {
		busy[i] = r.next()
	}
	b := make([]byte, 0, size+1024)
	b = append(b, '[')
	block, tx, blockHash := uint64(19_000_000), r.next(), r.next()
	for i := 0; len(b) < size; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		if r.next()%100 == 0 {
			block, blockHash = block+1, r.next()
		}
		if r.next()%3 == 0 {
			tx = r.next()
		}
		b = append(b, `{"address":"0x`...)
		b = appendHex(b, 40, contracts[r.next()%uint64(len(contracts))])
		b = append(b, `","topics":["0x`...)
		b = appendHex(b, 64, events[r.next()%uint64(len(events))])
		for range 2 { // indexed addresses (from, to)
			b = append(b, `","0x000000000000000000000000`...)
			a := r.next()
			if a%2 == 0 {
				a = busy[a/2%uint64(len(busy))]
			}
			b = appendHex(b, 40, a)
		}
		b = append(b, `"],"data":"0x0000000000000000000000000000000000000000`...)
		b = appendHex(b, 24, r.next())
		b = append(b, `","blockNumber":"0x`...)
		b = strconv.AppendUint(b, block, 16)
		b = append(b, `","transactionHash":"0x`...)
		b = appendHex(b, 64, tx)
		b = append(b, `","transactionIndex":"0x`...)
		b = strconv.AppendUint(b, uint64(i%200), 16)
		b = append(b, `","blockHash":"0x`...)
		b = appendHex(b, 64, blockHash)
		b = append(b, `","logIndex":"0x`...)
		b = strconv.AppendUint(b, uint64(i), 16)
		b = append(b, `","removed":false}`...)
	}
	return append(b, ']')
}

// xorshift is xorshift64*: fixed output, fast, no math/rand.
type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x >> 12
	*x ^= *x << 25
	*x ^= *x >> 27
	return uint64(*x) * 2685821657736338717
}

// appendHex appends n hex digits drawn from a generator seeded with seed:
// the same seed, the same digits.
func appendHex(b []byte, n int, seed uint64) []byte {
	const digits = "0123456789abcdef"
	r := xorshift(seed | 1)
	var v uint64
	for i := range n {
		if i%16 == 0 {
			v = r.next()
		}
		b = append(b, digits[v&15])
		v >>= 4
	}
	return b
}
