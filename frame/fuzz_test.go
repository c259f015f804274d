package frame

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzReader reads a random stream with a random chunking and a small limit:
// no panic, no frame over the limit, the buffer within its bound (checked by
// transcript), and the same outcomes as reading the stream in one piece.
func FuzzReader(f *testing.F) {
	seeds := []string{
		"", "a\nb\r\n\n \t\nc", "12345678\n{}\n",
		"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\nX: y\r\n\r\n[1]",
		"content-length: 20\n\n01234567890123456789Content-Length: 1\n\nx",
		"Content-Length: 1e3\r\n\r\n", "Content-Type: x\r\n\r\n{}",
		be32(2) + "{}" + be32(0) + be32(30) + "012345678901234567890123456789" + be32(1) + "x",
		be32(3) + "ab",
	}
	for i, s := range seeds {
		for kind := range uint8(4) {
			f.Add([]byte(s), kind, uint64(i), uint8(i+1), uint16(8))
		}
	}
	f.Fuzz(func(t *testing.T, stream []byte, kind uint8, seed uint64, maxChunk uint8, limit uint16) {
		k := Kind(kind % 4)
		maxMsg := int(limit%1024) + 1
		fr := new(Reader)
		whole := transcript(t, fr, bytes.NewReader(stream), k, maxMsg, false)
		chunked := transcript(t, fr, randomReader(stream, seed, int(maxChunk%64)+1), k, maxMsg, seed%2 == 0)
		require.Equal(t, whole, chunked)
	})
}

// FuzzRoundTrip cuts the input into messages, frames them with AppendFrame or
// BeginFrame/EndFrame and reads them back: the same messages (for NDJSON,
// with '\n' and '\r' turned into ' ' and blank messages dropped).
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"a"}[1,2]`), uint8(0), uint64(1))
	f.Add([]byte("{\n}\r\n  \t\x00Content-Length: 2\r\n\r\n{}"), uint8(1), uint64(2))
	f.Add([]byte("\x00\x00\x00\x05hello"), uint8(2), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8, seed uint64) {
		k := []Kind{NDJSON, Header, Len32}[kind%3]
		rng := rand.New(rand.NewPCG(seed, seed))
		var stream []byte
		var want []string
		for rest := data; len(rest) > 0 || rng.IntN(4) == 0; {
			n := min(rng.IntN(80), len(rest))
			msg := rest[:n]
			rest = rest[n:]
			if rng.IntN(2) == 0 {
				stream = AppendFrame(stream, k, msg)
			} else {
				var mark int
				stream, mark = BeginFrame(stream, k)
				stream = append(stream, msg...)
				stream = EndFrame(stream, k, mark)
			}
			if k == NDJSON {
				msg = slices.Clone(msg)
				flatten(msg)
				if blank(msg) {
					continue
				}
			}
			want = append(want, "="+string(msg))
		}
		want = append(want, "!EOF")
		fr := new(Reader)
		require.Equal(t, want, transcript(t, fr, randomReader(stream, seed, 50), k, 0, seed%2 == 1))
		if k != NDJSON {
			require.Equal(t, want, transcript(t, fr, bytes.NewReader(stream), Auto, 0, false))
		}
	})
}
