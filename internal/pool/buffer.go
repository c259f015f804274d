package pool

import "github.com/valyala/bytebufferpool"

// Buffer is a growable byte buffer: B is the data, append to it directly.
// It is bytebufferpool's ByteBuffer (an alias, so buffers pass to fasthttp
// and other bytebufferpool users unchanged): its zero value is an empty
// buffer ready to use, Reset empties it and keeps the capacity, and it has
// Write, WriteString, Set and friends for code that wants them.
type Buffer = bytebufferpool.ByteBuffer

// MaxPooledBuffer is the largest capacity a buffer may have and still be
// kept by Put. Larger buffers (from a message near the 4 MiB limit, say) are
// left to the garbage collector, so a burst of big messages does not pin
// memory afterwards. 1 MiB holds any ordinary response or batch; below it
// bytebufferpool's own calibration also drops buffers far above the 95th
// percentile of recent sizes.
const MaxPooledBuffer = 1 << 20

// Buffers is a pool of *Buffer. Separate pools for separate uses (input
// frames, output) let each calibrate to its own sizes. The zero value is
// ready to use; a Buffers must not be copied after first use.
type Buffers struct {
	p bytebufferpool.Pool
}

// Get returns an empty buffer.
func (p *Buffers) Get() *Buffer { return p.p.Get() }

// Put returns b to the pool emptied (b.B = b.B[:0]), or drops it when its
// capacity exceeds MaxPooledBuffer. b must not be used after Put. A nil b is
// ignored.
func (p *Buffers) Put(b *Buffer) {
	if b == nil || cap(b.B) > MaxPooledBuffer {
		return
	}
	p.p.Put(b) // resets b.B to b.B[:0]; uses len(b.B) to calibrate first
}

// buffers is the pool behind GetBuffer and PutBuffer.
var buffers Buffers

// GetBuffer returns an empty buffer from a pool shared by the whole process.
func GetBuffer() *Buffer { return buffers.Get() }

// PutBuffer returns b to the shared pool; see Buffers.Put.
func PutBuffer(b *Buffer) { buffers.Put(b) }
