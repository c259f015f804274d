// Package shapes holds the documents the scanner is measured on: 64 KiB of
// each value shape JSON-RPC traffic carries. internal/scan's BenchmarkShape
// and the count command (instruction counts under callgrind) share them.
package shapes

import (
	"strconv"
	"strings"
)

// Shape is one document and its name.
type Shape struct{ Name, Doc string }

// size is the size of each shape's document: large enough that the
// per-call overhead vanishes, small enough to stay in L2.
const size = 64 << 10

// All are the 64 KiB documents of the value shapes JSON-RPC traffic carries.
// Each is one array of its items, made deterministically.
var All = []Shape{
	{"strings", doc(func(k int) string { return `"lorem ipsum dolor sit amet, consectetur ` + strconv.Itoa(k) + `"` })},
	{"ints", doc(func(k int) string { return strconv.Itoa(k * 7919 % 10007 % (1 + k%4*333)) })},
	{"escapes", doc(func(k int) string { return `"line\n\t\"quoted\" C:\\path\\to\\file ` + strconv.Itoa(k) + `\r\n"` })},
	{"uescapes", doc(func(k int) string { return `"caf\u00e9 \u2028 na\u00efve \ud83d\ude00 ` + strconv.Itoa(k) + `"` })},
	{"eth", doc(func(k int) string {
		return `{"blockHash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","blockNumber":"0x5daf3b","from":"0xa7d9ddbe1f17865597fbd27ec712455208b6b76d","gas":"0xc350","gasPrice":"0x4a817c800","hash":"0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b","input":"0x68656c6c6f21","nonce":"0x` + strconv.FormatInt(int64(k), 16) + `","to":"0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb","transactionIndex":"0x41","value":"0xf3dbb76162000","v":"0x25","r":"0x1b5e176d927f8e9ab405058b2d2457392da3e20f328b16ddabcebc33eaac5fea","s":"0x4ba69724e8f69de52f0125ad8b3c5c2cef33019bac3249e2c0a2192766d1721c"}`
	})},
	{"lsp", doc(func(k int) string {
		return `{"range":{"start":{"line":` + strconv.Itoa(k) + `,"character":4},"end":{"line":` + strconv.Itoa(k) + `,"character":17}},"severity":1,"code":"unused","source":"compile","message":"declared and not used: x` + strconv.Itoa(k%10) + `","tags":[1]}`
	})},
}

func doc(item func(k int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for k := 0; b.Len() < size-1; k++ {
		s := item(k)
		if b.Len()+len(s)+2 > size {
			break
		}
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String()
}
