package server

// HTTP routes: health, readiness, metrics, compression, static caching,
// framing headers, 404s and the weight of the first load.

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"golang.org/x/net/html"

	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return out
}

var gzipOK = http.Header{"Accept-Encoding": {"gzip"}}

func TestHealthAndReadiness(t *testing.T) {
	t.Parallel()
	// Before Run, the server is alive but not ready.
	srv, err := New(Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want int
	}{{"/healthz", http.StatusOK}, {"/readyz", http.StatusServiceUnavailable}} {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.want {
			t.Errorf("%s before Run: %d, want %d", tc.path, rec.Code, tc.want)
		}
	}

	ts := startServer(t, Config{Sim: quiet})
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, body := ts.get(t, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s while running: %s %q", path, resp.Status, body)
		}
	}
	if resp, _ := ts.get(t, "/readyz", nil); resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("/readyz may be cached: Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	c := dial(t, ts, "reconcile", newSID(), "en")
	c.send(htmx("step"))
	c.send(`{`)
	c.waitFor("the refusal", c.errorShown)

	resp, body := ts.get(t, "/metrics", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	text := string(body)
	for _, series := range []string{
		"reconcile_demo_sessions", "reconcile_demo_sockets", "reconcile_demo_frames_sent_total",
		"reconcile_demo_frames_coalesced_total",
		`reconcile_demo_actions_total{action="step",demo="reconcile"}`,
		`reconcile_demo_rejected_total{reason="malformed"}`,
		`reconcile_demo_reconciles_total{demo="reconcile"}`,
		"process_resident_memory_bytes", "go_goroutines",
	} {
		if _, ok := seriesValue(text, series); !ok {
			t.Errorf("/metrics has no %s", series)
		}
	}
	for series, want := range map[string]float64{
		"reconcile_demo_sessions": 1, "reconcile_demo_sockets": 1,
		`reconcile_demo_actions_total{action="step",demo="reconcile"}`: 1,
		`reconcile_demo_rejected_total{reason="malformed"}`:            1,
		`reconcile_demo_reconciles_total{demo="reconcile"}`:            1,
	} {
		if got, _ := seriesValue(text, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if v, _ := seriesValue(text, "process_resident_memory_bytes"); v <= 0 {
		t.Errorf("process_resident_memory_bytes = %v", v)
	}
}

func TestPagesGzip(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	for _, path := range []string{"/", "/reconcile", "/operator", "/embed/reconcile", "/embed/operator", "/nope"} {
		resp, body := ts.get(t, path, gzipOK)
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: Content-Encoding %q, want gzip", path, resp.Header.Get("Content-Encoding"))
			continue
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: no Vary: Accept-Encoding", path)
		}
		if page := gunzip(t, body); !bytes.HasPrefix(bytes.ToLower(page), []byte("<!doctype html>")) {
			t.Errorf("%s: gunzipped body is not a page: %.100q", path, page)
		}
		plain, body := ts.get(t, path, nil)
		if plain.Header.Get("Content-Encoding") != "" || !bytes.HasPrefix(bytes.ToLower(body), []byte("<!doctype html>")) {
			t.Errorf("%s without Accept-Encoding: Content-Encoding %q, body %.60q", path, plain.Header.Get("Content-Encoding"), body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
	}
	// A client that refuses gzip gets none.
	resp, _ := ts.get(t, "/reconcile", http.Header{"Accept-Encoding": {"gzip;q=0, identity"}})
	if resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0: Content-Encoding %q, want none", resp.Header.Get("Content-Encoding"))
	}
}

func TestStaticCaching(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	for _, tc := range []struct{ name, ctype string }{
		{"app.css", "text/css"}, {"app.js", "javascript"}, {"htmx.min.js", "javascript"}, {"ws.min.js", "javascript"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/static/" + tc.name
			resp, body := ts.get(t, path, nil)
			if resp.StatusCode != http.StatusOK || len(body) == 0 {
				t.Fatalf("GET %s: %s, %d bytes", path, resp.Status, len(body))
			}
			if !strings.Contains(resp.Header.Get("Content-Type"), tc.ctype) {
				t.Errorf("Content-Type %q, want %s", resp.Header.Get("Content-Type"), tc.ctype)
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			for _, match := range []string{etag, "W/" + etag} {
				resp, body := ts.get(t, path, http.Header{"If-None-Match": {match}})
				if resp.StatusCode != http.StatusNotModified || len(body) != 0 {
					t.Errorf("If-None-Match %s: %s with %d bytes, want 304 and none", match, resp.Status, len(body))
				}
			}
			if resp, _ := ts.get(t, path, http.Header{"If-None-Match": {`"stale"`}}); resp.StatusCode != http.StatusOK {
				t.Errorf("a stale ETag: %s, want 200", resp.Status)
			}
			zresp, zbody := ts.get(t, path, gzipOK)
			if zresp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("Accept-Encoding gzip: Content-Encoding %q", zresp.Header.Get("Content-Encoding"))
			}
			if !bytes.Equal(gunzip(t, zbody), body) {
				t.Error("the gzipped asset differs from the plain one")
			}
			if zresp.Header.Get("ETag") != etag {
				t.Errorf("gzip ETag %q differs from %q", zresp.Header.Get("ETag"), etag)
			}
		})
	}
}

func TestFrameHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ancestors, want string
	}{
		{"default", "", "*"},
		{"configured", "https://book.example https://*.book.example", "https://book.example https://*.book.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, Config{Sim: quiet, FrameAncestors: tc.ancestors})
			for _, path := range []string{"/embed/reconcile", "/embed/operator"} {
				resp, _ := ts.get(t, path, nil)
				csp := resp.Header.Get("Content-Security-Policy")
				if !strings.Contains(csp, "frame-ancestors "+tc.want) {
					t.Errorf("%s: CSP %q, want frame-ancestors %s", path, csp, tc.want)
				}
				if xfo := resp.Header.Get("X-Frame-Options"); xfo != "" {
					t.Errorf("%s: X-Frame-Options %q forbids the embedding the route exists for", path, xfo)
				}
			}
			for _, path := range []string{"/", "/reconcile", "/operator", "/nope"} {
				resp, _ := ts.get(t, path, nil)
				if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'self'") {
					t.Errorf("%s: CSP %q, want frame-ancestors 'self'", path, csp)
				}
				if xfo := resp.Header.Get("X-Frame-Options"); xfo == "" {
					t.Errorf("%s: no X-Frame-Options", path)
				}
			}
		})
	}
}

func TestUnknownPath(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	for _, path := range []string{"/nope", "/reconcile/extra", "/embed", "/embed/nope", "/static/nope.js", "/ws/x", "/.git/config", "/go.mod"} {
		resp, body := ts.get(t, path, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", path, resp.Status)
		}
		if strings.Contains(string(body), "module github.com/") {
			t.Errorf("GET %s returned go.mod", path)
		}
	}
}

// browserOK is what Chromium asks for, on any origin.
var browserOK = http.Header{"Accept-Encoding": {"gzip, deflate, br, zstd"}}

// TestFirstLoadWeight: the compressed bytes of each demo's page and every
// static file it links, as a browser with an empty cache fetches them,
// stay within the budget; the files are linked by content-hashed names,
// cached for good, so a second page costs its HTML only.
func TestFirstLoadWeight(t *testing.T) {
	t.Parallel()
	const budget = 30 << 10
	ts := startServer(t, Config{Sim: quiet})
	<-ts.srv.assets.best // the best Brotli, as a server serves once it has started
	// A page's best Brotli is made after its first visit, as it is served
	// from then on.
	for _, k := range demos.All() {
		ts.get(t, "/"+k.Name, browserOK)
	}
	ts.srv.pages.making.Wait()
	for _, k := range demos.All() {
		path := "/" + k.Name
		resp, body := ts.get(t, path, browserOK)
		if resp.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("%s: Content-Encoding %q, want br", path, resp.Header.Get("Content-Encoding"))
		}
		total := len(body)
		doc := parsePage(t, unbrotli(t, body))
		refs := findAll(doc, func(n *html.Node) bool {
			return strings.HasPrefix(attr(n, "src"), "/static/") || strings.HasPrefix(attr(n, "href"), "/static/")
		})
		if len(refs) == 0 {
			t.Fatalf("%s references no static asset", path)
		}
		line := fmt.Sprintf("%s: page %d B", path, len(body))
		for _, n := range refs {
			ref := attr(n, "src") + attr(n, "href")
			resp, body := ts.get(t, ref, browserOK)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: %s", ref, resp.Status)
			}
			if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
				t.Errorf("%s is linked by a name that is not cached for good: Cache-Control %q", ref, cc)
			}
			line += fmt.Sprintf(", %s %d B (%s)", strings.TrimPrefix(ref, "/static/"), len(body), resp.Header.Get("Content-Encoding"))
			total += len(body)
		}
		t.Logf("%s; first load %d B = %.1f KB (budget %d KB)", line, total, float64(total)/1024, budget>>10)
		if total > budget {
			t.Errorf("%s: first load weighs %d B compressed, over the %d B budget", path, total, budget)
		}
	}
}

// TestPageFiles: a page links the stylesheets and scripts of what it shows
// and no others: a chart's only with a chart, projector mode's only in
// projector mode, the embed's only when embedded, the index's only on the
// index; and it names the help dialog, and a demo's page the rooms' sheet,
// for when they are first opened, without linking them.
func TestPageFiles(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	for _, tc := range []struct {
		path      string
		want, not []string
	}{
		{"/reconcile", []string{"app.css", "cluster.css", "diff.css", "chart.css", "demo-reconcile.css", "site.js", "chart.js"},
			[]string{"present.css", "demo-reconcile-present.css", "room.css", "index.css", "present.js", "embed.js", "room.js"}},
		{"/pipeline", []string{"app.css", "demo-pipeline.css", "site.js"},
			[]string{"cluster.css", "chart.css", "chart.js", "present.css", "demo-pipeline-present.css", "room.css", "index.css", "present.js", "embed.js", "room.js"}},
		{"/controlplane?mode=present", []string{"app.css", "cluster.css", "demo-controlplane.css", "present.css", "demo-controlplane-present.css", "site.js", "present.js"},
			[]string{"chart.css", "chart.js", "diff.css", "room.css", "index.css", "embed.js", "room.js"}},
		{"/embed/triggers", []string{"app.css", "cluster.css", "diff.css", "demo-triggers.css", "site.js", "embed.js"},
			[]string{"present.css", "room.css", "index.css", "present.js", "room.js"}},
		{"/", []string{"app.css", "index.css", "site.js"}, []string{"present.css", "room.css", "present.js", "embed.js", "room.js"}},
	} {
		_, body := ts.get(t, tc.path, nil)
		doc := parsePage(t, body)
		linked := map[string]bool{}
		for _, n := range findAll(doc, func(n *html.Node) bool {
			return n.Data == "link" && attr(n, "rel") == "stylesheet" || n.Data == "script"
		}) {
			ref := attr(n, "href") + attr(n, "src")
			// "/static/demo-reconcile.1f2e3d4c5b.css" → "demo-reconcile.css"
			name := strings.TrimPrefix(ref, "/static/")
			name = name[:strings.Index(name, ".")] + path.Ext(name)
			linked[name] = true
			if resp, _ := ts.get(t, ref, nil); resp.StatusCode != http.StatusOK {
				t.Errorf("%s links %s: %s", tc.path, ref, resp.Status)
			}
		}
		for _, name := range tc.want {
			if !linked[name] {
				t.Errorf("%s does not link %s (it links %v)", tc.path, name, linked)
			}
		}
		for _, name := range tc.not {
			if linked[name] {
				t.Errorf("%s links %s, which it does not need", tc.path, name)
			}
		}
		page := findAll(doc, func(n *html.Node) bool { return n.Data == "body" })[0]
		if len(byTestID(doc, "help")) != 0 {
			t.Errorf("%s holds the help dialog, which it loads when it is opened", tc.path)
		}
		// The help's script holds the dialog and names its stylesheet.
		if ref := attr(page, "data-help"); !strings.HasPrefix(ref, "/static/help-ja.") || path.Ext(ref) != ".js" {
			t.Errorf("%s: data-help %q, want the Japanese help's script", tc.path, ref)
		} else if resp, body := ts.get(t, ref, nil); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") ||
			!strings.Contains(string(body), `data-testid="help-close"`) {
			t.Errorf("%s: the help %s: %s, %q, %.100q", tc.path, ref, resp.Status, resp.Header.Get("Cache-Control"), body)
		} else if css := regexp.MustCompile(`/static/help\.[0-9a-f]{10}\.css`).Find(body); css == nil {
			t.Errorf("%s: the help names no stylesheet", tc.path)
		} else if resp, _ := ts.get(t, string(css), nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: the help's stylesheet %s: %s", tc.path, css, resp.Status)
		}
		// The rooms' stylesheet and script, for when the owner opens a room.
		if room := strings.Fields(attr(page, "data-room")); len(room) != 2 ||
			!strings.HasPrefix(room[0], "/static/room.") || path.Ext(room[0]) != ".css" ||
			!strings.HasPrefix(room[1], "/static/room.") || path.Ext(room[1]) != ".js" {
			t.Errorf("%s: data-room %q, want the rooms' stylesheet and script", tc.path, attr(page, "data-room"))
		} else {
			for _, ref := range room {
				if resp, _ := ts.get(t, ref, nil); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
					t.Errorf("%s: the rooms' %s: %s, %q", tc.path, ref, resp.Status, resp.Header.Get("Cache-Control"))
				}
			}
		}
	}
}

func unbrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("brotli: %v", err)
	}
	return out
}

// TestPageTail: a page of fresh demos is the same for every visitor up to
// its tail, which alone names their sessions (one per demo, new for each
// visit), and its links to a moment are paths, whatever host it was asked
// on; its Brotli stream, which carries the tail as it is, decodes to the
// same page as the plain one. A page opened from a link to a moment is a
// page of its own, with a tail all the same.
func TestPageTail(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	sids := regexp.MustCompile(`<p id="sids" hidden>([0-9a-f ]+)$`)
	split := func(path string, body []byte) (string, []string) {
		m := sids.FindSubmatchIndex(body)
		if m == nil {
			t.Fatalf("%s: no tail naming the sessions: %.200q", path, body[max(0, len(body)-200):])
		}
		return string(body[:m[0]]), strings.Fields(string(body[m[2]:m[3]]))
	}
	// A link to a moment, as a page's share button has it.
	share := demo.Start(ts.srv.kinds["reconcile"], demo.Options{}).MomentURL("", "/reconcile", ui.Ja, 0)
	for _, tc := range []struct {
		path  string
		demos int
	}{{"/pipeline", 1}, {"/?lang=en", 2}, {"/embed/operator?mode=present", 1}, {share, 1}} {
		_, a := ts.get(t, tc.path, nil)
		_, b := ts.get(t, tc.path, http.Header{"Origin": {"https://elsewhere.example"}})
		pa, sa := split(tc.path, a)
		pb, sb := split(tc.path, b)
		if pa != pb {
			t.Errorf("%s: two visits differ before the tail", tc.path)
		}
		if len(sa) != tc.demos || len(sb) != tc.demos {
			t.Errorf("%s: the tails name %v and %v, want %d sessions each", tc.path, sa, sb, tc.demos)
		}
		for i := range sa {
			if !validSID(sa[i]) || !validSID(sb[i]) || sa[i] == sb[i] || strings.Contains(pa, sa[i]) {
				t.Errorf("%s: sessions %v and %v: not new for each visit, or named before the tail", tc.path, sa, sb)
			}
		}
		if strings.Contains(pa, "elsewhere.example") || strings.Contains(pa, ts.URL) {
			t.Errorf("%s: the page names a host", tc.path)
		}
		if _, br := ts.get(t, tc.path, browserOK); !strings.HasPrefix(string(unbrotli(t, br)), pa) {
			t.Errorf("%s: the Brotli stream decodes to another page", tc.path)
		} else if _, s := split(tc.path, unbrotli(t, br)); len(s) != tc.demos {
			t.Errorf("%s: the Brotli stream's tail names %v", tc.path, s)
		}
	}
}

// TestRunReturnsWhenCancelledBeforeAnySession: a server that served nothing
// stops at once.
func TestRunReturnsWhenCancelledBeforeAnySession(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() { srv.Run(ctx); close(done) }()
	eventually(t, waitLong, "Run returns", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	eventually(t, waitLong, "Draining() reports the drain", srv.Draining)
}

// TestPageSessionIDs: each page render names a new 128-bit session in
// data-sid and in its socket URL, and creates no session until the socket
// connects (a crawler costs nothing).
func TestPageSessionIDs(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	seen := map[string]bool{}
	for _, tc := range []struct{ path, lang string }{
		{"/reconcile", "ja"}, {"/reconcile", "ja"}, {"/operator?lang=en", "en"}, {"/?lang=en", "en"},
		{"/embed/reconcile", "ja"}, {"/embed/operator?lang=en", "en"},
	} {
		_, body := ts.get(t, tc.path, nil)
		demos := findAll(parsePage(t, body), func(n *html.Node) bool { return hasAttr(n, "data-demo") })
		if len(demos) == 0 {
			t.Fatalf("%s: no demo", tc.path)
		}
		for _, d := range demos {
			sid := attr(d, "data-sid")
			if !validSID(sid) {
				t.Errorf("%s: data-sid %q is not 32 hex digits", tc.path, sid)
			}
			if seen[sid] {
				t.Errorf("%s: data-sid %s given out twice", tc.path, sid)
			}
			seen[sid] = true
			u, err := url.Parse(attr(d, "ws-connect"))
			if err != nil || u.Path != "/ws" {
				t.Fatalf("%s: ws-connect %q", tc.path, attr(d, "ws-connect"))
			}
			q := u.Query()
			if q.Get("sid") != sid || q.Get("demo") != attr(d, "data-demo") || q.Get("lang") != tc.lang {
				t.Errorf("%s: ws-connect %q does not name demo %s, sid %s, lang %s", tc.path, u, attr(d, "data-demo"), sid, tc.lang)
			}
			// A fresh demo's page keeps no snapshot: a session started from
			// nothing is in the same state, and its first frame brings one.
			snaps := findAll(d, func(n *html.Node) bool { return strings.HasSuffix(attr(n, "id"), "-snapshot") })
			if len(snaps) != 1 || hasAttr(snaps[0], "data-sid") || hasAttr(snaps[0], "data-snapshot") {
				t.Errorf("%s: the snapshot element of a fresh demo names a session or carries a snapshot", tc.path)
			}
		}
	}
	if got := ts.srv.hub.live.Load(); got != 0 {
		t.Errorf("%d sessions after serving pages only, want 0", got)
	}
}

// TestAssetsEncodedOnce: a second server in the process serves the files
// the first encoded (the same bytes, not made again), each in an asset of
// its own (a server's best Brotli body is its own business).
func TestAssetsEncodedOnce(t *testing.T) {
	kinds := demos.All()
	a, err := loadAssets(kinds)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadAssets(kinds)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range a.byName {
		y := b.byName[name]
		if y == nil || x == y {
			t.Fatalf("%s: second server's asset %p, first's %p: want a fresh one", name, y, x)
		}
		if len(x.body) > 0 && &x.body[0] != &y.body[0] {
			t.Errorf("%s: encoded again (a new body)", name)
		}
		if x.etag != y.etag || x.hashed != y.hashed || !bytes.Equal(x.gzipped, y.gzipped) {
			t.Errorf("%s: the second server serves it otherwise", name)
		}
	}
	// A file of other content under the same name is encoded anew.
	c, err := newAsset("app.js", []byte("var x = 1;"))
	if err != nil {
		t.Fatal(err)
	}
	if c.etag == a.byName["app.js"].etag {
		t.Error("other content, same ETag: the memo ignores content")
	}
}
