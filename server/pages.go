package server

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/a-h/templ"
	"github.com/andybalholm/brotli"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// page serves one demo with the site header, with a fresh session id. The
// session itself starts when the page's socket connects, so a crawler that
// never runs the script costs nothing.
func (s *Server) page(kind string) http.HandlerFunc {
	k := s.kinds[kind]
	return func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, "/"+k.Name, false, []*demo.Kind{k}, nil)
	}
}

// embed serves a chrome-less demo for an iframe.
func (s *Server) embed(kind string) http.HandlerFunc {
	k := s.kinds[kind]
	return func(w http.ResponseWriter, r *http.Request) {
		s.servePage(w, r, "/embed/"+k.Name, true, []*demo.Kind{k}, nil)
	}
}

// index serves the chapters' index: every demo with its chapter and one
// line of what it shows, and the demos marked OnIndex live below it.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	lang := ui.ParseLang(r.URL.Query().Get("lang"))
	var live []*demo.Kind
	var entries []ui.IndexEntry
	for i := range s.cfg.Demos {
		k := s.kinds[s.cfg.Demos[i].Name]
		entries = append(entries, ui.IndexEntry{Kind: k.Name, Chapter: k.Chapter, Title: k.Title(lang),
			Summary: k.Summary(lang), Live: k.OnIndex})
		if k.OnIndex {
			live = append(live, k)
		}
	}
	s.servePage(w, r, "/", false, live, entries)
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request, path string, embed bool, kinds []*demo.Kind, index []ui.IndexEntry) {
	q := r.URL.Query()
	lang := ui.ParseLang(q.Get("lang"))
	s.securityHeaders(w, embed)
	if s.draining.Load() || s.hub.live.Load()+int64(len(kinds)) > int64(s.cfg.MaxSessions) ||
		s.hub.sessionsOf(r.Context(), s.clientAddr(r))+len(kinds) > s.cfg.MaxSessionsPerAddr {
		w.Header().Set("Retry-After", "30")
		s.render(w, r, http.StatusServiceUnavailable, ui.MessagePage(lang, ui.T(lang, "busy.title"), ui.T(lang, "busy.body")))
		return
	}
	// Each demo gets a new session, named in the page's tail.
	sids := make([]string, len(kinds))
	for i := range sids {
		sids[i] = newSID()
	}
	key := pageKey{path: path, lang: lang, present: q.Get("mode") == "present"}
	moment := len(kinds) == 1 && index == nil && q.Has("moment")
	if !moment {
		if pg := s.pages.get(key); pg != nil {
			s.writePage(w, r, pg, sids)
			return
		}
	}
	p := ui.PageProps{Lang: lang, Path: path, Present: key.present, Embed: embed,
		Title: ui.T(lang, "site.title"), Index: index, Asset: s.assets.URL, TimeScale: s.timeScale()}
	for i := range s.cfg.Demos {
		k := &s.cfg.Demos[i]
		p.Nav = append(p.Nav, ui.NavItem{Path: "/" + k.Name, Label: k.Short(lang)})
	}
	for _, k := range kinds {
		// No session id here: the tail names it (pagecache.go).
		ws := "/ws?" + url.Values{"demo": {k.Name}, "lang": {string(lang)}}.Encode() + "&sid="
		v := demo.View{Lang: lang, WSURL: ws, PageLinks: true}
		live := demo.Start(k, s.opt)
		if moment {
			var status int
			if live, status = s.openMoment(k, q); live == nil {
				s.render(w, r, status, ui.MessagePage(lang, ui.T(lang, "moment.bad"), ui.T(lang, momentWhy(status))))
				return
			}
			v.Moment = q.Get("moment")
		}
		p.Demos = append(p.Demos, live.Section(v))
	}
	p.Styles, p.Scripts = pageFiles{present: p.Present, embed: embed, index: index != nil}.links(kinds)
	if len(kinds) == 1 && index == nil {
		p.Title = kinds[0].Title(lang) + " — " + ui.T(lang, "site.short")
	}
	var buf bytes.Buffer
	if err := ui.Page(p).Render(r.Context(), &buf); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	pg := newPage(buf.Bytes())
	if !moment {
		pg = s.pages.put(key, pg)
	}
	s.writePage(w, r, pg, sids)
}

// writePage writes a page with its tail, compressed as the client accepts:
// the page's Brotli stream, the tail as it is, and the stream's end; or
// gzip.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, pg *page, sids []string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Add("Vary", "Accept-Encoding")
	tail := tail(sids)
	switch encoding(r) {
	case "br":
		w.Header().Set("Content-Encoding", "br")
		w.Write(pg.brotli())
		w.Write(brotliEnd(nil, tail))
	case "gzip":
		w.Header().Set("Content-Encoding", "gzip")
		gz := getGzip(w)
		gz.Write(pg.html)
		gz.Write(tail)
		putGzip(gz)
	default:
		w.Write(pg.html)
		w.Write(tail)
	}
}

// openMoment opens a link to a moment of demo k (?moment=…&at=…): the demo
// replayed to that moment, paused; or nil and the status that says why not:
// 400 for a damaged link, 410 for one another version of the demo wrote,
// 422 for one whose actions do not replay here.
func (s *Server) openMoment(k *demo.Kind, q url.Values) (*demo.Live, int) {
	at, err := demo.ParseMomentAt(q.Get("at"))
	if err != nil {
		return nil, http.StatusBadRequest
	}
	live, err := demo.OpenMoment(k, s.opt, q.Get("moment"), at)
	switch {
	case err == nil:
		return live, http.StatusOK
	case errors.Is(err, demo.ErrMomentVersion):
		return nil, http.StatusGone
	case errors.Is(err, demo.ErrReplay):
		return nil, http.StatusUnprocessableEntity
	}
	return nil, http.StatusBadRequest
}

// momentWhy is the catalog key that says why a link was refused.
func momentWhy(status int) string {
	switch status {
	case http.StatusGone:
		return "moment.version"
	case http.StatusUnprocessableEntity:
		return "moment.replay"
	}
	return "moment.malformed"
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	lang := ui.ParseLang(r.URL.Query().Get("lang"))
	s.securityHeaders(w, false)
	s.render(w, r, http.StatusNotFound, ui.MessagePage(lang, ui.T(lang, "notfound.title"), r.URL.Path))
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

// render writes a component as the response, compressed as the client
// accepts: Brotli at a quality that costs about a millisecond a page, or
// gzip.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Add("Vary", "Accept-Encoding")
	switch encoding(r) {
	case "br":
		w.Header().Set("Content-Encoding", "br")
		w.WriteHeader(status)
		br := brotli.NewWriterLevel(w, pageBrotli)
		br.Write(buf.Bytes())
		br.Close()
	case "gzip":
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(status)
		gz := getGzip(w)
		gz.Write(buf.Bytes())
		putGzip(gz)
	default:
		w.WriteHeader(status)
		w.Write(buf.Bytes())
	}
}

// gzips keeps gzip writers for pages: a new one allocates about 800 KB of
// tables, and a client without Brotli (a script, the load generator) got
// one for every page it loaded.
var gzips = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

func getGzip(w io.Writer) *gzip.Writer {
	gz := gzips.Get().(*gzip.Writer)
	gz.Reset(w)
	return gz
}

// putGzip ends gz's stream and keeps it for the next page.
func putGzip(gz *gzip.Writer) {
	gz.Close()
	gz.Reset(nil)
	gzips.Put(gz)
}

// pageBrotli is the Brotli quality of pages, which are rendered for each
// visit (static files get the best, once).
const pageBrotli = 6
