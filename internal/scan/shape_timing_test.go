package scan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// shapeSize is the size of each shape's document: large enough that the
// per-call overhead vanishes, small enough to stay in L2.
const shapeSize = 64 << 10

// shapes are 64 KiB documents of the value shapes JSON-RPC traffic carries.
// Each is one array of its items, made deterministically.
var shapes = []struct{ name, doc string }{
	{"strings", shapeDoc(func(k int) string { return `"lorem ipsum dolor sit amet, consectetur ` + strconv.Itoa(k) + `"` })},
	{"ints", shapeDoc(func(k int) string { return strconv.Itoa(k * 7919 % 10007 % (1 + k%4*333)) })},
	{"escapes", shapeDoc(func(k int) string { return `"line\n\t\"quoted\" C:\\path\\to\\file ` + strconv.Itoa(k) + `\r\n"` })},
	{"uescapes", shapeDoc(func(k int) string { return `"caf\u00e9 \u2028 na\u00efve \ud83d\ude00 ` + strconv.Itoa(k) + `"` })},
	{"eth", shapeDoc(func(k int) string {
		return `{"blockHash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","blockNumber":"0x5daf3b","from":"0xa7d9ddbe1f17865597fbd27ec712455208b6b76d","gas":"0xc350","gasPrice":"0x4a817c800","hash":"0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b","input":"0x68656c6c6f21","nonce":"0x` + strconv.FormatInt(int64(k), 16) + `","to":"0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb","transactionIndex":"0x41","value":"0xf3dbb76162000","v":"0x25","r":"0x1b5e176d927f8e9ab405058b2d2457392da3e20f328b16ddabcebc33eaac5fea","s":"0x4ba69724e8f69de52f0125ad8b3c5c2cef33019bac3249e2c0a2192766d1721c"}`
	})},
	{"lsp", shapeDoc(func(k int) string {
		return `{"range":{"start":{"line":` + strconv.Itoa(k) + `,"character":4},"end":{"line":` + strconv.Itoa(k) + `,"character":17}},"severity":1,"code":"unused","source":"compile","message":"declared and not used: x` + strconv.Itoa(k%10) + `","tags":[1]}`
	})},
}

func shapeDoc(item func(k int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for k := 0; b.Len() < shapeSize-1; k++ {
		s := item(k)
		if b.Len()+len(s)+2 > shapeSize {
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

func TestShapesValid(t *testing.T) {
	for _, sh := range shapes {
		if !Valid([]byte(sh.doc), 0) {
			t.Errorf("%s: not valid", sh.name)
		}
		if err := fastjson.Validate(sh.doc); err != nil {
			t.Errorf("%s: fastjson: %v", sh.name, err)
		}
	}
}

// BenchmarkShape validates each shape with this package's Scanner.
func BenchmarkShape(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			in := []byte(sh.doc)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if !Valid(in, 0) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkShapeFastjson is the baseline: fastjson's validator on the same documents.
func BenchmarkShapeFastjson(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			in := []byte(sh.doc)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if fastjson.ValidateBytes(in) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}
