package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// mirrorHeartbeat is how often a replica repeats its count of a room's
// followers to the owner, which forgets counts that go stale.
const mirrorHeartbeat = 10 * time.Second

// mirror is a room of another replica, followed here: it subscribes when
// its first follower comes, keeps the newest version of every fragment in
// each language its followers read, fans the owner's frames out to them,
// and ends when the last one leaves or the room ends. Its goroutine (run)
// is the only code that touches its followers and state.
type mirror struct {
	code string
	kind *demo.Kind
	srv  *Server
	ctl  chan any      // followReq, unfollowReq, frameIn, roomEnded
	done chan struct{} // closed when run returns

	// Owned by run.
	followers map[*follower]struct{}
	langs     map[ui.Lang]*mirrorLang
}

// mirrorLang is what a mirror holds of one language.
type mirrorLang struct {
	sub     *nats.Subscription
	joined  bool
	seq     uint64            // the last frame applied
	order   []string          // fragment ids, in the order the page has them
	html    map[string][]byte // the newest version of each fragment
	pending []frameIn         // frames that came before the join's reply
}

// frameIn is a frame of the owner, in a language.
type frameIn struct {
	lang ui.Lang
	msg  frameMsg
}

// roomEnded says the owner ended the room.
type roomEnded struct{}

// joined is the owner's reply to the mirror's join of a language.
type joinedIn struct {
	lang ui.Lang
	rep  sectionReply
	err  error
}

// followReq and unfollowReq bring a follower to the room's owner (its
// session or a mirror) and take it away.
type followReq struct{ f *follower }
type unfollowReq struct{ f *follower }

func newMirror(code string, kind *demo.Kind, srv *Server) *mirror {
	return &mirror{code: code, kind: kind, srv: srv, ctl: make(chan any), done: make(chan struct{}),
		followers: map[*follower]struct{}{}, langs: map[ui.Lang]*mirrorLang{}}
}

// run serves the mirror until its room ends or its last follower leaves.
func (m *mirror) run(ctx context.Context) {
	defer close(m.done)
	defer m.srv.hub.dropMirror(m)
	end, err := m.srv.bus.nc.Subscribe(subject(m.code, "end"), func(*nats.Msg) { m.send(roomEnded{}) })
	if err != nil {
		return
	}
	defer end.Unsubscribe()
	beat := time.NewTicker(mirrorHeartbeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			for f := range m.followers {
				f.conn.CloseWith(sockets.CloseServiceRestart, "server restarting")
			}
			m.stop()
			return
		case msg := <-m.ctl:
			switch msg := msg.(type) {
			case followReq:
				m.follow(ctx, msg.f)
			case unfollowReq:
				if _, ok := m.followers[msg.f]; ok {
					delete(m.followers, msg.f)
					m.srv.metrics.followers.Dec()
					m.srv.bus.publishCount(m.code, len(m.followers))
				}
				if len(m.followers) == 0 {
					m.stop()
					return
				}
			case joinedIn:
				m.joined(msg)
			case frameIn:
				m.frame(msg)
			case roomEnded:
				for f := range m.followers {
					m.end(f)
				}
				m.srv.metrics.followers.Sub(float64(len(m.followers)))
				m.stop()
				return
			}
		case <-beat.C:
			m.srv.bus.publishCount(m.code, len(m.followers))
		}
	}
}

// send hands msg to the mirror's goroutine unless it has ended.
func (m *mirror) send(msg any) bool {
	select {
	case m.ctl <- msg:
		return true
	case <-m.done:
		return false
	}
}

func (m *mirror) follow(ctx context.Context, f *follower) {
	if len(m.followers) >= m.srv.cfg.RoomFollowers {
		f.conn.CloseWith(sockets.CloseTryAgainLater, "the room is full")
		return
	}
	m.followers[f] = struct{}{}
	m.srv.metrics.followers.Inc()
	m.srv.bus.publishCount(m.code, len(m.followers))
	st := m.langs[f.lang]
	if st == nil {
		// Subscribe first, then join: frames that come before the join's
		// reply wait, and those the reply already covers are dropped.
		st = &mirrorLang{html: map[string][]byte{}}
		m.langs[f.lang] = st
		l := f.lang
		st.sub, _ = m.srv.bus.nc.Subscribe(subject(m.code, "frames."+string(l)), func(msg *nats.Msg) {
			var fm frameMsg
			if len(msg.Data) <= maxBusMessage && json.Unmarshal(msg.Data, &fm) == nil {
				m.send(frameIn{lang: l, msg: fm})
			}
		})
		go func() {
			rep, err := m.srv.bus.join(ctx, m.code, l)
			m.send(joinedIn{lang: l, rep: rep, err: err})
		}()
		return
	}
	if st.joined {
		f.conn.Put(st.frags())
	}
}

// joined applies the owner's whole demo in a language, then the frames
// that came meanwhile, and sends its followers everything.
func (m *mirror) joined(j joinedIn) {
	st := m.langs[j.lang]
	if st == nil {
		return
	}
	if j.err != nil {
		for f := range m.followers {
			if f.lang == j.lang {
				m.end(f)
			}
		}
		return
	}
	st.joined, st.seq = true, j.rep.seq
	st.apply(j.rep.frags)
	for _, fr := range st.pending {
		if fr.msg.Seq > st.seq {
			st.seq = fr.msg.Seq
			st.apply(localFrags(fr.msg.Frags))
		}
	}
	st.pending = nil
	all := st.frags()
	for f := range m.followers {
		if f.lang == j.lang {
			f.conn.Put(all)
		}
	}
}

// frame applies one of the owner's frames and fans it out.
func (m *mirror) frame(fr frameIn) {
	st := m.langs[fr.lang]
	if st == nil {
		return
	}
	if !st.joined {
		if len(st.pending) < 64 {
			st.pending = append(st.pending, fr)
		}
		return
	}
	if fr.msg.Seq <= st.seq {
		return
	}
	st.seq = fr.msg.Seq
	frags := localFrags(fr.msg.Frags)
	st.apply(frags)
	for f := range m.followers {
		if f.lang == fr.lang {
			f.conn.Put(frags)
		}
	}
}

func (st *mirrorLang) apply(frags []sockets.Frag) {
	for _, f := range frags {
		if _, ok := st.html[f.ID]; !ok {
			if len(st.order) >= 64 {
				continue // a demo has a few dozen fragments at most
			}
			st.order = append(st.order, f.ID)
		}
		st.html[f.ID] = f.HTML
	}
}

func (st *mirrorLang) frags() []sockets.Frag {
	out := make([]sockets.Frag, 0, len(st.order))
	for _, id := range st.order {
		out = append(out, sockets.Frag{ID: id, HTML: st.html[id]})
	}
	return out
}

// end tells a follower the room ended, as the owner's session does.
func (m *mirror) end(f *follower) { endFollower(f, m.kind, m.code, m.srv) }

// stop unsubscribes and says this replica follows no more.
func (m *mirror) stop() {
	for _, st := range m.langs {
		if st.sub != nil {
			st.sub.Unsubscribe()
		}
	}
	m.srv.bus.publishCount(m.code, 0)
}

// mirrorOf returns the mirror of a room of another replica, starting one
// for its first follower here.
func (h *hub) mirrorOf(ctx context.Context, code string, kind *demo.Kind, srv *Server) *mirror {
	var m *mirror
	h.call(ctx, func() {
		if srv.ctx.Err() != nil {
			return // draining: no new mirror
		}
		if m = h.mirrors[code]; m != nil {
			return
		}
		m = newMirror(code, kind, srv)
		h.mirrors[code] = m
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			m.run(srv.ctx)
		}()
	})
	return m
}

// dropMirror forgets a mirror that ended.
func (h *hub) dropMirror(m *mirror) {
	h.call(context.Background(), func() {
		if h.mirrors[m.code] == m {
			delete(h.mirrors, m.code)
		}
	})
}
