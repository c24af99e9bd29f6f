package server

import (
	"bytes"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Timing and size limits of a WebSocket connection, as in gorilla's chat
// example.
const (
	// writeWait is how long one write may take; a browser that does not
	// drain its socket for this long is dropped.
	writeWait = 10 * time.Second
	// pongWait is how long the reader waits for any message or pong.
	pongWait = 60 * time.Second
	// pingPeriod is how often the writer pings. Half of pongWait (gorilla's
	// example uses 9/10) leaves a busy server or browser a whole period to
	// answer before the read deadline drops a live visitor.
	pingPeriod = pongWait / 2
	// maxMessage is the largest message a browser may send: an action is
	// under 300 bytes; a restore carries a snapshot (6 KB at most) and the
	// timeline beside it (demo.MaxMomentLen, 24 KB).
	maxMessage = 32 << 10
)

// Close codes (RFC 6455 and DESIGN.md). htmx-ext-ws reconnects on 1006,
// 1011, 1012 and 1013 only.
const (
	closeNormal         = websocket.CloseNormalClosure   // 1000: replaced by another tab
	closeUnsupported    = websocket.CloseUnsupportedData // 1003: binary frame
	closePolicy         = websocket.ClosePolicyViolation // 1008: flood or repeated abuse
	closeTooBig         = websocket.CloseMessageTooBig   // 1009: over maxMessage
	closeServiceRestart = websocket.CloseServiceRestart  // 1012: the server drains
	closeTryAgainLater  = websocket.CloseTryAgainLater   // 1013: over capacity
)

// frag is a rendered fragment waiting to be sent.
type frag struct {
	id   string
	html []byte
}

// mailbox holds the newest unsent version of each fragment. put never
// blocks: a newer version of a fragment replaces an unsent one (our state is
// level-based, so only the latest matters), and the writer takes everything
// at once. Its size is bounded by the number of fragment ids.
type mailbox struct {
	mu      sync.Mutex
	pending []frag // at most one per id, in first-put order
	wake    func() // called after every put: starts the writer; nil when nobody writes (tests)
}

func (b *mailbox) put(frags []frag, m *metrics) {
	b.mu.Lock()
	coalesced := len(b.pending) > 0
	for _, f := range frags {
		replaced := false
		for i := range b.pending {
			if b.pending[i].id == f.id {
				b.pending[i] = f
				replaced = true
				break
			}
		}
		if !replaced {
			b.pending = append(b.pending, f)
		}
	}
	b.mu.Unlock()
	if coalesced {
		m.framesCoalesced.Inc()
	}
	if b.wake != nil {
		b.wake()
	}
}

// writeTo writes everything pending to buf as one frame, and reports
// whether there was anything.
func (b *mailbox) writeTo(buf *bytes.Buffer) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		return false
	}
	for _, f := range b.pending {
		buf.Write(f.html)
	}
	b.pending = nil // drop the sent fragments and their array
	return true
}

// buffers are the scratch space of rendering and writing frames: every
// frame of every session passes through one, and allocating them afresh was
// a quarter of the garbage of a busy server.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// wsConn is one browser socket: exactly one reader (readPump, for as long
// as the socket lives) and at most one writer at a time. The writer is a
// goroutine that exists only while there is something to write: a frame,
// a ping or the close frame. An idle socket (most of them: a converged demo
// in an open tab) then costs one goroutine, the reader, as a bare hub's
// reader does; a writer parked in a select for every idle tab was a third
// of a session's stacks.
type wsConn struct {
	ws     *websocket.Conn
	origin string // the page's origin, as its socket's handshake said
	box    mailbox
	m      *metrics
	closed chan struct{} // closed once, by closeWith: the connection is ending
	once   sync.Once
	pinger *time.Timer

	mu       sync.Mutex // guards the fields below
	writing  bool       // a writer goroutine runs (or the socket is finished)
	ping     bool       // a ping is due
	closing  bool       // the close frame is due
	code     int
	reason   string
	finished bool // the socket is closed: nothing more is written
}

func newWSConn(ws *websocket.Conn, m *metrics) *wsConn {
	c := &wsConn{ws: ws, m: m, closed: make(chan struct{})}
	c.box.wake = c.kick
	c.pinger = time.AfterFunc(pingPeriod, c.pingNow)
	return c
}

// kick starts the writer unless one runs. A connection without a socket
// (the session tests' stand-in for a browser) only collects frames.
func (c *wsConn) kick() {
	c.mu.Lock()
	if c.writing || c.finished || c.ws == nil {
		c.mu.Unlock()
		return
	}
	c.writing = true
	c.mu.Unlock()
	go c.write()
}

// pingNow asks the writer for a ping, and arms the next one.
func (c *wsConn) pingNow() {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.ping = true
	c.mu.Unlock()
	c.kick()
	c.pinger.Reset(pingPeriod)
}

// closeWith asks the writer to send a close frame with code and end the
// connection. Safe from any goroutine; the first call wins.
func (c *wsConn) closeWith(code int, reason string) {
	c.once.Do(func() {
		c.mu.Lock()
		c.closing, c.code, c.reason = true, code, reason
		c.mu.Unlock()
		close(c.closed)
		c.kick()
	})
}

// write sends what is due (frames, a ping, the close frame) until nothing
// is, then ends. It is the only goroutine that writes on the socket.
func (c *wsConn) write() {
	for {
		c.mu.Lock()
		ping, closing, code, reason := c.ping, c.closing, c.code, c.reason
		c.ping = false
		frame := getBuffer()
		pending := c.box.writeTo(frame)
		if !pending && !ping && !closing {
			c.writing = false
			c.mu.Unlock()
			buffers.Put(frame)
			return
		}
		c.mu.Unlock()
		// Before closing, say why: the refusal fragment, if any (not to a
		// peer that sent too much: it is not listening).
		if pending && !(closing && code == closeTooBig) {
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			err := c.ws.WriteMessage(websocket.TextMessage, frame.Bytes())
			buffers.Put(frame)
			if err != nil {
				c.finish()
				return
			}
			c.m.framesSent.Inc()
		} else {
			buffers.Put(frame)
		}
		if ping && !closing {
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				c.finish()
				return
			}
		}
		if closing {
			c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(writeWait))
			c.finish()
			return
		}
	}
}

// finish closes the socket for good: the reader fails on its next read and
// nothing more is written.
func (c *wsConn) finish() {
	c.mu.Lock()
	c.finished = true
	c.mu.Unlock()
	c.pinger.Stop()
	c.ws.Close()
}
