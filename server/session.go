package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// session owns one visitor's demo. Its goroutine (run) is the only code that
// touches the demo, the attached connection and the record of what was
// sent; everything else talks to it through its channels.
type session struct {
	id   string
	kind *demo.Kind
	lang ui.Lang
	addr string // the visitor's address, for per-address limits

	cmds   chan demo.Command  // from the attached connection's readPump
	attach chan *sockets.Conn // a new connection takes over
	detach chan *sockets.Conn // a connection ended
	inbox  roomInbox          // from the rooms: requests for the whole demo, news of its room
	done   chan struct{}      // closed when run returns
	host   roomHost           // the rooms, as the session reaches them

	// Owned by run.
	live       *demo.Live
	out        *demo.Renderer // the owner's frames: what was last handed to conn
	conn       *sockets.Conn
	errText    string     // the refusal shown until the next accepted action
	restorable bool       // no action yet: a snapshot may replace the demo
	lastReal   time.Time  // when the demo's clock last advanced
	snapAt     time.Time  // when the page last got the demo's snapshot (snapshotBeat)
	acted      bool       // a visitor's command came since the last frame
	expireAt   time.Time  // when the session ends if no connection attaches
	reconciles int        // the demo's reconcile count already reported
	origin     string     // the owner's page origin (for a room's join URL)
	room       *ownedRoom // the room its owner opened (or claimed back), or nil
	claiming   string     // the code of a claim not answered yet, or ""
	// claimRefused: the page's last claim was refused; its panel says so,
	// and the page forgets the room.
	claimRefused bool
}

func newSession(id string, kind *demo.Kind, lang ui.Lang, addr string, opt demo.Options, host roomHost) *session {
	return &session{id: id, kind: kind, lang: lang, addr: addr,
		cmds: make(chan demo.Command, 1), attach: make(chan *sockets.Conn), detach: make(chan *sockets.Conn, 1),
		inbox: roomInbox{poke: make(chan struct{}, 1)}, done: make(chan struct{}), host: host,
		live: demo.Start(kind, opt), restorable: true}
}

// run is the session's goroutine. It ends when no connection has been
// attached for ttl, or when ctx ends (the server drains), and then tells the
// hub. It wakes only for a command, a connection, a room's request, or the
// moment the demo says something changes by itself: the page runs the
// clock, the countdowns and the charts' scrolling from each frame, so time
// alone costs the server nothing.
func (s *session) run(ctx context.Context, srv *Server) {
	defer close(s.done)
	defer srv.hub.remove(s)
	s.lastReal = time.Now()
	s.expireAt = s.lastReal.Add(srv.cfg.SessionTTL)
	s.out = s.live.Renderer(s.view())
	s.out.Appends = true // its socket's mailbox takes every frame or asks the whole list
	// One timer serves both waits: the next moment something is due, while
	// anyone watches, and the end of the TTL, while no connection is
	// attached.
	timer := time.NewTimer(srv.cfg.SessionTTL)
	defer timer.Stop()
	for {
		var wake func() // what this wake does beside rendering
		select {
		case <-ctx.Done():
			// The server drains: the page reconnects elsewhere (or here,
			// restarted) and rebuilds the demo from its snapshot, and its
			// room from the secret it kept, so the room is not ended.
			if s.conn != nil {
				s.flushSnapshot(srv) // the page rebuilds the demo from it
				s.conn.CloseWith(sockets.CloseServiceRestart, "server restarting")
			}
			return
		case c := <-s.attach:
			if s.conn != nil {
				s.conn.CloseWith(sockets.CloseNormal, "replaced by a newer connection")
			}
			s.conn = c
			s.origin = c.Origin()
			s.out.Reset() // the page may have missed frames: send everything
		case c := <-s.detach:
			if c == s.conn {
				s.conn = nil
				s.expireAt = time.Now().Add(srv.cfg.SessionTTL)
			}
		case c := <-s.cmds:
			wake = func() {
				s.advance(srv.cfg.TimeScale)
				s.handle(c, srv)
				s.acted = true
			}
		case <-s.inbox.poke:
			wake = func() { s.readRoomMail(srv) }
		case <-timer.C:
			if s.conn == nil && !time.Now().Before(s.expireAt) {
				s.closeRoom() // nobody came back within the TTL
				return
			}
			wake = func() { s.advance(srv.cfg.TimeScale) }
		}
		srv.hub.aside(func() {
			if wake != nil {
				wake()
			}
			s.flush(srv)
			s.schedule(timer, srv.cfg.TimeScale)
		})
	}
}

// advance moves the demo's virtual time by the real time since last (times
// scale, the test-only Config.TimeScale).
func (s *session) advance(scale float64) {
	now := time.Now()
	s.live.Advance(time.Duration(float64(now.Sub(s.lastReal)) * scale))
	s.lastReal = now
}

func (s *session) view() demo.View {
	return demo.View{Lang: s.lang, SID: s.id, Error: s.errText, Room: s.roomProps(), Origin: s.origin}
}

func (s *session) handle(c demo.Command, srv *Server) {
	if c.Reject != nil {
		s.refused(c.Reject, srv)
		return
	}
	srv.metrics.actions.WithLabelValues(s.kind.Name, c.Action).Inc()
	srv.metrics.acted.Add(1)
	switch c.Action {
	case "restore", demo.ActMoment:
		s.restore(c, srv)
		return
	case demo.RoomOpen:
		s.openRoom(srv)
		return
	case demo.RoomClose:
		s.closeRoom()
		s.claimRefused = false
		return
	case demo.RoomClaim:
		s.claimRoom(c, srv)
		return
	}
	if err := s.live.Apply(c); err != nil {
		var r *demo.Rejection
		if !errors.As(err, &r) {
			// Decode lets through only the demo's own actions: this is a bug
			// of the demo, refused rather than crashing the session.
			srv.log.Error("apply", "demo", s.kind.Name, "action", c.Action, "err", err)
			r = demo.Refuse(demo.ReasonUnknownAction, "err.action", c.Action)
		}
		s.refused(r, srv)
		return
	}
	s.errText = ""
	s.restorable = false
}

func (s *session) refused(r *demo.Rejection, srv *Server) {
	s.errText = r.Text(s.lang)
	srv.metrics.rejected.WithLabelValues(r.Reason).Inc()
}

// restore replaces a fresh demo with the page's snapshot and its timeline,
// or, for a page opened from a link, with the link's moment. A session that
// has already acted keeps its own state: it is the truth, the page's copy
// may be older.
func (s *session) restore(c demo.Command, srv *Server) {
	if !s.restorable {
		return
	}
	s.restorable = false
	var d *demo.Live
	var err error
	if c.Action == demo.ActMoment {
		d, err = demo.OpenMoment(s.kind, srv.opt, c.Moment, time.Duration(c.At)*time.Millisecond)
	} else {
		d, err = demo.Resume(s.kind, srv.opt, c.Snapshot)
	}
	if err != nil {
		srv.log.Info("snapshot refused", "session", s.id[:8], "demo", s.kind.Name, "action", c.Action, "err", err)
		s.refused(demo.Refuse(demo.ReasonSnapshot, "err.snapshot"), srv)
		return
	}
	if c.Moment != "" && c.Action == "restore" {
		if err := d.RestoreTimeline(c.Moment); err != nil {
			srv.log.Info("timeline dropped", "session", s.id[:8], "demo", s.kind.Name, "err", err)
		}
	}
	s.live = d
	s.reconciles = d.Reconciles()
	s.lastReal = time.Now()
	s.errText = ""
	s.out.Retarget(d)
	s.retargetRoom()
}

// flush hands the connection's mailbox the fragments that changed since
// the last frame (the renderer renders only those whose inputs changed).
func (s *session) flush(srv *Server) {
	// The count only grows in one demo; a demo continued from a moment of
	// its past has counted fewer, and starts the count again.
	if n := s.live.Reconciles(); n > s.reconciles {
		srv.metrics.reconciles.WithLabelValues(s.kind.Name).Add(float64(n - s.reconciles))
		s.reconciles = n
	} else if n < s.reconciles {
		s.reconciles = n
	}
	defer s.flushRoom()
	if s.conn == nil {
		return
	}
	s.out.HoldSnapshot = !s.acted && time.Since(s.snapAt) < snapshotBeat
	s.acted = false
	if err := s.ownerFrame(s.conn.Put); err != nil {
		srv.log.Error("render fragment", "demo", s.kind.Name, "err", err)
		return
	}
	if s.out.SnapshotSent {
		s.snapAt = time.Now()
	}
}

// snapshotBeat is how often at most a page gets its demo's snapshot (which
// it keeps for a restart) with the frames that time alone brings: a busy
// demo's come many times a second, and the snapshot was the largest part
// of what they cost. A visitor's action's frame always carries it (a lost
// replica loses no action); one owed is sent when the beat comes round
// (schedule), and before a drain. A replica that dies takes at most this
// much of the demo's own time with it, which the restored demo, seeded,
// plays again.
const snapshotBeat = time.Second

// flushSnapshot sends the page its snapshot now if it is owed.
func (s *session) flushSnapshot(srv *Server) {
	if !s.out.SnapshotOwed() {
		return
	}
	s.snapAt = time.Time{}
	s.flush(srv)
}

// ownerFrame renders what changed on the owner's page (the demo's
// fragments and its room panel) into a pooled chunk, which the socket's
// mailbox gives back once they are written.
func (s *session) ownerFrame(put func([]sockets.Frag)) error {
	s.out.View = s.view()
	chunk := sockets.GetChunk()
	defer chunk.Done()
	x := frameLists.Get().(*frameList)
	defer x.release()
	rendered, err := s.out.FrameInto(x.rendered[:0], &chunk.Buf)
	x.rendered = rendered
	if err != nil || len(rendered) == 0 {
		return err
	}
	x.frags = appendFrags(x.frags, rendered, chunk)
	chunk.Hold(len(x.frags))
	put(x.frags) // the mailbox copies the list
	return nil
}

// frameList is what a frame's lists are built in: the mailbox keeps a
// copy of the fragments, not the list, so a frame's lists go back to
// frameLists once it is put (each frame made two and dropped them).
type frameList struct {
	rendered []demo.Rendered
	frags    []sockets.Frag
}

var frameLists = sync.Pool{New: func() any { return new(frameList) }}

// release empties the lists (they point into the frame's chunk) and gives
// them back.
func (x *frameList) release() {
	clear(x.rendered)
	clear(x.frags)
	x.rendered, x.frags = x.rendered[:0], x.frags[:0]
	frameLists.Put(x)
}

// frags converts rendered fragments to the mailbox's.
func frags(rs []demo.Rendered) []sockets.Frag {
	if len(rs) == 0 {
		return nil
	}
	return appendFrags(make([]sockets.Frag, 0, len(rs)), rs, nil)
}

// appendFrags appends rs to dst as the mailbox's fragments, each holding
// chunk (nil: HTML of their own).
func appendFrags(dst []sockets.Frag, rs []demo.Rendered, chunk *sockets.Chunk) []sockets.Frag {
	for _, r := range rs {
		dst = append(dst, sockets.Frag{ID: r.ID, HTML: r.HTML, Full: r.Full, Chunk: chunk})
	}
	return dst
}

// schedule arms the timer for the next moment something changes by itself,
// while anyone watches (the owner, or a room's follower), and for the end
// of the TTL while no connection is attached. An unwatched demo catches up
// in one Advance when someone returns, so it costs no CPU meanwhile.
func (s *session) schedule(timer *time.Timer, scale float64) {
	timer.Stop()
	wait := time.Duration(-1)
	if s.conn == nil {
		wait = max(time.Until(s.expireAt), time.Millisecond)
	}
	if s.watched() {
		if due, ok := s.live.NextDue(); ok {
			if due = time.Duration(float64(due) / scale); wait < 0 || due < wait {
				wait = max(due, time.Millisecond)
			}
		}
	}
	if s.conn != nil && s.out.SnapshotOwed() {
		// A frame went without the snapshot: it follows on the beat.
		if due := time.Until(s.snapAt.Add(snapshotBeat)); wait < 0 || due < wait {
			wait = max(due, time.Millisecond)
		}
	}
	if wait >= 0 {
		timer.Reset(wait)
	}
}
