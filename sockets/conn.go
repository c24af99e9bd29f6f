package sockets

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// Timing and size limits of a WebSocket connection, as in gorilla's chat
// example.
const (
	// WriteWait is how long one write may take; a browser that does not
	// drain its socket for this long is dropped.
	WriteWait = 10 * time.Second
	// PongWait is how long the reader waits for any message or pong.
	PongWait = 60 * time.Second
	// PingPeriod is how often the writer pings. Half of PongWait (gorilla's
	// example uses 9/10) leaves a busy server or browser a whole period to
	// answer before the read deadline drops a live visitor.
	PingPeriod = PongWait / 2
	// MaxMessage is the largest message a browser may send: an action is
	// under 300 bytes; a restore carries a snapshot (6 KB at most) and the
	// timeline beside it (24 KB at most, demos/demo.MaxMomentLen).
	MaxMessage = 32 << 10
)

// Close codes (RFC 6455 and DESIGN.md). htmx-ext-ws reconnects on 1006,
// 1011, 1012 and 1013 only.
const (
	CloseNormal         = websocket.CloseNormalClosure   // 1000: replaced by another tab, a room ended
	CloseUnsupported    = websocket.CloseUnsupportedData // 1003: binary frame
	ClosePolicy         = websocket.ClosePolicyViolation // 1008: flood or repeated abuse
	CloseTooBig         = websocket.CloseMessageTooBig   // 1009: over MaxMessage
	CloseServiceRestart = websocket.CloseServiceRestart  // 1012: the server drains
	CloseTryAgainLater  = websocket.CloseTryAgainLater   // 1013: over capacity, a room full
)

// Errors of Read: the peer broke a limit, and the socket is to close
// with 1009 or 1003.
var (
	ErrTooBig = errors.New("message too big")
	ErrBinary = errors.New("binary message")
)

// Options are what a connection counts (nil counters count nothing) and
// how it starts its writer.
type Options struct {
	Sent      Counter // frames written
	Coalesced Counter // frames merged into an unsent one
	// Go runs f on a goroutine of its own and returns at once: the
	// server's hands the writer to a goroutine that wrote before and kept
	// its stack. Nil starts a new goroutine.
	Go func(f func())
}

// Conn is one browser socket: exactly one reader (Read, for as long as the
// socket lives) and at most one writer at a time. The writer is a goroutine
// that exists only while there is something to write: a frame, a ping or
// the close frame. An idle socket (most of them: a converged demo in an
// open tab) then costs one goroutine, the reader, as a bare hub's reader
// does; a writer parked in a select for every idle tab was a third of a
// session's stacks.
type Conn struct {
	ws      *websocket.Conn // nil: a detached connection, which only collects frames
	origin  string          // the page's origin, as its socket's handshake said
	box     Mailbox
	sent    Counter
	start   func(func())  // Options.Go
	closed  chan struct{} // closed once, by CloseWith: the connection is ending
	once    sync.Once
	pinger  *time.Timer
	strikes atomic.Int32 // refusals decided away from the reader, for it to count
	// held, while set, is the one fragment id Put still lets through: the
	// page shows a view of its own (a room's follower looking at the past)
	// and only PutOwn reaches it, but that fragment (the room's banner).
	held atomic.Pointer[string]

	mu       sync.Mutex // guards the fields below
	writing  bool       // a writer goroutine runs (or the socket is finished)
	ping     bool       // a ping is due
	closing  bool       // the close frame is due
	code     int
	reason   string
	finished bool // the socket is closed: nothing more is written
}

// New wraps an upgraded socket whose page came from origin.
func New(ws *websocket.Conn, origin string, o Options) *Conn {
	c := &Conn{ws: ws, origin: origin, sent: o.Sent, start: o.Go, closed: make(chan struct{})}
	c.box.coalesced = o.Coalesced
	c.box.wake = c.kick
	c.pinger = time.AfterFunc(PingPeriod, c.pingNow)
	return c
}

// Detached returns a connection without a socket: it collects frames (Take
// reads them) and remembers how it was closed. Tests use it as a browser
// that never reads on its own.
func Detached() *Conn { return &Conn{closed: make(chan struct{})} }

// Origin is the origin of the page the socket comes from.
func (c *Conn) Origin() string { return c.origin }

// Put hands fragments to the writer. It never blocks. While the
// connection is held (Hold), only the fragment it lets through is handed on.
func (c *Conn) Put(frags []Frag) {
	if keep := c.held.Load(); keep != nil {
		var pass []Frag
		for _, f := range frags {
			if f.ID == *keep {
				pass = append(pass, f)
			} else {
				f.Chunk.Done()
			}
		}
		if len(pass) == 0 {
			return
		}
		frags = pass
	}
	c.box.Put(frags)
}

// Hold stops Put from reaching the page but for the fragment whose id is
// keep, until Release: the page shows a view of its own, which PutOwn sends.
func (c *Conn) Hold(keep string) { c.held.Store(&keep) }

// Release lets Put reach the page again.
func (c *Conn) Release() { c.held.Store(nil) }

// Held reports whether the connection is held.
func (c *Conn) Held() bool { return c.held.Load() != nil }

// PutOwn hands fragments to the writer whether or not the connection is
// held: the page's own view.
func (c *Conn) PutOwn(frags []Frag) { c.box.Put(frags) }

// Take returns what is pending as one frame, or nil (Detached).
func (c *Conn) Take() []byte { return c.box.Take() }

// Closed is closed once the connection is ending.
func (c *Conn) Closed() <-chan struct{} { return c.closed }

// CloseCode is the code CloseWith was called with; 0 before.
func (c *Conn) CloseCode() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.code
}

// Strike records a refusal decided elsewhere than the reader (by the
// session that owns the demo); the reader counts it with its own.
func (c *Conn) Strike() { c.strikes.Add(1) }

// TakeStrikes returns the strikes recorded since the last call.
func (c *Conn) TakeStrikes() int { return int(c.strikes.Swap(0)) }

// kick starts the writer unless one runs.
func (c *Conn) kick() {
	c.mu.Lock()
	if c.writing || c.finished || c.ws == nil {
		c.mu.Unlock()
		return
	}
	c.writing = true
	c.mu.Unlock()
	if c.start != nil {
		c.start(c.write)
	} else {
		go c.write()
	}
}

// pingNow asks the writer for a ping, and arms the next one.
func (c *Conn) pingNow() {
	c.mu.Lock()
	if c.finished {
		c.mu.Unlock()
		return
	}
	c.ping = true
	c.mu.Unlock()
	c.kick()
	c.pinger.Reset(PingPeriod)
}

// CloseWith asks the writer to send a close frame with code and end the
// connection. Safe from any goroutine; the first call wins.
func (c *Conn) CloseWith(code int, reason string) {
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
func (c *Conn) write() {
	for {
		c.mu.Lock()
		ping, closing, code, reason := c.ping, c.closing, c.code, c.reason
		c.ping = false
		frame := GetBuffer()
		pending := c.box.WriteTo(frame)
		if !pending && !ping && !closing {
			c.writing = false
			c.mu.Unlock()
			PutBuffer(frame)
			return
		}
		c.mu.Unlock()
		// Before closing, say why: the refusal fragment, if any (not to a
		// peer that sent too much: it is not listening).
		if pending && !(closing && code == CloseTooBig) {
			c.ws.SetWriteDeadline(time.Now().Add(WriteWait))
			err := c.ws.WriteMessage(websocket.TextMessage, frame.Bytes())
			PutBuffer(frame)
			if err != nil {
				c.finish()
				return
			}
			inc(c.sent)
		} else {
			PutBuffer(frame)
		}
		if ping && !closing {
			c.ws.SetWriteDeadline(time.Now().Add(WriteWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				c.finish()
				return
			}
		}
		if closing {
			if c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(WriteWait)) == nil {
				c.linger()
			}
			c.finish()
			return
		}
	}
}

// CloseLinger bounds how long a closed socket waits for its peer to close
// too, after the close frame.
const CloseLinger = time.Second

// linger lets the peer read the close frame before the socket closes. A
// socket closed with unread input (a peer still sending: a flood, a
// message too big) is reset by the kernel, and a reset can discard the
// close frame before the peer reads it, so the peer would not learn why.
// So the close frame is followed by the end of what this side sends, and
// what the peer still sends is read and dropped until it closes too, or
// CloseLinger passes.
func (c *Conn) linger() {
	nc := c.ws.NetConn()
	if hc, ok := nc.(interface{ CloseWrite() error }); ok {
		hc.CloseWrite()
	}
	nc.SetReadDeadline(time.Now().Add(CloseLinger))
	io.Copy(io.Discard, nc)
}

// finish closes the socket for good: the reader fails on its next read and
// nothing more is written.
func (c *Conn) finish() {
	c.mu.Lock()
	c.finished = true
	c.mu.Unlock()
	c.pinger.Stop()
	c.ws.Close()
}

// Read reads text messages until the socket fails or is closed, or handle
// returns false, and then closes the connection (1000 unless it was closed
// already). It is the only reader. A message over MaxMessage ends it with
// ErrTooBig, a binary one with ErrBinary: the caller then closes the
// connection with CloseTooBig or CloseUnsupported, after counting it.
func (c *Conn) Read(handle func(msg []byte) bool) error {
	ws := c.ws
	ws.SetReadLimit(MaxMessage)
	ws.SetReadDeadline(time.Now().Add(PongWait))
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(PongWait)) })
	for {
		mt, msg, err := ws.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				return ErrTooBig
			}
			c.CloseWith(CloseNormal, "")
			return nil
		}
		ws.SetReadDeadline(time.Now().Add(PongWait))
		if mt != websocket.TextMessage {
			return ErrBinary
		}
		if !handle(msg) {
			c.CloseWith(CloseNormal, "")
			return nil
		}
	}
}

// Refuse closes a socket that never became a Conn with code and reason.
func Refuse(ws *websocket.Conn, code int, reason string) {
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(WriteWait))
	ws.Close()
}
