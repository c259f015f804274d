package cache

// NOTE: the ethereum policy decides from the method name (one map lookup:
// which kind of call it is, and where its block argument sits) and, for
// calls by block number, from that argument compared with the finalized
// block its Finality follows. Params and results are walked with
// decode.Iter (no tree, no reflection, no allocation).

import (
	"time"

	"github.com/jetrpc/jetrpc/decode"
)

// DefaultEthereumTTL is how long the ethereum policy keeps an answer when
// EthereumOptions gives no TTL. The answers it caches never change, so the
// TTL only bounds how long an unused entry holds its place.
const DefaultEthereumTTL = time.Hour

// EthereumOptions configure the ethereum policy; nil gives the defaults.
type EthereumOptions struct {
	// TTL of every answer it allows. Default DefaultEthereumTTL.
	TTL time.Duration
}

// Ethereum is the built-in policy for Ethereum execution clients
// (go-ethereum, Nethermind, Erigon, Reth, Besu ...). It caches what cannot
// change:
//   - eth_chainId and net_version;
//   - calls by block hash (eth_getBlockByHash, eth_getBlockTransactionCountByHash,
//     eth_getTransactionByBlockHashAndIndex, eth_getUncleByBlockHashAndIndex,
//     eth_getUncleCountByBlockHash, eth_getRawTransactionByBlockHashAndIndex),
//     and eth_getRawTransactionByHash;
//   - eth_getTransactionByHash and eth_getTransactionReceipt once the
//     answer's blockNumber is at or below the finalized block (a pending or
//     recently mined transaction may still move);
//   - calls whose block argument (a number, "earliest", a block hash, or an
//     EIP-1898 {"blockNumber"} / {"blockHash"} object) names a block at or
//     below the finalized one: eth_getBlockByNumber, eth_getBlockReceipts,
//     eth_getBlockTransactionCountByNumber, eth_getTransactionByBlockNumberAndIndex,
//     eth_getUncleByBlockNumberAndIndex, eth_getUncleCountByBlockNumber,
//     eth_getRawTransactionByBlockNumberAndIndex, eth_getBalance, eth_getCode,
//     eth_getTransactionCount, eth_getStorageAt, eth_getProof, eth_call,
//     eth_estimateGas, eth_feeHistory;
//   - eth_getLogs with a blockHash, or with fromBlock and toBlock both
//     numbers at or below the finalized block.
//
// Tags (latest, pending, safe, finalized), an absent block argument
// (latest), numbers above the finalized block, and every number while the
// finalized block is unknown are not cached. A null answer (a block or
// transaction the upstream does not know yet) is never kept.
type Ethereum struct {
	fin *Finality
	ttl time.Duration
}

var _ Policy = (*Ethereum)(nil)

// NewEthereum returns the ethereum policy, comparing block numbers with
// the one fin follows (a nil fin: numbers are never cached).
func NewEthereum(fin *Finality, opts *EthereumOptions) *Ethereum {
	e := &Ethereum{fin: fin, ttl: DefaultEthereumTTL}
	if opts != nil && opts.TTL > 0 {
		e.ttl = opts.TTL
	}
	return e
}

type ethKind uint8

const (
	ethConst   ethKind = iota + 1 // the chain's constants
	ethHash                       // by block hash (or a raw transaction by hash): never changes
	ethTxHash                     // by transaction hash: final once its block is
	ethBlockAt                    // a block argument at position pos
	ethLogs                       // eth_getLogs's filter object
)

type ethMethod struct {
	kind ethKind
	pos  uint8
}

// ethMethods is read-only.
var ethMethods = map[string]ethMethod{
	"eth_chainId": {kind: ethConst},
	"net_version": {kind: ethConst},

	"eth_getBlockByHash":                       {kind: ethHash},
	"eth_getBlockTransactionCountByHash":       {kind: ethHash},
	"eth_getTransactionByBlockHashAndIndex":    {kind: ethHash},
	"eth_getRawTransactionByBlockHashAndIndex": {kind: ethHash},
	"eth_getUncleByBlockHashAndIndex":          {kind: ethHash},
	"eth_getUncleCountByBlockHash":             {kind: ethHash},
	"eth_getRawTransactionByHash":              {kind: ethHash},

	"eth_getTransactionByHash":  {kind: ethTxHash},
	"eth_getTransactionReceipt": {kind: ethTxHash},

	"eth_getBlockByNumber":                       {kind: ethBlockAt, pos: 0},
	"eth_getBlockReceipts":                       {kind: ethBlockAt, pos: 0},
	"eth_getBlockTransactionCountByNumber":       {kind: ethBlockAt, pos: 0},
	"eth_getTransactionByBlockNumberAndIndex":    {kind: ethBlockAt, pos: 0},
	"eth_getRawTransactionByBlockNumberAndIndex": {kind: ethBlockAt, pos: 0},
	"eth_getUncleByBlockNumberAndIndex":          {kind: ethBlockAt, pos: 0},
	"eth_getUncleCountByBlockNumber":             {kind: ethBlockAt, pos: 0},
	"eth_getBalance":                             {kind: ethBlockAt, pos: 1},
	"eth_getCode":                                {kind: ethBlockAt, pos: 1},
	"eth_getTransactionCount":                    {kind: ethBlockAt, pos: 1},
	"eth_call":                                   {kind: ethBlockAt, pos: 1},
	"eth_estimateGas":                            {kind: ethBlockAt, pos: 1},
	"eth_feeHistory":                             {kind: ethBlockAt, pos: 1},
	"eth_getStorageAt":                           {kind: ethBlockAt, pos: 2},
	"eth_getProof":                               {kind: ethBlockAt, pos: 2},

	"eth_getLogs": {kind: ethLogs},
}

// TTL reports whether the call's answer cannot change (see Ethereum).
func (e *Ethereum) TTL(method, params []byte) (time.Duration, bool) {
	m, ok := ethMethods[string(method)]
	if !ok {
		return 0, false
	}
	switch m.kind {
	case ethConst, ethHash, ethTxHash:
		ok = true
	case ethBlockAt:
		ok = e.final(blockRef(arg(params, int(m.pos))))
	case ethLogs:
		ok = e.logsFinal(arg(params, 0))
	}
	if !ok {
		return 0, false
	}
	return e.ttl, true
}

// Keep refuses null, and a transaction whose block is not final yet.
func (e *Ethereum) Keep(method, _, result []byte) bool {
	if isNull(result) {
		return false
	}
	if m := ethMethods[string(method)]; m.kind == ethTxHash {
		return e.final(blockRef(member(result, "blockNumber")))
	}
	return true
}

// ref is what a block argument names.
type ref uint8

const (
	refNone   ref = iota // a tag that moves, or not understood
	refHash              // a block hash, or "earliest" (genesis): never changes
	refNumber            // a block number
)

func (e *Ethereum) final(r ref, n uint64) bool {
	switch r {
	case refHash:
		return true
	case refNumber:
		if e.fin == nil {
			return false
		}
		f, ok := e.fin.Block()
		return ok && n <= f
	}
	return false
}

// logsFinal: eth_getLogs's filter has a blockHash, or fromBlock and toBlock
// that are both final (an absent one means latest).
func (e *Ethereum) logsFinal(filter []byte) bool {
	var it decode.Iter
	if !it.Reset(filter) || !it.IsObject() {
		return false
	}
	var from, to []byte
	for it.Next() {
		switch k := it.Key(); {
		case decode.KeyEquals(k, "blockHash"):
			r, _ := blockRef(it.Value())
			return r == refHash
		case decode.KeyEquals(k, "fromBlock"):
			from = it.Value()
		case decode.KeyEquals(k, "toBlock"):
			to = it.Value()
		}
	}
	rf, nf := blockRef(from)
	rt, nt := blockRef(to)
	return e.final(rf, nf) && e.final(rt, nt)
}

// arg returns the i-th element of a params array, nil when there is none.
func arg(params []byte, i int) []byte {
	var it decode.Iter
	if !it.Reset(params) || it.IsObject() {
		return nil
	}
	for it.Next() {
		if i == 0 {
			return it.Value()
		}
		i--
	}
	return nil
}

// member returns the value of the named member of a JSON object, nil when
// there is none.
func member(obj []byte, name string) []byte {
	var it decode.Iter
	if !it.Reset(obj) || !it.IsObject() {
		return nil
	}
	for it.Next() {
		if decode.KeyEquals(it.Key(), name) {
			return it.Value()
		}
	}
	return nil
}

// blockRef reads a block argument: "0x" and a quantity, "0x" and a 32-byte
// hash, "earliest", or an EIP-1898 object.
func blockRef(v []byte) (ref, uint64) {
	if len(v) > 0 && v[0] == '{' {
		var it decode.Iter
		it.Reset(v)
		for it.Next() {
			switch k := it.Key(); {
			case decode.KeyEquals(k, "blockHash"):
				if r, _ := blockRef(it.Value()); r == refHash {
					return refHash, 0
				}
				return refNone, 0
			case decode.KeyEquals(k, "blockNumber"):
				if r, n := blockRef(it.Value()); r == refNumber {
					return refNumber, n
				}
				return refNone, 0
			}
		}
		return refNone, 0
	}
	if len(v) < 3 || v[0] != '"' || v[len(v)-1] != '"' {
		return refNone, 0
	}
	s := v[1 : len(v)-1]
	if string(s) == "earliest" {
		return refHash, 0
	}
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return refNone, 0
	}
	s = s[2:]
	if len(s) == 64 {
		for _, c := range s {
			if hexVal(c) < 0 {
				return refNone, 0
			}
		}
		return refHash, 0
	}
	n, ok := parseHex(s)
	if !ok {
		return refNone, 0
	}
	return refNumber, n
}

// parseHex reads 1 to 16 hex digits.
func parseHex(s []byte) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		d := hexVal(c)
		if d < 0 {
			return 0, false
		}
		n = n<<4 | uint64(d)
	}
	return n, true
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

// isNull reports whether a raw JSON value is null (or empty).
func isNull(v []byte) bool {
	i, j := 0, len(v)
	for i < j && isSpace(v[i]) {
		i++
	}
	for j > i && isSpace(v[j-1]) {
		j--
	}
	return j == i || string(v[i:j]) == "null"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
