// Package bombtest makes decompression bombs for tests: valid gzip streams
// that inflate to far more than they weigh, made in milliseconds (a
// compressor would take seconds for a gigabyte, and minutes under -race).
package bombtest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/flate"
)

// Gzip returns a valid gzip stream of n MiB of zero bytes (about 1 KiB per
// MiB). It is built from one sync-flushed deflate block of 1 MiB of zeros,
// which refers only to the zeros before it and so can be repeated.
func Gzip(mib int) []byte {
	zeros := make([]byte, 1<<20)
	var raw bytes.Buffer
	w, _ := flate.NewWriter(&raw, flate.BestCompression)
	w.Write(zeros)
	w.Flush()
	first := bytes.Clone(raw.Bytes())
	raw.Reset()
	w.Write(zeros)
	w.Flush()
	next := bytes.Clone(raw.Bytes())
	raw.Reset()
	w.Close() // the final (empty) block
	last := raw.Bytes()

	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff} // the gzip header
	out = append(out, first...)
	for range mib - 1 {
		out = append(out, next...)
	}
	out = append(out, last...)
	var crc uint32
	for range mib {
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(mib<<20))
}
