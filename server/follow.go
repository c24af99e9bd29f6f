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
	c := sockets.New(ws, pageOrigin(r), s.socketStats())
	kindName := ""
	if kind != nil {
		kindName = kind.Name
	}
	s.rooms.Follow(code, string(lang), kindName, c)
	s.metrics.sockets.Inc()
	go func() {
		defer s.metrics.sockets.Dec()
		refusal := demo.Refuse(demo.ReasonFollower, "err.follower")
		s.readPump(c, func([]byte) demo.Command { return demo.Command{Reject: refusal} }, func(cmd demo.Command) bool {
			s.metrics.rejected.WithLabelValues(cmd.Reject.Reason).Inc()
			var buf bytes.Buffer
			if kind != nil && ui.ErrorBox(lang, kind.Prefix, cmd.Reject.Text(lang)).Render(context.Background(), &buf) == nil {
				c.Put([]sockets.Frag{{ID: kind.Prefix + "-error", HTML: buf.Bytes()}})
			}
			return true
		})
		s.rooms.Unfollow(code, c)
	}()
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
