package server

import (
	"bytes"
	"context"
	"hash/maphash"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	t "github.com/reconcile-demo/reconcile-demo/templates"
)

// chartTick is how often a watched demo re-renders while its chart still
// scrolls (the last change is less than a window old). Nothing else ticks.
const chartTick = time.Second

// session owns one visitor's demo. Its goroutine (run) is the only code that
// touches the demo, the attached connection and the record of what was
// sent; everything else talks to it through its channels.
type session struct {
	id   string
	kind string // "reconcile" or "operator"
	lang t.Lang
	addr string // the visitor's address, for per-address limits

	cmds   chan command  // from the attached connection's readPump
	attach chan *wsConn  // a new connection takes over
	detach chan *wsConn  // a connection ended
	done   chan struct{} // closed when run returns

	// Owned by run.
	demo       demo
	conn       *wsConn
	sent       map[string]uint64 // hash of each fragment last handed to conn
	errText    string            // the refusal shown until the next accepted action
	restorable bool              // no action yet: a snapshot may replace the demo
	lastReal   time.Time         // when the demo's clock last advanced
	reconciles int               // the demo's reconcile count already reported
}

func newSession(id, kind string, lang t.Lang, addr string, opt sim.Options) *session {
	return &session{id: id, kind: kind, lang: lang, addr: addr,
		cmds: make(chan command, 4), attach: make(chan *wsConn), detach: make(chan *wsConn, 1),
		done: make(chan struct{}), demo: newDemo(kind, opt), restorable: true}
}

// run is the session's goroutine. It ends when no connection has been
// attached for ttl, or when ctx ends (the server drains), and then tells the
// hub.
func (s *session) run(ctx context.Context, srv *Server) {
	defer close(s.done)
	defer srv.hub.remove(s)
	s.lastReal = time.Now()
	// The page was rendered from this very starting state, so the first
	// connection needs only what changes after it.
	s.sent = s.hashes(s.demo.fragments(s.lang, s.id, "", true))
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	expire := time.NewTimer(srv.cfg.SessionTTL)
	defer wake.Stop()
	defer expire.Stop()
	for {
		select {
		case <-ctx.Done():
			if s.conn != nil {
				s.conn.closeWith(closeServiceRestart, "server restarting")
			}
			return
		case c := <-s.attach:
			if s.conn != nil {
				s.conn.closeWith(closeNormal, "replaced by a newer connection")
			}
			s.conn = c
			s.sent = nil // the page may have missed frames: send everything
			expire.Stop()
		case c := <-s.detach:
			if c == s.conn {
				s.conn = nil
				expire.Reset(srv.cfg.SessionTTL)
			}
		case c := <-s.cmds:
			s.advance()
			s.handle(c, srv)
		case <-wake.C:
			seq := s.demo.EventSeq()
			s.advance()
			if s.demo.EventSeq() == seq {
				// Only time moved (the chart scrolls, a countdown runs):
				// render only what time changes.
				s.flush(srv, false)
				s.schedule(wake)
				continue
			}
		case <-expire.C:
			if s.conn == nil {
				return
			}
		}
		s.flush(srv, true)
		s.schedule(wake)
	}
}

// advance moves the demo's virtual time by the real time since last.
func (s *session) advance() {
	now := time.Now()
	s.demo.Advance(now.Sub(s.lastReal))
	s.lastReal = now
}

func (s *session) handle(c command, srv *Server) {
	if c.reject != nil {
		s.errText = errorText(s.lang, c.reject)
		srv.metrics.rejected.WithLabelValues(c.reject.Reason).Inc()
		return
	}
	srv.metrics.actions.WithLabelValues(s.kind, c.Action).Inc()
	if c.Action == "restore" {
		s.restore(c, srv)
		return
	}
	if r := s.demo.apply(c); r != nil {
		s.errText = errorText(s.lang, r)
		srv.metrics.rejected.WithLabelValues(r.Reason).Inc()
		return
	}
	s.errText = ""
	s.restorable = false
}

// restore replaces a fresh demo with the page's snapshot. A session that has
// already acted keeps its own state: it is the truth, the page's copy may be
// older.
func (s *session) restore(c command, srv *Server) {
	if !s.restorable {
		return
	}
	s.restorable = false
	d, err := restoreDemo(s.kind, srv.opt, c.Snapshot)
	if err != nil {
		srv.log.Info("snapshot refused", "session", s.id[:8], "err", err)
		s.errText = errorText(s.lang, &rejection{Reason: reasonSnapshot, Key: "err.snapshot"})
		srv.metrics.rejected.WithLabelValues(reasonSnapshot).Inc()
		return
	}
	s.demo = d
	s.reconciles = d.reconciles()
	s.lastReal = time.Now()
	s.errText = ""
	s.sent = nil
}

// flush renders the fragments, and hands those that differ from what was
// last handed over to the connection's mailbox.
func (s *session) flush(srv *Server, all bool) {
	if n := s.demo.reconciles(); n != s.reconciles {
		srv.metrics.reconciles.WithLabelValues(s.kind).Add(float64(n - s.reconciles))
		s.reconciles = n
	}
	if s.conn == nil {
		return
	}
	var buf bytes.Buffer
	var changed []frag
	if s.sent == nil {
		s.sent = map[string]uint64{}
	}
	for _, f := range s.demo.fragments(s.lang, s.id, s.errText, all) {
		start := buf.Len()
		if err := f.comp.Render(context.Background(), &buf); err != nil {
			srv.log.Error("render fragment", "id", f.id, "err", err)
			return
		}
		h := maphash.Bytes(hashSeed, buf.Bytes()[start:])
		if old, ok := s.sent[f.id]; ok && old == h {
			buf.Truncate(start)
			continue
		}
		s.sent[f.id] = h
		changed = append(changed, frag{id: f.id, html: bytes.Clone(buf.Bytes()[start:])})
		buf.Truncate(start)
	}
	if len(changed) > 0 {
		s.conn.box.put(changed, srv.metrics)
	}
}

func (s *session) hashes(frags []fragment) map[string]uint64 {
	out := map[string]uint64{}
	var buf bytes.Buffer
	for _, f := range frags {
		buf.Reset()
		if err := f.comp.Render(context.Background(), &buf); err != nil {
			return nil // send everything on the first connection instead
		}
		out[f.id] = maphash.Bytes(hashSeed, buf.Bytes())
	}
	return out
}

// schedule arms wake for the next moment something changes by itself, only
// while someone watches: an unwatched demo catches up in one Advance when a
// connection returns, so it costs no CPU meanwhile.
func (s *session) schedule(wake *time.Timer) {
	wake.Stop()
	if s.conn == nil {
		return
	}
	due, ok := s.demo.NextDue()
	if s.demo.Now() < s.demo.LastChange()+s.demo.Window() && (!ok || due > chartTick) && !s.demo.Paused() {
		due, ok = chartTick, true
	}
	if ok {
		wake.Reset(max(due, time.Millisecond))
	}
}

var hashSeed = maphash.MakeSeed()
