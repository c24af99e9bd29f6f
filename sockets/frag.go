package sockets

import (
	"bytes"
	"sync"
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
}

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
