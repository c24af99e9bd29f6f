package server

import (
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
	// under 300 bytes, a snapshot with the most pods allowed under 4 KB.
	maxMessage = 8 << 10
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
	pending []frag        // at most one per id, in first-put order
	notify  chan struct{} // capacity 1: "pending is not empty"
}

func newMailbox() *mailbox { return &mailbox{notify: make(chan struct{}, 1)} }

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
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

// take returns everything pending as one frame, or nil.
func (b *mailbox) take() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		return nil
	}
	n := 0
	for _, f := range b.pending {
		n += len(f.html)
	}
	out := make([]byte, 0, n)
	for _, f := range b.pending {
		out = append(out, f.html...)
	}
	clear(b.pending) // drop the sent fragments, or the array keeps them alive
	b.pending = b.pending[:0]
	return out
}

// wsConn is one browser socket attached to a session: exactly one reader
// (readPump) and one writer (writePump).
type wsConn struct {
	ws     *websocket.Conn
	box    *mailbox
	closed chan struct{} // closed once, by closeWith, to stop the writer
	once   sync.Once
	code   int
	reason string
}

func newWSConn(ws *websocket.Conn) *wsConn {
	return &wsConn{ws: ws, box: newMailbox(), closed: make(chan struct{})}
}

// closeWith asks the writer to send a close frame with code and end the
// connection. Safe from any goroutine; the first call wins.
func (c *wsConn) closeWith(code int, reason string) {
	c.once.Do(func() {
		c.code, c.reason = code, reason
		close(c.closed)
	})
}

// writePump sends frames, pings and finally the close frame. It is the only
// goroutine that writes data frames on the socket.
func (c *wsConn) writePump(m *metrics) {
	ping := time.NewTicker(pingPeriod)
	defer func() {
		ping.Stop()
		c.ws.Close()
	}()
	for {
		select {
		case <-c.box.notify:
			frame := c.box.take()
			if frame == nil {
				continue
			}
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
				c.closeWith(closeNormal, "")
				return
			}
			m.framesSent.Inc()
		case <-ping.C:
			c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.PingMessage, nil); err != nil {
				c.closeWith(closeNormal, "")
				return
			}
		case <-c.closed:
			if frame := c.box.take(); frame != nil && c.code != closeTooBig {
				// Say why before closing: the refusal fragment, if any.
				c.ws.SetWriteDeadline(time.Now().Add(writeWait))
				if c.ws.WriteMessage(websocket.TextMessage, frame) == nil {
					m.framesSent.Inc()
				}
			}
			c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(c.code, c.reason),
				time.Now().Add(writeWait))
			return
		}
	}
}
