package server

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	t "github.com/reconcile-demo/reconcile-demo/templates"
)

// page serves a full page of the given demos, each with a fresh session id.
// The session itself starts when the page's socket connects, so a crawler
// that never runs the script costs nothing.
func (s *Server) page(path string, kinds ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, path, false, kinds)
	}
}

// embed serves a chrome-less demo for an iframe.
func (s *Server) embed(path, kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, path, true, []string{kind})
	}
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request, path string, embed bool, kinds []string) {
	q := r.URL.Query()
	lang := t.ParseLang(q.Get("lang"))
	s.securityHeaders(w, embed)
	if s.draining.Load() || s.hub.live.Load()+int64(len(kinds)) > int64(s.cfg.MaxSessions) ||
		s.hub.sessionsOf(r.Context(), clientAddr(r))+len(kinds) > s.cfg.MaxSessionsPerAddr {
		w.Header().Set("Retry-After", "30")
		s.render(w, r, http.StatusServiceUnavailable, t.MessagePage(lang, t.T(lang, "busy.title"), t.T(lang, "busy.body")))
		return
	}
	p := t.PageProps{Lang: lang, Path: path, Present: q.Get("mode") == "present", Embed: embed,
		Title: t.T(lang, "site.title")}
	for _, kind := range kinds {
		sid := newSID()
		ws := "/ws?" + url.Values{"demo": {kind}, "sid": {sid}, "lang": {string(lang)}}.Encode()
		p.Demos = append(p.Demos, demoProps(kind, lang, sid, ws, newDemo(kind, s.opt)))
	}
	if len(kinds) == 1 {
		p.Title = t.T(lang, demoTitleKey(kinds[0])) + " — " + t.T(lang, "site.short")
	}
	s.render(w, r, http.StatusOK, t.Page(p))
}

func demoTitleKey(kind string) string {
	if kind == "operator" {
		return "op.title"
	}
	return "rc.title"
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	lang := t.ParseLang(r.URL.Query().Get("lang"))
	s.securityHeaders(w, false)
	s.render(w, r, http.StatusNotFound, t.MessagePage(lang, t.T(lang, "notfound.title"), r.URL.Path))
}

// securityHeaders sets the CSP of a page. Embed routes may be framed by the
// configured ancestors; every other page only by itself.
func (s *Server) securityHeaders(w http.ResponseWriter, embed bool) {
	ancestors := "'self'"
	if embed {
		ancestors = s.cfg.FrameAncestors
	} else {
		w.Header().Set("X-Frame-Options", "SAMEORIGIN")
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors "+ancestors)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
}

// render writes a component as the response, gzip-compressed when the
// client accepts it.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r) {
		w.WriteHeader(status)
		w.Write(buf.Bytes())
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(status)
	gz := gzip.NewWriter(w)
	gz.Write(buf.Bytes())
	gz.Close()
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.TrimSpace(q) != "q=0" {
			return true
		}
	}
	return false
}
