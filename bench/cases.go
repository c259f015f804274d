package bench

import "strings"

// Case is one benchmark message.
type Case struct {
	Name string
	Msg  []byte
}

// Cases returns the benchmark messages: small (positional subtract), named
// (named subtract), large (about 1 KiB of params through echo), batch10 (ten
// subtract calls) and notification.
func Cases() []Case {
	var batch strings.Builder
	batch.WriteByte('[')
	for i := 0; i < 10; i++ {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.WriteString(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":`)
		batch.WriteString(string(rune('0' + i)))
		batch.WriteByte('}')
	}
	batch.WriteByte(']')
	return []Case{
		{"small", []byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)},
		{"named", []byte(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":"req-3"}`)},
		{"large", []byte(`{"jsonrpc":"2.0","method":"echo","params":` + largeParams() + `,"id":7}`)},
		{"batch10", []byte(batch.String())},
		{"notification", []byte(`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`)},
	}
}

// largeParams is about 1 KiB of typical JSON: an object of mixed values.
func largeParams() string {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":`)
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString(`,"name":"item \u00e9 name","price":12.5,"tags":["a","b"],"ok":true}`)
	}
	b.WriteString(`],"note":"caf\u00e9 \"quoted\" text"}`)
	return b.String()
}
