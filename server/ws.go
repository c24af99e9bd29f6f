package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// maxStrikes is how much refused input a socket may send before it is
// closed with 1008. Each refusal is a strike; strikes fade at one per
// second, so a visitor who mistypes is never cut off, and a script is.
const maxStrikes = 20

// reasonStrikes labels a 1008 closing caused by the session's refusals
// (a wrong room secret) rather than by the message that tipped it.
const reasonStrikes = "strikes"

// upgrader accepts same-origin sockets only. Buffers are small: frames are a
// few KB and the pool shares write buffers between idle sockets.
var upgrader = websocket.Upgrader{
	ReadBufferSize:  1024,
	WriteBufferSize: 4096,
	WriteBufferPool: &sync.Pool{},
	CheckOrigin:     sameOrigin,
}

// sameOrigin accepts a request without Origin (not a browser: no page of
// another site can make it) or with an Origin whose host is the request's.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}

// serveWS attaches a socket to the session its query names, creating the
// session when it does not exist on this process (a new page, a forged id,
// or a page coming back after a restart: it then sends its snapshot).
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("room") {
		s.serveFollower(w, r)
		return
	}
	kind, sid := s.kinds[q.Get("demo")], q.Get("sid")
	if kind == nil {
		http.Error(w, "unknown demo", http.StatusBadRequest)
		return
	}
	if !validSID(sid) {
		http.Error(w, "malformed session id", http.StatusBadRequest)
		return
	}
	if !sameOrigin(r) {
		s.metrics.rejected.WithLabelValues(demo.ReasonOrigin).Inc()
		http.Error(w, "cross-origin WebSocket refused", http.StatusForbidden)
		return
	}
	lang := ui.ParseLang(q.Get("lang"))
	sess, _, err := s.hub.joinSession(r.Context(), sid, kind, s.clientAddr(r), lang)
	if errors.Is(err, errMismatch) {
		http.Error(w, "session belongs to another demo", http.StatusBadRequest)
		return
	}
	ws, uerr := upgrader.Upgrade(w, r, nil)
	if uerr != nil {
		return // the upgrader has answered
	}
	if err != nil {
		code, reason := sockets.CloseTryAgainLater, "over capacity, try again later"
		if errors.Is(err, errDraining) || r.Context().Err() != nil {
			code, reason = sockets.CloseServiceRestart, "server restarting"
		}
		sockets.Refuse(ws, code, reason)
		return
	}
	c := sockets.New(ws, pageOrigin(r), s.socketOptions())
	select {
	case sess.attach <- c:
	case <-sess.done:
		// The session ended between join and attach (expired, or the server
		// drains): the page reconnects and gets a new one.
		c.CloseWith(sockets.CloseServiceRestart, "session ended")
		return
	}
	s.metrics.sockets.Inc()
	// Read on a goroutine of its own and let the handler return, as
	// gorilla's chat example does: net/http then frees the connection's
	// buffers, request and handler stack (about half of a socket's memory).
	go func() {
		defer s.metrics.sockets.Dec()
		s.readPump(c, func(msg []byte) demo.Command { return demo.Decode(sess.kind, msg) }, func(cmd demo.Command) bool {
			select {
			case sess.cmds <- cmd:
				return true
			case <-sess.done:
				return false
			}
		})
		select {
		case sess.detach <- c:
		case <-sess.done:
		}
	}()
}

// pageOrigin is the origin of the page a socket comes from: its Origin
// header (sameOrigin has checked it is this host), or the host it asked.
func pageOrigin(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	return "http://" + r.Host
}

// readPump reads the socket until it fails or is closed. It is the only
// reader. It decodes each message (a refusal is a strike, and so is a
// refusal the session reports on the connection) and delivers the command
// (to the session, which shows a refusal too) until deliver says the
// receiver is gone.
func (s *Server) readPump(c *sockets.Conn, decode func([]byte) demo.Command, deliver func(demo.Command) bool) {
	bucket := sockets.NewBucket(s.cfg.ActionRate, s.cfg.ActionBurst)
	var strikes float64
	last := time.Now()
	err := c.Read(func(msg []byte) bool {
		now := time.Now()
		var cmd demo.Command
		if bucket.Allow(now) {
			cmd = decode(msg)
		} else {
			cmd = demo.RateLimited()
		}
		strikes = max(0, strikes-now.Sub(last).Seconds()) + float64(c.TakeStrikes())
		last = now
		if cmd.Reject != nil {
			strikes++
		}
		if strikes >= maxStrikes {
			reason := reasonStrikes // the session's refusals filled the tally
			if cmd.Reject != nil {
				reason = cmd.Reject.Reason
			}
			s.metrics.rejected.WithLabelValues(reason).Inc()
			c.CloseWith(sockets.ClosePolicy, "too many refused messages")
			return false
		}
		return deliver(cmd)
	})
	switch {
	case errors.Is(err, sockets.ErrTooBig):
		s.metrics.rejected.WithLabelValues(demo.ReasonTooBig).Inc()
		c.CloseWith(sockets.CloseTooBig, "message too big")
	case errors.Is(err, sockets.ErrBinary):
		s.metrics.rejected.WithLabelValues(demo.ReasonBinary).Inc()
		c.CloseWith(sockets.CloseUnsupported, "binary messages are not accepted")
	}
}

// socketOptions are what the server's sockets count, and the goroutines
// that write to them: the ones that run sessions' wakes (hub.spawn).
func (s *Server) socketOptions() sockets.Options {
	return sockets.Options{Sent: s.metrics.framesSent, Coalesced: s.metrics.framesCoalesced, Go: s.hub.spawn}
}
