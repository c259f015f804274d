package frame

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendFrame(t *testing.T) {
	f := func(kind Kind, msg, want string) {
		t.Helper()
		got := AppendFrame([]byte("prefix"), kind, []byte(msg))
		assert.Equal(t, "prefix"+want, string(got), "%v %q", kind, msg)
		// the two-step form writes the same bytes
		dst, mark := BeginFrame([]byte("prefix"), kind)
		dst = append(dst, msg...)
		assert.Equal(t, "prefix"+want, string(EndFrame(dst, kind, mark)), "%v %q", kind, msg)
	}
	f(NDJSON, `{"a":1}`, `{"a":1}`+"\n")
	f(NDJSON, "", "\n")
	f(NDJSON, "{\"a\":\r\n[1,\n2]}\n", `{"a":  [1, 2]} `+"\n")
	f(Auto, "[\n]", "[ ]\n")
	f(Header, `{"a":1}`, "Content-Length: 7\r\n\r\n"+`{"a":1}`)
	f(Header, "", "Content-Length: 0\r\n\r\n")
	f(Header, "\n", "Content-Length: 1\r\n\r\n\n")
	f(Header, strings.Repeat("x", 12345), "Content-Length: 12345\r\n\r\n"+strings.Repeat("x", 12345))
	f(Len32, `{"a":1}`, "\x00\x00\x00\x07"+`{"a":1}`)
	f(Len32, "", "\x00\x00\x00\x00")
	f(Len32, strings.Repeat("y", 300), "\x00\x00\x01\x2c"+strings.Repeat("y", 300))
}

func TestFlattenKeepsJSONValid(t *testing.T) {
	msgs := []string{
		"{\n  \"jsonrpc\": \"2.0\",\r\n  \"method\": \"x\",\n  \"params\": [\n1,\r2\n]\n}\n",
		"[\r\n{\"a\":\"b\\nc\"}\r\n]",
	}
	var stream []byte
	for _, m := range msgs {
		require.True(t, json.Valid([]byte(m)))
		stream = AppendFrame(stream, NDJSON, []byte(m))
	}
	fr := NewReader(bytes.NewReader(stream), NDJSON, 0)
	for _, m := range msgs {
		f, err := fr.Next()
		require.NoError(t, err)
		assert.True(t, json.Valid(f), "%q", f)
		assert.Equal(t, strings.NewReplacer("\n", " ", "\r", " ").Replace(m), string(f))
	}
}

func TestRoundTrip(t *testing.T) {
	msgs := []string{`{"jsonrpc":"2.0","method":"a","id":1}`, `[1,2]`, "x", `"\n"`, "{\n}",
		strings.Repeat("z", 10000), "\x00\x01", "Content-Length: 3\r\n\r\nabc"}
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		var stream []byte
		for i, m := range msgs {
			if i%2 == 0 {
				stream = AppendFrame(stream, kind, []byte(m))
			} else {
				var mark int
				stream, mark = BeginFrame(stream, kind)
				stream = append(stream, m...)
				stream = EndFrame(stream, kind, mark)
			}
		}
		var want []string
		for _, m := range msgs {
			if kind == NDJSON {
				m = strings.NewReplacer("\n", " ", "\r", " ").Replace(m)
			}
			want = append(want, "="+m)
		}
		check(t, kind, 0, string(stream), append(want, "!EOF")...)
		if kind != NDJSON { // the first byte tells these apart
			check(t, Auto, 0, string(stream), append(want, "!EOF")...)
		}
	}
}

func TestKind(t *testing.T) {
	for _, k := range []Kind{Auto, NDJSON, Header, Len32} {
		got, err := ParseKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	assert.Equal(t, "Kind(7)", Kind(7).String())
	_, err := ParseKind("lsp")
	assert.EqualError(t, err, `frame: unknown framing "lsp" (valid: auto, ndjson, header, len32)`)
}
