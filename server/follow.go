package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/rooms"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// pageTimeout bounds finding a room and its demo for a follower's page.
const pageTimeout = 3 * time.Second

// serveFollower attaches a follower's socket to its room, wherever the
// room's owner runs. A code the rooms do not know (yet) is still
// attached: its followers wait for their owner's page to claim it back
// (a restarted process), and are told the room ended after the grace.
// Whatever the follower sends is refused: a room's demo is its owner's.
func (s *Server) serveFollower(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	code, ok := rooms.ParseCode(q.Get("room"))
	if !ok {
		http.Error(w, "malformed room code", http.StatusBadRequest)
		return
	}
	if !sameOrigin(r) {
		s.metrics.rejected.WithLabelValues(demo.ReasonOrigin).Inc()
		http.Error(w, "cross-origin WebSocket refused", http.StatusForbidden)
		return
	}
	lang := ui.ParseLang(q.Get("lang"))
	kind := s.kinds[q.Get("demo")] // the demo its page showed; nil from an older page
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	err := s.rooms.Admit(ctx, code, s.clientAddr(r))
	cancel()
	switch {
	case errors.Is(err, rooms.ErrLookups):
		http.Error(w, "too many wrong room codes; wait a minute", http.StatusTooManyRequests)
		return
	case err != nil:
		http.Error(w, "server restarting", http.StatusServiceUnavailable)
		return
	}
	ws, uerr := upgrader.Upgrade(w, r, nil)
	if uerr != nil {
		return
	}
	c := sockets.New(ws, pageOrigin(r), s.socketOptions())
	kindName := ""
	if kind != nil {
		kindName = kind.Name
	}
	s.rooms.Follow(code, string(lang), kindName, c)
	s.metrics.sockets.Inc()
	go func() {
		defer s.metrics.sockets.Dec()
		past := &followerPast{srv: s, kind: kind, lang: lang, code: code, c: c}
		s.readPump(c, past.decode, past.deliver)
		s.rooms.Unfollow(code, c)
	}()
}

// followerPast is a follower's own look at the room's past: it replays the
// room's timeline (which the follower's page holds and sends) to the moment
// it asks for and shows it on that page only, holding the room's frames
// back meanwhile; back to now, it follows the room again. The room and its
// other followers see none of it. It belongs to the follower's reader.
type followerPast struct {
	srv  *Server
	kind *demo.Kind // nil: a page from an older build, which cannot ask
	lang ui.Lang
	code string
	c    *sockets.Conn

	live   *demo.Live // the moment shown, or nil while the page follows the room
	moment string     // the timeline live was replayed from
	out    *demo.Renderer
}

// decode reads what a follower may send: the timeline's actions; anything
// else is refused, for a room's demo is its owner's.
func (p *followerPast) decode(msg []byte) demo.Command {
	refusal := demo.Command{Reject: demo.Refuse(demo.ReasonFollower, "err.follower")}
	if p.kind == nil {
		return refusal
	}
	c := demo.Decode(p.kind, msg)
	switch {
	case c.Reject != nil:
		return c
	case c.Action == demo.ActTimeline && c.Moment != "", c.Action == demo.ActTimelineLive:
		return c
	}
	return refusal
}

// deliver carries out a follower's command on its own page.
func (p *followerPast) deliver(cmd demo.Command) bool {
	if cmd.Reject == nil {
		var err error
		switch cmd.Action {
		case demo.ActTimeline:
			err = p.show(cmd.Moment, time.Duration(cmd.At)*time.Millisecond)
		case demo.ActTimelineLive:
			p.follow()
		}
		if err == nil {
			return true
		}
		var r *demo.Rejection
		if !errors.As(err, &r) {
			r = demo.Refuse(demo.ReasonPast, "err.replay")
		}
		cmd.Reject = r
	}
	p.srv.metrics.rejected.WithLabelValues(cmd.Reject.Reason).Inc()
	var buf bytes.Buffer
	if p.kind != nil && ui.ErrorBox(p.lang, p.kind.Prefix, cmd.Reject.Text(p.lang)).Render(context.Background(), &buf) == nil {
		p.c.PutOwn([]sockets.Frag{{ID: p.kind.Prefix + "-error", HTML: buf.Bytes()}})
	}
	return true
}

// show shows the moment at of the room's timeline on this page only.
func (p *followerPast) show(moment string, at time.Duration) error {
	if p.live == nil || p.moment != moment {
		live, err := demo.ViewMoment(p.kind, p.srv.opt, moment, at)
		if err != nil {
			return err
		}
		p.live, p.moment = live, moment
		p.out = live.Renderer(demo.View{Lang: p.lang, Role: demo.RoleFollower})
	} else if err := p.live.Apply(demo.Command{Action: demo.ActTimeline, At: at.Milliseconds()}); err != nil {
		return err
	}
	if !p.c.Held() {
		p.c.Hold("room-banner") // the room's end still reaches the page
		p.out.Reset()
	}
	frame, err := p.out.Frame(nil)
	if err != nil {
		return err
	}
	p.c.PutOwn(frags(frame))
	return nil
}

// follow ends the look at the past: the page follows the room again, from
// the whole of its present.
func (p *followerPast) follow() {
	if p.live == nil {
		return
	}
	p.live, p.moment, p.out = nil, "", nil
	p.c.Release()
	p.srv.rooms.Unfollow(p.code, p.c)
	kind := ""
	if p.kind != nil {
		kind = p.kind.Name
	}
	p.srv.rooms.Follow(p.code, string(p.lang), kind, p.c)
}

// roomPage serves /room/{code}: the room's demo as its followers see it,
// live and read-only, with a banner saying whose it is and the fork button.
func (s *Server) roomPage(w http.ResponseWriter, r *http.Request) {
	lang := ui.ParseLang(r.URL.Query().Get("lang"))
	s.securityHeaders(w, false)
	typed := r.PathValue("code")
	code, ok := rooms.ParseCode(typed)
	if !ok {
		s.render(w, r, http.StatusNotFound, ui.MessagePage(lang, ui.T(lang, "room.notfound"), ui.F(lang, "room.notfound.body", demo.Clip(typed))))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	whole, err := s.rooms.Page(ctx, code, string(lang), s.clientAddr(r))
	kind := s.kinds[whole.Kind]
	switch {
	case errors.Is(err, rooms.ErrLookups):
		w.Header().Set("Retry-After", "60")
		s.render(w, r, http.StatusTooManyRequests, ui.MessagePage(lang, ui.T(lang, "room.limited"), ui.T(lang, "room.limited.body")))
		return
	case err != nil || kind == nil:
		s.render(w, r, http.StatusNotFound, ui.MessagePage(lang, ui.T(lang, "room.notfound"), ui.F(lang, "room.notfound.body", code)))
		return
	}
	p := ui.PageProps{Lang: lang, Path: "/room/" + code, Present: r.URL.Query().Get("mode") == "present",
		Title: ui.F(lang, "room.page", code, kind.Title(lang)), Demos: []templ.Component{raw(whole.Section)},
		Banner:    &ui.BannerProps{Code: code, Title: kind.Title(lang), ForkURL: forkURL(kind.Name, lang)},
		TimeScale: s.timeScale()}
	for i := range s.cfg.Demos {
		k := &s.cfg.Demos[i]
		p.Nav = append(p.Nav, ui.NavItem{Path: "/" + k.Name, Label: k.Short(lang)})
	}
	p.Styles, p.Scripts = pageFiles{present: p.Present, room: true}.links([]*demo.Kind{kind})
	s.render(w, r, http.StatusOK, ui.Page(p))
}
