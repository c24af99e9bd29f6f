package server

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"

	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// A page of fresh demos is the same for every visitor but for its session
// ids: the page names them last, in its tail (the text of <p id="sids">,
// the page's last element, whose end tags and the body's and the html's
// HTML leaves out; static/app.js hands them to the demos before htmx
// connects their sockets), and
// links to a moment by path, not by the host it was asked on. So everything
// before the tail is rendered once per route, language and mode, and
// compressed once at Brotli's best; a visit costs its tail. A Brotli stream
// can go on after a flush with a meta-block that holds bytes as they are:
// the tail is written that way, and the stream ends after it.

// page is a page before its tail: its HTML and its Brotli stream, flushed
// (not ended), at pageBrotli at once and at the best once it is made.
type page struct {
	html  []byte // up to the tail
	quick []byte
	best  atomic.Pointer[[]byte]
}

// sidsOpen opens the element whose text is the tail: the last of the page.
const sidsOpen = `<p id="sids" hidden>`

// newPage cuts a rendered page at its </body>, where its tail goes.
func newPage(rendered []byte) *page {
	i := bytes.LastIndex(rendered, []byte("</body>"))
	if i < 0 {
		i = len(rendered)
	}
	pg := &page{html: append(rendered[:i:i], sidsOpen...)}
	pg.quick = brotliFlushed(pg.html, pageBrotli)
	return pg
}

// brotli returns the page's Brotli stream so far: the best if it is made.
func (pg *page) brotli() []byte {
	if b := pg.best.Load(); b != nil {
		return *b
	}
	return pg.quick
}

// tail is the end of a page: its demos' session ids, in the order of the
// demos (hex digits: nothing to escape).
func tail(sids []string) []byte { return []byte(strings.Join(sids, " ")) }

// brotliFlushed compresses b into a Brotli stream that is flushed but not
// ended: more meta-blocks may follow.
func brotliFlushed(b []byte, quality int) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, quality)
	w.Write(b)
	w.Flush()
	return buf.Bytes()
}

// brotliEnd appends to stream, a flushed Brotli stream or what follows one,
// meta-blocks that hold b as it is, and the last, empty, meta-block that
// ends the stream (RFC 7932, 9.2: ISLAST, MNIBBLES, MLEN-1, ISUNCOMPRESSED,
// then the bytes from the next byte boundary).
func brotliEnd(stream, b []byte) []byte {
	for len(b) > 0 {
		n := min(len(b), 1<<16) // four nibbles of MLEN-1
		v := uint32(n-1)<<3 | 1<<19
		stream = append(stream, byte(v), byte(v>>8), byte(v>>16))
		stream = append(stream, b[:n]...)
		b = b[n:]
	}
	return append(stream, 0b11) // ISLAST, ISLASTEMPTY
}

// pageKey names the pages every visitor gets alike: the route (which says
// the demo, or the index, and whether it is embedded), the language and
// projector mode. There are a few dozen.
type pageKey struct {
	path    string
	lang    ui.Lang
	present bool
}

// pageCache holds the pages of fresh demos, each rendered once; their best
// Brotli streams are made in the background, one at a time.
type pageCache struct {
	mu    sync.Mutex
	pages map[pageKey]*page
	// making counts the best streams being made (tests wait for them).
	making sync.WaitGroup
}

func newPageCache() *pageCache { return &pageCache{pages: map[pageKey]*page{}} }

func (c *pageCache) get(k pageKey) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[k]
}

// put keeps pg as the page of k, unless another visit kept one first, and
// returns the page kept. A new page's best stream is made in the
// background.
func (c *pageCache) put(k pageKey, pg *page) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept := c.pages[k]; kept != nil {
		return kept
	}
	c.pages[k] = pg
	c.making.Add(1)
	go func() {
		defer c.making.Done()
		if best := bestPage(pg.html); len(*best) < len(pg.quick) {
			pg.best.Store(best)
		}
	}()
	return pg
}

var (
	// bestPages remembers the best Brotli streams of pages by content: a
	// process makes each once, however many servers it starts.
	bestPages sync.Map // [32]byte → *[]byte
	// bestPageWork lets one best stream be made at a time: each takes a
	// tenth of a second or so, and visits go on meanwhile.
	bestPageWork = make(chan struct{}, 1)
)

func bestPage(html []byte) *[]byte {
	sum := sha256.Sum256(html)
	if b, ok := bestPages.Load(sum); ok {
		return b.(*[]byte)
	}
	bestPageWork <- struct{}{}
	defer func() { <-bestPageWork }()
	best := brotliFlushed(html, brotli.BestCompression)
	b, _ := bestPages.LoadOrStore(sum, &best)
	return b.(*[]byte)
}
