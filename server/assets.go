package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/static"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// asset is one static file, minified (our own scripts and stylesheets; the
// vendored htmx files are served as their packages ship them) and
// compressed once, in both encodings a browser may take.
type asset struct {
	body, gzipped []byte
	// brotlied is the Brotli body: at a quick quality from the start, at
	// the best once the background has made it (a second or two).
	brotlied    atomic.Pointer[[]byte]
	sum         [32]byte
	etag, ctype string
	hashed      string // the name it is served under for good: "app.1f2e3d4c5b.js"
}

// assets are the static files by name, and by their content-hashed name.
type assets struct {
	byName map[string]*asset // "app.js", and "app.1f2e3d4c5b.js"
	// best is closed once every file's Brotli body is the best one.
	best chan struct{}
}

// bestBrotli remembers, by content, the Brotli bodies at the best quality,
// which take a second or two to make: a process makes each once, however
// many servers it starts (tests start hundreds).
var bestBrotli sync.Map // [32]byte → []byte

// encodings remembers what newAsset made of a file (minified, gzipped, at
// a quick Brotli quality), by its name and content: a process encodes each
// file once however many servers it starts. The server tests start
// hundreds, and under the race detector the compressors' windows were
// most of their time.
var encodings sync.Map // [32]byte → *asset

// loadAssets reads the embedded static files and the demos' stylesheets.
// Only these names can ever be served: a request names a map key, never a
// path, so nothing outside static/ is reachable.
func loadAssets(kinds []demo.Kind) (*assets, error) {
	a := &assets{byName: map[string]*asset{}, best: make(chan struct{})}
	add := func(name string, body []byte) error {
		as, err := newAsset(name, body)
		if err != nil {
			return err
		}
		a.byName[name], a.byName[as.hashed] = as, as
		return nil
	}
	var helpJS []byte
	err := fs.WalkDir(static.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == "static.go" {
			return err
		}
		body, err := fs.ReadFile(static.FS, p)
		if err != nil {
			return err
		}
		if p == "help.js" {
			helpJS = body // served inside help-<lang>.js only
			return nil
		}
		return add(p, body)
	})
	if err != nil {
		return nil, fmt.Errorf("load static assets: %w", err)
	}
	// site.min.js is what every page runs, in the order it runs it: htmx,
	// its WebSocket extension (both byte for byte as vendored) and app.js,
	// in one file: one request, and one Brotli stream whose window spans
	// the three (about 700 B less than three streams).
	var site []byte
	for _, name := range []string{"htmx.min.js", "ws.min.js", "app.js"} {
		site = append(append(site, a.byName[name].body...), '\n')
	}
	if err := add(siteJS, site); err != nil {
		return nil, err
	}
	// The help dialog in each language, with what it does (static/help.js,
	// a function of the dialog's HTML and its stylesheet's URL), loaded by
	// a page when it is first opened.
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		var b bytes.Buffer
		if err := ui.Help(l).Render(context.Background(), &b); err != nil {
			return nil, fmt.Errorf("render the help: %w", err)
		}
		dialog, _ := json.Marshal(b.String())
		css, _ := json.Marshal(a.URL("help.css"))
		js := fmt.Sprintf("(function (helpHTML, helpCSS) {\n%s\n})(%s, %s);\n", helpJS, dialog, css)
		if err := add(ui.HelpName(l), []byte(js)); err != nil {
			return nil, err
		}
	}
	for i := range kinds {
		k := &kinds[i]
		for _, name := range k.Shared {
			if ext := path.Ext(name); a.byName[name] == nil || ext != ".css" && ext != ".js" {
				return nil, fmt.Errorf("demo %s names the shared file %q, which static/ does not have", k.Name, name)
			}
		}
		if k.CSS != nil {
			if err := add(cssName(k), k.CSS); err != nil {
				return nil, err
			}
		}
		if k.PresentCSS != nil {
			if err := add(presentCSSName(k), k.PresentCSS); err != nil {
				return nil, err
			}
		}
	}
	go a.makeBest()
	return a, nil
}

// makeBest replaces each file's quick Brotli body by the best one.
func (a *assets) makeBest() {
	defer close(a.best)
	for name, as := range a.byName {
		if name == as.hashed {
			continue // the same asset under its plain name
		}
		b, ok := bestBrotli.Load(as.sum)
		if !ok {
			b, _ = bestBrotli.LoadOrStore(as.sum, brotlied(as.body, brotli.BestCompression))
		}
		if best := b.([]byte); len(best) < len(as.body) {
			as.brotlied.Store(&best)
		}
	}
}

// URL returns the path a page links name by: its content-hashed name,
// which is cached for good, so a second page costs its HTML only.
func (a *assets) URL(name string) string {
	if as, ok := a.byName[name]; ok {
		return "/static/" + as.hashed
	}
	return "/static/" + name
}

// siteJS is the script every page links: htmx, htmx-ext-ws and app.js.
const siteJS = "site.min.js"

// cssName is the file name a demo's own stylesheet is served under.
func cssName(k *demo.Kind) string { return "demo-" + k.Name + ".css" }

// presentCSSName is the file name of a demo's projector layout.
func presentCSSName(k *demo.Kind) string { return "demo-" + k.Name + "-present.css" }

// pageFiles are the files a page links beside app.css and site.min.js
// (which every page links): what it shows needs them, and what it does not
// show, it does not load.
type pageFiles struct {
	present bool // projector mode: present.css and present.js, and each demo's projector layout
	embed   bool // an embed route: embed.js
	room    bool // a room's page: room.css and room.js
	index   bool // the chapters' index: index.css
}

// links returns the stylesheets and scripts of a page showing kinds, in
// the order the cascade needs: the shared sheets the demos name, each
// demo's own, then projector mode's, each demo's projector layout, the
// room's and the index's.
func (f pageFiles) links(kinds []*demo.Kind) (styles, scripts []string) {
	seen := map[string]bool{}
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if path.Ext(name) == ".js" {
			scripts = append(scripts, name)
		} else {
			styles = append(styles, name)
		}
	}
	for _, k := range kinds {
		for _, name := range k.Shared {
			add(name)
		}
	}
	for _, k := range kinds {
		if k.CSS != nil {
			add(cssName(k))
		}
	}
	if f.present {
		add("present.css")
		add("present.js")
		for _, k := range kinds {
			if k.PresentCSS != nil {
				add(presentCSSName(k))
			}
		}
	}
	if f.embed {
		add("embed.js")
	}
	if f.room {
		add("room.css")
		add("room.js")
	}
	if f.index {
		add("index.css")
	}
	return styles, scripts
}

// minifier minifies our own scripts and stylesheets (comments, spaces):
// they are written to be read, and served to be small.
var minifier = func() *minify.M {
	m := minify.New()
	m.AddFunc("text/css", css.Minify)
	m.AddFunc("text/javascript", js.Minify)
	return m
}()

// newAsset returns the asset a file serves, encoded once per content (a
// fresh asset each time: each server makes its own best Brotli bodies).
func newAsset(name string, body []byte) (*asset, error) {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(body)
	var key [32]byte
	h.Sum(key[:0])
	if e, ok := encodings.Load(key); ok {
		a := e.(*asset).clone()
		if b, ok := bestBrotli.Load(a.sum); ok {
			best := b.([]byte)
			a.brotlied.Store(&best)
		}
		return a, nil
	}
	a, err := encodeAsset(name, body)
	if err != nil {
		return nil, err
	}
	encodings.Store(key, a.clone())
	return a, nil
}

// clone copies a's fields; the bodies are shared, never written.
func (a *asset) clone() *asset {
	c := &asset{body: a.body, gzipped: a.gzipped, sum: a.sum, etag: a.etag, ctype: a.ctype, hashed: a.hashed}
	c.brotlied.Store(a.brotlied.Load())
	return c
}

func encodeAsset(name string, body []byte) (*asset, error) {
	ext := path.Ext(name)
	a := &asset{ctype: mime.TypeByExtension(ext)}
	if a.ctype == "" {
		a.ctype = "application/octet-stream"
	}
	if !strings.HasSuffix(name, ".min.js") {
		switch ext {
		case ".css":
			if min, err := minifier.Bytes("text/css", body); err == nil {
				body = min
			}
		case ".js":
			if min, err := minifier.Bytes("text/javascript", body); err == nil {
				body = min
			}
		}
	}
	a.sum = sha256.Sum256(body)
	hash := hex.EncodeToString(a.sum[:5])
	a.body, a.etag = body, `"`+hash+`"`
	a.hashed = strings.TrimSuffix(name, ext) + "." + hash + ext
	var err error
	if a.gzipped, err = gzipped(body); err != nil {
		return nil, fmt.Errorf("compress %s: %w", name, err)
	}
	if len(a.gzipped) >= len(body) {
		a.gzipped = nil
	}
	if b, ok := bestBrotli.Load(a.sum); ok {
		best := b.([]byte)
		a.brotlied.Store(&best)
	} else if quick := brotlied(body, pageBrotli); len(quick) < len(body) {
		a.brotlied.Store(&quick)
	}
	return a, nil
}

func gzipped(body []byte) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.Write(body)
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func brotlied(body []byte, quality int) []byte {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, quality)
	w.Write(body)
	w.Close()
	return buf.Bytes()
}

// serveStatic serves /static/{name}. A content-hashed name never changes
// what it serves: it is cached for a year, immutable. A plain name is
// revalidated on every use (its ETag answers 304), so an old page that
// still links it gets the new release at once.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a, ok := s.assets.byName[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("ETag", a.etag)
	if name == a.hashed {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match == a.etag || match == "W/"+a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.ctype)
	body := a.body
	switch enc, br := encoding(r), a.brotlied.Load(); {
	case enc == "br" && br != nil:
		h.Set("Content-Encoding", "br")
		body = *br
	case enc != "" && a.gzipped != nil:
		h.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.Write(body)
}

// encoding returns the compression a request takes: "br" (Brotli, which
// every browser we serve asks for), "gzip", or "" for none.
func encoding(r *http.Request) string {
	var gz bool
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(q) == "q=0" {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "br":
			return "br"
		case "gzip":
			gz = true
		}
	}
	if gz {
		return "gzip"
	}
	return ""
}

func (s *Server) metricsHandler() http.Handler {
	return promHandler(s.metrics)
}
