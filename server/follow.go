package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// findRoom finds a room for a follower: its owner's session on this
// process, or (with a bus) the room of another replica and its kind. It
// charges the address for a code that is nowhere, and counts the lookup.
func (s *Server) findRoom(ctx context.Context, code, addr string, lang ui.Lang) (*session, *demo.Kind, sectionReply, error) {
	sess, err := s.hub.lookupRoom(ctx, code, addr)
	switch {
	case err == nil:
		s.metrics.roomLookups.WithLabelValues("here").Inc()
		return sess, sess.kind, sectionReply{}, nil
	case errors.Is(err, errLookups):
		s.metrics.roomLookups.WithLabelValues("limited").Inc()
		return nil, nil, sectionReply{}, err
	case !errors.Is(err, errNoRoom):
		return nil, nil, sectionReply{}, err
	}
	if s.bus != nil {
		rep, err := s.bus.join(ctx, code, lang)
		if err == nil && s.kinds[rep.kind] != nil {
			s.metrics.roomLookups.WithLabelValues("elsewhere").Inc()
			return nil, s.kinds[rep.kind], rep, nil
		}
		if err != nil && !errors.Is(err, errNoRoom) {
			s.log.Warn("room lookup on NATS", "room", code, "err", err)
		}
	}
	s.hub.missedRoom(addr, s.cfg.RoomLookups/60, s.cfg.RoomLookupBurst)
	s.metrics.roomLookups.WithLabelValues("not_found").Inc()
	return nil, nil, sectionReply{}, errNoRoom
}

// serveFollower attaches a follower's socket to its room: to the owner's
// session on this process, or to the mirror of another replica's room.
// Whatever the follower sends is refused: a room's demo is its owner's.
func (s *Server) serveFollower(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	code, ok := parseCode(q.Get("room"))
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
	sess, kind, _, err := s.findRoom(r.Context(), code, s.clientAddr(r), lang)
	switch {
	case errors.Is(err, errLookups):
		http.Error(w, "too many wrong room codes; wait a minute", http.StatusTooManyRequests)
		return
	case err != nil:
		http.Error(w, "no such room", http.StatusNotFound)
		return
	}
	ws, uerr := upgrader.Upgrade(w, r, nil)
	if uerr != nil {
		return
	}
	c := sockets.New(ws, pageOrigin(r), s.socketStats())
	f := &follower{conn: c, lang: lang}
	var leave func()
	if sess != nil {
		if !handTo(sess, followReq{f}) {
			endFollower(f, kind, code, s)
			return
		}
		leave = func() { handTo(sess, unfollowReq{f}) }
	} else {
		var m *mirror
		for range 3 { // a mirror may end as its last follower leaves: take the next
			if m = s.hub.mirrorOf(r.Context(), code, kind, s); m == nil || m.send(followReq{f}) {
				break
			}
			m = nil
		}
		if m == nil {
			c.CloseWith(sockets.CloseServiceRestart, "server restarting")
			return
		}
		leave = func() { m.send(unfollowReq{f}) }
	}
	s.metrics.sockets.Inc()
	go func() {
		defer s.metrics.sockets.Dec()
		refusal := demo.Refuse(demo.ReasonFollower, "err.follower")
		s.readPump(c, func([]byte) demo.Command { return demo.Command{Reject: refusal} }, func(cmd demo.Command) bool {
			s.metrics.rejected.WithLabelValues(cmd.Reject.Reason).Inc()
			var buf bytes.Buffer
			if ui.ErrorBox(lang, kind.Prefix, cmd.Reject.Text(lang)).Render(context.Background(), &buf) == nil {
				c.Put([]sockets.Frag{{ID: kind.Prefix + "-error", HTML: buf.Bytes()}})
			}
			return true
		})
		leave()
	}()
}

// roomPage serves /room/{code}: the room's demo as its followers see it,
// live and read-only, with a banner saying whose it is and the fork button.
func (s *Server) roomPage(w http.ResponseWriter, r *http.Request) {
	lang := ui.ParseLang(r.URL.Query().Get("lang"))
	s.securityHeaders(w, false)
	typed := r.PathValue("code")
	code, ok := parseCode(typed)
	if !ok {
		s.render(w, r, http.StatusNotFound, ui.MessagePage(lang, ui.T(lang, "room.notfound"), ui.F(lang, "room.notfound.body", demo.Clip(typed))))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), busTimeout+time.Second)
	defer cancel()
	sess, kind, rep, err := s.findRoom(ctx, code, s.clientAddr(r), lang)
	if err == nil && sess != nil {
		reply := make(chan sectionReply, 1)
		if handTo(sess, sectionReq{lang: lang, reply: reply}) {
			select {
			case rep = <-reply:
				err = rep.err
			case <-ctx.Done():
				err = errNoRoom
			}
		} else {
			err = errNoRoom
		}
	}
	switch {
	case errors.Is(err, errLookups):
		w.Header().Set("Retry-After", "60")
		s.render(w, r, http.StatusTooManyRequests, ui.MessagePage(lang, ui.T(lang, "room.limited"), ui.T(lang, "room.limited.body")))
		return
	case err != nil:
		s.render(w, r, http.StatusNotFound, ui.MessagePage(lang, ui.T(lang, "room.notfound"), ui.F(lang, "room.notfound.body", code)))
		return
	}
	p := ui.PageProps{Lang: lang, Path: "/room/" + code, Present: r.URL.Query().Get("mode") == "present",
		Title: ui.F(lang, "room.page", code, kind.Title(lang)), Demos: []templ.Component{raw(rep.section)},
		Banner: &ui.BannerProps{Code: code, Title: kind.Title(lang), ForkURL: forkURL(kind.Name, lang)}}
	for i := range s.cfg.Demos {
		k := &s.cfg.Demos[i]
		p.Nav = append(p.Nav, ui.NavItem{Path: "/" + k.Name, Label: k.Short(lang)})
	}
	if kind.CSS != nil {
		p.Styles = []string{cssName(kind)}
	}
	s.render(w, r, http.StatusOK, ui.Page(p))
}
