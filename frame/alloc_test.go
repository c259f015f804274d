//go:build !race

package frame

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stream returns frames of kind cycling over msgs, for a repeatReader.
func stream(kind Kind, msgs ...string) []byte {
	var s []byte
	for _, m := range msgs {
		s = AppendFrame(s, kind, []byte(m))
	}
	return s
}

func TestAllocsNext(t *testing.T) {
	small := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`
	big := strings.Repeat("x", 3000)
	tooBig := strings.Repeat("y", 5000)
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		for name, msgs := range map[string][]string{
			"small":    {small},
			"mixed":    {small, big, "[1]", big, small},
			"tooLarge": {small, tooBig, big},
		} {
			for _, ready := range []bool{false, true} {
				fr := NewReader(&repeatReader{data: stream(kind, msgs...)}, kind, 4096)
				next := func() {
					if ready {
						fr.Ready()
					}
					f, err := fr.Next()
					if err != nil {
						var tl *TooLargeError
						require.ErrorAs(t, err, &tl)
					} else if len(f) == 0 {
						t.Fatal("empty frame")
					}
				}
				for range 1000 { // grow the buffer
					next()
				}
				assert.Zero(t, testing.AllocsPerRun(1000, next), "%v %s ready=%v", kind, name, ready)
			}
		}
	}
}

func TestAllocsAppend(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","result":19,"id":1}`)
	dst := make([]byte, 0, 1024)
	for _, kind := range []Kind{NDJSON, Header, Len32} {
		assert.Zero(t, testing.AllocsPerRun(1000, func() {
			dst = AppendFrame(dst[:0], kind, msg)
		}), kind)
		assert.Zero(t, testing.AllocsPerRun(1000, func() {
			var mark int
			dst, mark = BeginFrame(dst[:0], kind)
			dst = append(dst, msg...)
			dst = EndFrame(dst, kind, mark)
		}), kind)
	}
}
