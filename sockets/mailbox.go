package sockets

import (
	"bytes"
	"sync"
)

// Mailbox holds the newest unsent version of each fragment. Put never
// blocks: a newer version of a fragment replaces an unsent one (our state
// is level-based, so only the latest matters), and the writer takes
// everything at once. A fragment that adds to the page's (Frag.Full) and
// finds an unsent version is taken whole instead. Its size is bounded by
// the number of fragment ids. A fragment's Chunk is given back when the
// fragment is written or replaced.
type Mailbox struct {
	mu        sync.Mutex
	pending   []Frag  // at most one per id, in first-put order
	array     *[]Frag // pending's, from the pool (pendings)
	wake      func()  // called after every put: starts the writer; nil when nobody writes
	coalesced Counter // puts that found unsent fragments
}

// Put adds frags, replacing unsent versions of the same ids.
func (b *Mailbox) Put(frags []Frag) {
	b.mu.Lock()
	coalesced := len(b.pending) > 0
	for _, f := range frags {
		replaced := false
		for i := range b.pending {
			if b.pending[i].ID == f.ID {
				if f.Full != nil {
					// What f adds to is not on the page yet.
					f.Chunk.Done()
					f = Frag{ID: f.ID, HTML: f.Full()}
				}
				b.pending[i].Chunk.Done()
				b.pending[i] = f
				replaced = true
				break
			}
		}
		if !replaced {
			if b.pending == nil {
				b.array = pendings.Get().(*[]Frag)
				b.pending = *b.array
			}
			b.pending = append(b.pending, f)
		}
	}
	b.mu.Unlock()
	if coalesced {
		inc(b.coalesced)
	}
	if b.wake != nil {
		b.wake()
	}
}

// WriteTo writes everything pending to buf as one frame, and reports
// whether there was anything.
func (b *Mailbox) WriteTo(buf *bytes.Buffer) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		return false
	}
	for _, f := range b.pending {
		buf.Write(f.HTML)
		f.Chunk.Done()
	}
	// The array goes back to the pool, not to the mailbox: an idle
	// session keeps none.
	clear(b.pending)
	*b.array = b.pending[:0]
	pendings.Put(b.array)
	b.pending, b.array = nil, nil
	return true
}

// pendings are the arrays of mailboxes' pending fragments between writes.
var pendings = sync.Pool{New: func() any { return new([]Frag) }}

// Take returns everything pending as one frame, or nil: what a writer
// would send next. For connections without a socket (Detached).
func (b *Mailbox) Take() []byte {
	var buf bytes.Buffer
	if !b.WriteTo(&buf) {
		return nil
	}
	return buf.Bytes()
}
