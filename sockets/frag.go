package sockets

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// Frag is a rendered fragment: a top-level element of a frame and the id
// it replaces on the page.
type Frag struct {
	ID   string
	HTML []byte
	// Full, when set, says HTML adds to the fragment the page has (an
	// hx-swap-oob="beforeend"): Full returns the whole fragment, which
	// the mailbox takes instead when HTML would add to a version the page
	// has not got yet.
	Full func() []byte
	// Chunk, when set, holds HTML: the mailbox gives it back once the
	// fragment is written or replaced (Chunk.Done).
	Chunk *Chunk
}

// A Chunk is a pooled buffer holding the HTML of the fragments of one
// frame, so that a busy session's frames reuse their bytes instead of
// allocating them: the HTML of what changed was the largest of an action's
// allocations. Each fragment that points into it holds a reference, and so
// does its maker until it has handed them on; the last Done returns it to
// the pool. A reference never given back leaves the chunk to the garbage
// collector: safe, only not reused.
type Chunk struct {
	Buf  bytes.Buffer
	refs atomic.Int32
}

var chunks = sync.Pool{New: func() any { return new(Chunk) }}

// maxChunk is the largest buffer a chunk takes back to the pool: a whole
// demo's frame is rarer than the frames of what changed, and should not pin
// its bytes.
const maxChunk = 64 << 10

// GetChunk returns an empty chunk holding one reference, its maker's.
func GetChunk() *Chunk {
	c := chunks.Get().(*Chunk)
	c.Buf.Reset()
	c.refs.Store(1)
	return c
}

// Hold adds n references: fragments that point into the chunk.
func (c *Chunk) Hold(n int) { c.refs.Add(int32(n)) }

// Done gives a reference back; the last returns the chunk to the pool, and
// nothing may read its bytes after. A nil chunk does nothing.
func (c *Chunk) Done() {
	if c == nil {
		return
	}
	switch n := c.refs.Add(-1); {
	case n < 0:
		panic("sockets: Chunk.Done without a reference")
	case n == 0:
		if poison {
			b := c.Buf.Bytes()
			for i := range b {
				b[i] = '#'
			}
		}
		if c.Buf.Cap() <= maxChunk {
			chunks.Put(c)
		}
	}
}

// poison, set by tests, overwrites a chunk's bytes when it is given back:
// a fragment read after its chunk went back shows it.
var poison bool

// Counter counts events (a prometheus.Counter is one). A nil Counter
// counts nothing.
type Counter interface{ Inc() }

func inc(c Counter) {
	if c != nil {
		c.Inc()
	}
}

// buffers are the scratch space of rendering and writing frames: every
// frame of every session passes through one, and allocating them afresh was
// a quarter of the garbage of a busy server.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// GetBuffer returns an empty scratch buffer; give it back with PutBuffer.
func GetBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// PutBuffer returns a buffer GetBuffer gave. Its bytes must no longer be
// used.
func PutBuffer(b *bytes.Buffer) { buffers.Put(b) }
