package frame

import (
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
)

// bufCap is the test-only view of the Reader's buffer size.
func (r *Reader) bufCap() int { return cap(r.buf) }

// bufBound is the most buffer a Reader with limit max may hold.
func bufBound(max int) int { return max + headerMargin }

// chunkReader returns data in chunks: at the cuts given, or of random sizes
// (1..maxChunk) drawn from rng.
type chunkReader struct {
	data     []byte
	cuts     []int // absolute offsets to stop at, ascending
	rng      *rand.Rand
	maxChunk int
	reads    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	c.reads++
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if c.rng != nil {
		n = 1 + c.rng.IntN(c.maxChunk)
	}
	n = copy(p, c.data[:min(n, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}

// splitReader returns data[:cut] then data[cut:].
func splitReader(data []byte, cut int) io.Reader {
	return io.MultiReader(&chunkReader{data: data[:cut]}, &chunkReader{data: data[cut:]})
}

func randomReader(data []byte, seed uint64, maxChunk int) *chunkReader {
	return &chunkReader{data: data, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), maxChunk: maxChunk}
}

// repeatReader yields data over and over, never ending.
type repeatReader struct {
	data []byte
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := copy(p, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// be32 is a len32 prefix.
func be32(n int) string {
	return string(binary.BigEndian.AppendUint32(nil, uint32(n)))
}

// outcome describes one result of Next for transcripts: "=frame", "!too:N"
// (NDJSON: "!too", as its size depends on chunking), "!broken", "!EOF",
// "!unexpected", or "!err:..." for anything else.
func outcome(kind Kind, frame []byte, err error) string {
	var tl *TooLargeError
	switch {
	case err == nil:
		return "=" + string(frame)
	case errors.As(err, &tl):
		if kind == NDJSON {
			return "!too"
		}
		return "!too:" + strconv.FormatInt(tl.Size, 10)
	case errors.Is(err, ErrBroken):
		return "!broken"
	case err == io.EOF:
		return "!EOF"
	case err == io.ErrUnexpectedEOF:
		return "!unexpected"
	}
	return "!err:" + err.Error()
}

func terminal(s string) bool {
	return s == "!broken" || s == "!EOF" || s == "!unexpected" || len(s) > 4 && s[:5] == "!err:"
}
