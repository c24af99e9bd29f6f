package server

// This file holds what the server's tests share: a running server behind
// httptest, a real gorilla WebSocket client that keeps the newest version of
// every fragment it was sent, the htmx-ext-ws wire format, and readers of
// /metrics.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
)

// quiet is a pace at which nothing happens by itself for an hour: every
// change a test sees is one it made (a step creates pods that stay Pending).
var quiet = demo.Options{Cadence: time.Hour, StartDelay: time.Hour}

// waitLong bounds every wait for something the server does at once: far
// above what it takes, even under -race on a busy machine.
const waitLong = 5 * time.Second

// testServer is a Server behind httptest with its Run going.
type testServer struct {
	*httptest.Server
	srv    *Server
	cancel context.CancelFunc // ends Run: the server drains
	done   chan struct{}      // closed when Run has returned
}

// startServer starts a server with cfg (logging discarded unless set), runs
// it, and stops both when the test ends.
func startServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	return startServerOn(t, cfg, nil)
}

// startServerOn is startServer with the listener wrapped by wrap, if set.
func startServerOn(t *testing.T, cfg Config, wrap func(net.Listener) net.Listener) *testServer {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	ts := &testServer{Server: hs, srv: srv, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancel = cancel
	go func() {
		defer close(ts.done)
		srv.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-ts.done:
		case <-time.After(waitLong):
			t.Errorf("Run did not return within %v of its context ending", waitLong)
		}
		ts.Close()
	})
	<-srv.running
	return ts
}

// startServerAt is startServer on a fixed address, where a restarted
// server comes back.
func startServerAt(t *testing.T, cfg Config, addr string) *testServer {
	t.Helper()
	return startServerOn(t, cfg, func(l net.Listener) net.Listener {
		l.Close()
		nl, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen on %s again: %v", addr, err)
		}
		return nl
	})
}

// stop drains the server as SIGTERM does and waits until it has stopped.
func (ts *testServer) stop(t *testing.T) {
	t.Helper()
	ts.cancel()
	select {
	case <-ts.done:
	case <-time.After(waitLong):
		t.Fatalf("Run did not return within %v of its context ending", waitLong)
	}
	ts.Close()
}

// wsURL is the socket URL of a demo session, as the page's ws-connect names it.
func (ts *testServer) wsURL(kind, sid, lang string) string {
	q := url.Values{"demo": {kind}, "sid": {sid}}
	if lang != "" {
		q.Set("lang", lang)
	}
	return ts.wsRaw(q.Encode())
}

// wsRaw is the socket URL with a raw query.
func (ts *testServer) wsRaw(query string) string {
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?" + query
}

// get fetches path with the given request headers and returns the response
// with its body read (and not decompressed: the transport's own gzip is off).
func (ts *testServer) get(t *testing.T, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: waitLong}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp, body
}

// metric returns the value of one series of /metrics, spelled as the text
// format spells it (`name` or `name{label="value"}`), and 0 when absent.
func (ts *testServer) metric(t *testing.T, series string) float64 {
	t.Helper()
	resp, body := ts.get(t, "/metrics", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	v, _ := seriesValue(string(body), series)
	return v
}

// seriesValue finds a series in Prometheus text exposition.
func seriesValue(text, series string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), series+" ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		return f, err == nil
	}
	return 0, false
}

// eventually polls cond until it holds, and fails the test if it does not
// within d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		<-tick.C
	}
}

// htmx returns the message htmx-ext-ws sends for a control: its values
// (hx-vals and form fields) and a HEADERS object with a null in it.
func htmx(action string, kv ...any) string {
	m := map[string]any{"action": action, "HEADERS": map[string]any{
		"HX-Request": "true", "HX-Trigger": "rc-" + action, "HX-Trigger-Name": nil,
		"HX-Target": "rc", "HX-Current-URL": "http://127.0.0.1/reconcile"}}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// wsClient is a browser's socket: a real gorilla client that keeps the
// newest version of each fragment, by id, as htmx-ext-ws swaps them.
type wsClient struct {
	t      *testing.T
	ws     *websocket.Conn
	prefix string                // "rc" or "op"
	frags  map[string]*html.Node // newest version of each top-level element, by id
	frames []string              // every frame received, oldest first
	err    error                 // the read error that ended the socket, if any
}

// dial opens a socket for a demo session and waits for its first frame,
// which carries every fragment.
func dial(t *testing.T, ts *testServer, kind, sid, lang string) *wsClient {
	t.Helper()
	c := dialNoWait(t, ts, kind, sid, lang)
	c.waitFor("the first frame with every fragment", func() bool { return c.frags[c.prefix+"-snapshot"] != nil })
	return c
}

// dialNoWait opens a socket and reads nothing yet.
func dialNoWait(t *testing.T, ts *testServer, kind, sid, lang string) *wsClient {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(ts.wsURL(kind, sid, lang), nil)
	if err != nil {
		status := ""
		if resp != nil {
			status = resp.Status
		}
		t.Fatalf("dial %s session %s: %v %s", kind, sid, err, status)
	}
	prefix := "rc"
	if k := ts.srv.kinds[kind]; k != nil {
		prefix = k.Prefix
	}
	return newClient(t, ws, prefix)
}

// newClient wraps a socket of a demo whose fragments' ids start with prefix.
func newClient(t *testing.T, ws *websocket.Conn, prefix string) *wsClient {
	t.Cleanup(func() { ws.Close() })
	return &wsClient{t: t, ws: ws, prefix: prefix, frags: map[string]*html.Node{}}
}

// send writes one text message.
func (c *wsClient) send(msg string) {
	c.t.Helper()
	c.ws.SetWriteDeadline(time.Now().Add(waitLong))
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		c.t.Fatalf("send %.80q: %v", msg, err)
	}
}

// read reads one frame before deadline and swaps its fragments in.
func (c *wsClient) read(deadline time.Time) error {
	if c.err != nil {
		return c.err
	}
	c.ws.SetReadDeadline(deadline)
	mt, msg, err := c.ws.ReadMessage()
	if err != nil {
		c.err = err
		return err
	}
	if mt != websocket.TextMessage {
		c.t.Errorf("server sent a message of type %d, want text", mt)
	}
	frame := string(msg)
	c.frames = append(c.frames, frame)
	if !utf8.ValidString(frame) {
		c.t.Errorf("frame is not valid UTF-8 (a browser fails the socket with 1007): %.300q", frame)
	}
	nodes, err := parseFragments(frame)
	if err != nil {
		c.t.Errorf("frame: %v", err)
	}
	for _, n := range nodes {
		id := attr(n, "id")
		if old := c.frags[id]; old != nil && attr(n, "hx-swap-oob") == "beforeend" {
			// As the page does (static/app.js): the first data-drop of
			// the page's list leave, and n's children go at its end.
			drop, _ := strconv.Atoi(attr(n, "data-drop"))
			for ; drop > 0 && old.FirstChild != nil; drop-- {
				old.RemoveChild(old.FirstChild)
			}
			for ch := n.FirstChild; ch != nil; ch = n.FirstChild {
				n.RemoveChild(ch)
				old.AppendChild(ch)
			}
			continue
		}
		if old := c.frags[id]; old != nil && attr(n, "hx-swap-oob") == "afterbegin" {
			// The same from the list's other end.
			drop, _ := strconv.Atoi(attr(n, "data-drop"))
			for ; drop > 0 && old.LastChild != nil; drop-- {
				old.RemoveChild(old.LastChild)
			}
			first := old.FirstChild
			for ch := n.FirstChild; ch != nil; ch = n.FirstChild {
				n.RemoveChild(ch)
				old.InsertBefore(ch, first)
			}
			continue
		}
		if _, own := c.frags[id]; !own && n.Data == "li" {
			if in := c.inFragment(id); in != nil {
				// A list's item (demo.List), never a fragment of its own:
				// it replaces the page's, as static/app.js does.
				in.Parent.InsertBefore(n, in)
				in.Parent.RemoveChild(in)
				continue
			}
		}
		c.frags[id] = n
	}
	return nil
}

// inFragment returns the element of id inside one of the fragments the
// page has, or nil.
func (c *wsClient) inFragment(id string) *html.Node {
	var find func(n *html.Node) *html.Node
	find = func(n *html.Node) *html.Node {
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && attr(ch, "id") == id {
				return ch
			}
			if m := find(ch); m != nil {
				return m
			}
		}
		return nil
	}
	for _, f := range c.frags {
		if m := find(f); m != nil {
			return m
		}
	}
	return nil
}

// parseFragments parses a frame into its top-level elements, and checks
// that each carries an id and that nothing else is at the top level.
func parseFragments(frame string) ([]*html.Node, error) {
	nodes, err := html.ParseFragment(strings.NewReader(frame), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var out []*html.Node
	for _, n := range nodes {
		switch {
		case n.Type == html.TextNode && strings.TrimSpace(n.Data) == "":
		case n.Type == html.ElementNode && attr(n, "id") != "":
			out = append(out, n)
		default:
			return out, fmt.Errorf("top-level node without an id (htmx-ext-ws cannot swap it): %s", render(n))
		}
	}
	return out, nil
}

// waitFor reads frames until cond holds, and fails the test if it does not
// within waitLong or the socket ends first.
func (c *wsClient) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if err := c.read(deadline); err != nil {
			c.t.Fatalf("waiting for %s: %v (after %d frames; last: %.400s)", what, err, len(c.frames), c.last())
		}
	}
}

func (c *wsClient) last() string {
	if len(c.frames) == 0 {
		return "(none)"
	}
	return c.frames[len(c.frames)-1]
}

// waitClose reads (and keeps) frames until the server closes the socket, and
// returns the close code; it fails the test if no close frame comes within d.
func (c *wsClient) waitClose(d time.Duration) int {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := c.read(deadline)
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		c.t.Fatalf("want a close frame within %v, got %v", d, err)
	}
}

// testids returns every element with data-testid=id in the newest fragments.
func (c *wsClient) testids(id string) []*html.Node {
	var out []*html.Node
	for _, f := range c.frags {
		out = append(out, findAll(f, func(n *html.Node) bool { return attr(n, "data-testid") == id })...)
	}
	return out
}

// value returns data-value of the element with data-testid=id, or "(absent)".
func (c *wsClient) value(id string) string {
	ns := c.testids(id)
	if len(ns) == 0 {
		return "(absent)"
	}
	return attr(ns[0], "data-value")
}

// errorShown reports whether the demo shows a refusal.
func (c *wsClient) errorShown() bool {
	f := c.frags[c.prefix+"-error"]
	return f != nil && attr(f, "data-value") == "true"
}

// errorCleared reports whether the demo shows no refusal.
func (c *wsClient) errorCleared() bool {
	f := c.frags[c.prefix+"-error"]
	return f != nil && attr(f, "data-value") == ""
}

// pods returns name=phase of each pod (reconcile) or name=ready of each
// member (operator), in page order.
func (c *wsClient) pods() []string {
	var out []string
	if c.prefix == "op" {
		for _, n := range c.testids("member") {
			out = append(out, attr(n, "data-name")+"="+attr(n, "data-ready"))
		}
		return out
	}
	if f := c.frags["rc-pods"]; f != nil {
		for _, n := range findAll(f, func(n *html.Node) bool { return attr(n, "data-testid") == "pod" }) {
			out = append(out, attr(n, "data-name")+"="+attr(n, "data-phase"))
		}
	}
	return out
}

// snapshotJSON returns the data-snapshot the newest frame carries.
func (c *wsClient) snapshotJSON() string {
	c.t.Helper()
	f := c.frags[c.prefix+"-snapshot"]
	if f == nil {
		c.t.Fatal("no snapshot fragment received")
	}
	return attr(f, "data-snapshot")
}

// state is the snapshot without its clock and start times: what a visitor
// declared and observed, which refused input must not change.
func (c *wsClient) state() string {
	c.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(c.snapshotJSON()), &m); err != nil {
		c.t.Fatalf("snapshot is not JSON: %v", err)
	}
	delete(m, "now")
	for _, key := range []string{"pods", "world"} {
		list, _ := m[key].([]any)
		for _, p := range list {
			if p, ok := p.(map[string]any); ok {
				delete(p, "startsIn")
			}
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// attr returns an attribute's value, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hasAttr reports whether n carries the attribute at all.
func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// findAll returns n and its descendants for which match holds, in document order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func render(n *html.Node) string {
	var b strings.Builder
	html.Render(&b, n)
	return b.String()
}

// parsePage parses a full page.
// parsePage parses a page as its script leaves it: each demo of its own
// has taken its session id from the page's tail (static/app.js).
func parsePage(t *testing.T, body []byte) *html.Node {
	t.Helper()
	doc := parseRawPage(t, body)
	tails := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == "sids" })
	if len(tails) == 0 {
		return doc
	}
	sids := strings.Fields(text(tails[0]))
	owned := findAll(doc, func(n *html.Node) bool { return hasAttr(n, "data-demo") && attr(n, "data-role") != "follower" })
	if len(tails) != 1 || len(sids) != len(owned) {
		t.Fatalf("the page's tail names %d sessions for %d demos", len(sids), len(owned))
	}
	for i, d := range owned {
		setAttr(d, "data-sid", sids[i])
		setAttr(d, "ws-connect", attr(d, "ws-connect")+sids[i])
	}
	tails[0].Parent.RemoveChild(tails[0])
	return doc
}

// parseRawPage parses a page as it is served.
func parseRawPage(t *testing.T, body []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse page: %v", err)
	}
	return doc
}

// text is the text of n and its descendants.
func text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var s string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		s += text(c)
	}
	return s
}

// setAttr sets attribute key of n to v.
func setAttr(n *html.Node, key, v string) {
	for i := range n.Attr {
		if n.Attr[i].Key == key {
			n.Attr[i].Val = v
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: v})
}

// byTestID returns the page's elements with data-testid=id.
func byTestID(doc *html.Node, id string) []*html.Node {
	return findAll(doc, func(n *html.Node) bool { return attr(n, "data-testid") == id })
}
