package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// client is one simulated visitor: a page load and its socket.
type client struct {
	r     *runner
	sid   string
	conn  *websocket.Conn
	ready chan struct{} // closed at the first frame
	done  chan struct{} // closed when the reader has ended
	once  sync.Once

	closing atomic.Bool // we are closing: a close frame or EOF is expected
	dead    atomic.Bool // the socket ended before we closed it

	mu       sync.Mutex
	inflight *pendingAction // the action waiting for its frame, if any
	freed    chan struct{}  // capacity 1: "inflight was answered"
}

type pendingAction struct {
	step int       // the load step sent
	due  time.Time // when the schedule wanted it sent
	sent time.Time // when it was sent
}

// open loads the demo page, reads its session id and socket URL, and dials
// the socket with the page's origin, as a browser does. On failure it
// returns the error's kind for the report.
func open(ctx context.Context, r *runner) (*client, string, error) {
	if r.shape.echo {
		return dial(ctx, r, pageSession{WSURL: wsURL(r.cfg.URL.JoinPath("/ws"))}, r.cfg.URL)
	}
	pageURL := r.cfg.URL.JoinPath(r.shape.page)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL.String(), nil)
	if err != nil {
		return nil, "page_request", err
	}
	resp, err := r.pages.Do(req)
	if err != nil {
		return nil, classify("page", err), err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	resp.Body.Close()
	if err != nil {
		return nil, classify("page_read", err), err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Sprintf("page_http_%d", resp.StatusCode), fmt.Errorf("GET %s: %s", pageURL, resp.Status)
	}
	ps, err := parsePage(body, pageURL)
	if err != nil {
		return nil, "page_parse", err
	}
	return dial(ctx, r, ps, pageURL)
}

// dial opens the session's socket with the page's origin.
func dial(ctx context.Context, r *runner, ps pageSession, pageURL *url.URL) (*client, string, error) {
	hdr := http.Header{"Origin": {origin(pageURL)}}
	conn, resp, err := r.dialer.DialContext(ctx, ps.WSURL, hdr)
	if err != nil {
		if resp != nil {
			return nil, fmt.Sprintf("dial_http_%d", resp.StatusCode), err
		}
		return nil, classify("dial", err), err
	}
	c := &client{r: r, sid: ps.SID, conn: conn, ready: make(chan struct{}), done: make(chan struct{}),
		freed: make(chan struct{}, 1)}
	if r.shape.echo {
		c.once.Do(func() { close(c.ready) }) // a bare hub sends no first frame
	}
	go c.read()
	return c, "", nil
}

// read is the socket's only reader: it counts frames, resolves the
// actions a frame answers, and records how the socket ended.
func (c *client) read() {
	defer close(c.done)
	for {
		mt, r, err := c.conn.NextReader()
		var buf *bytes.Buffer
		if err == nil {
			buf = frameBufs.Get().(*bytes.Buffer)
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			if c.closing.Load() {
				return // we closed: whatever ends the read is expected
			}
			c.dead.Store(true)
			c.r.live.Add(-1)
			c.r.errs.add(classify("read", err), err)
			return
		}
		now := time.Now()
		if mt == websocket.TextMessage {
			msg := buf.Bytes()
			c.r.framesReceived.Add(1)
			c.once.Do(func() { close(c.ready) })
			c.resolve(msg, now)
			if c.r.shape.shownError(msg) {
				c.r.errs.add("action_refused", errors.New("a frame showed the demo's error box"))
			}
		}
		frameBufs.Put(buf)
	}
}

// frameBufs hold a frame while it is read: the generator shares the machine
// with the server, and a new array for every frame (ReadMessage) made its
// garbage collector a fifth of its CPU.
var frameBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// resolve records the latency of the action in flight if the frame shows
// it done. Each session has at most one action in flight and no step's
// answer is on the page before it (demotest.CheckLoad holds each demo to
// that), so the match is exact.
func (c *client) resolve(frame []byte, at time.Time) {
	c.mu.Lock()
	p := c.inflight
	if p == nil || !c.r.shape.answers(p.step, frame) {
		c.mu.Unlock()
		return
	}
	c.inflight = nil
	c.mu.Unlock()
	c.r.lat.add(at.Sub(p.sent))
	c.r.latSched.add(at.Sub(p.due))
	c.r.answered.Add(1)
	select {
	case c.freed <- struct{}{}:
	default:
	}
}

// startClose sends a normal close frame; the server answers with its own
// and the reader ends.
func (c *client) startClose() {
	c.closing.Store(true)
	err := c.conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, "load test done"), time.Now().Add(2*time.Second))
	if err != nil && !c.dead.Load() && !errors.Is(err, websocket.ErrCloseSent) {
		c.r.errs.add(classify("close", err), err)
	}
}
