package server

// Hostile and careless input at every door: the socket's messages, the
// socket's handshake, static paths, and a browser that stops reading.

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	"golang.org/x/net/html"
)

// TestHostileInput sends one bad message to a fresh session and expects a
// visible refusal, no state change, a counted reason, and a connection that
// still works.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	markup := "<img src=x onerror=alert(1)>"
	cut := strings.Repeat("x", demo.MaxNameLen-1) + "é" // demo.MaxNameLen falls inside é
	for _, tc := range []struct {
		name   string
		kind   string               // "" is reconcile
		setup  []string             // valid messages first, which leave the count at `at`
		ready  func(*wsClient) bool // the setup has been applied, beside the count
		at     int                  // desired (or Spec.Members) before the bad message; 0 means 3, -1 means 0
		msg    string
		reason string
	}{
		{name: "malformed JSON", msg: `{"action":`, reason: demo.ReasonMalformed},
		{name: "JSON array", msg: `[{"action":"step"}]`, reason: demo.ReasonMalformed},
		{name: "JSON string", msg: `"step"`, reason: demo.ReasonMalformed},
		{name: "JSON null", msg: `null`, reason: demo.ReasonMalformed},
		{name: "empty message", msg: ``, reason: demo.ReasonMalformed},
		{name: "two objects in one message", msg: `{"action":"step"}{"action":"step"}`, reason: demo.ReasonMalformed},
		{name: "no action", msg: `{"HEADERS":{"HX-Request":"true"}}`, reason: demo.ReasonUnknownAction},
		{name: "unknown action", msg: htmx("explode"), reason: demo.ReasonUnknownAction},
		{name: "action of the operator demo", msg: htmx("kill-member", "member", "db-1"), reason: demo.ReasonUnknownAction},
		{name: "action in another case", msg: htmx("STEP"), reason: demo.ReasonUnknownAction},
		{name: "action not a string", msg: `{"action":["step"]}`, reason: demo.ReasonWrongType},
		{name: "replicas a word", msg: htmx("set-replicas", "replicas", "abc"), reason: demo.ReasonWrongType},
		{name: "replicas a boolean", msg: htmx("set-replicas", "replicas", true), reason: demo.ReasonWrongType},
		{name: "replicas an object", msg: `{"action":"set-replicas","replicas":{"n":5}}`, reason: demo.ReasonWrongType},
		{name: "on a word", msg: htmx("controller", "on", "yes"), reason: demo.ReasonWrongType},
		{name: "on a number", msg: htmx("controller", "on", 1), reason: demo.ReasonWrongType},
		{name: "pod a number", msg: htmx("kill", "pod", 123), reason: demo.ReasonWrongType},
		{name: "pod empty", msg: htmx("kill", "pod", ""), reason: demo.ReasonWrongType},
		{name: "pod name too long", msg: htmx("kill", "pod", strings.Repeat("p", demo.MaxNameLen+1)), reason: demo.ReasonWrongType},
		{name: "replicas above the maximum", msg: htmx("set-replicas", "replicas", 11), reason: demo.ReasonOutOfRange},
		{name: "replicas above the maximum as a string", msg: htmx("set-replicas", "replicas", "11"), reason: demo.ReasonOutOfRange},
		{name: "replicas negative", msg: htmx("set-replicas", "replicas", -1), reason: demo.ReasonOutOfRange},
		{name: "replicas 1e308", msg: `{"action":"set-replicas","replicas":1e308}`, reason: demo.ReasonOutOfRange},
		{name: "replicas beyond int64", msg: `{"action":"set-replicas","replicas":99999999999999999999}`, reason: demo.ReasonOutOfRange},
		{name: "replicas a fraction", msg: `{"action":"set-replicas","replicas":2.5}`, reason: demo.ReasonOutOfRange},
		{name: "replicas NaN", msg: htmx("set-replicas", "replicas", "NaN"), reason: demo.ReasonOutOfRange},
		{name: "replicas a thousand digits", msg: htmx("set-replicas", "replicas", strings.Repeat("9", 1000)), reason: demo.ReasonOutOfRange},
		{name: "replicas-dec at 0", setup: []string{htmx("set-replicas", "replicas", 0)}, at: -1, msg: htmx("replicas-dec"), reason: demo.ReasonOutOfRange},
		{name: "replicas-inc at the maximum", setup: []string{htmx("set-replicas", "replicas", 10)}, at: 10, msg: htmx("replicas-inc"), reason: demo.ReasonOutOfRange},
		{name: "speed not offered", msg: htmx("speed", "speed", "3"), reason: demo.ReasonOutOfRange},
		{name: "unknown extra field", msg: htmx("step", "evil", 1), reason: demo.ReasonWrongType},
		{name: "HEADERS not an object", msg: `{"action":"step","HEADERS":"x"}`, reason: demo.ReasonWrongType},
		{name: "missing field", msg: htmx("set-replicas"), reason: demo.ReasonWrongType},
		{name: "kill of a pod that does not exist", msg: htmx("kill", "pod", "pod-1"), reason: demo.ReasonUnknownTarget},
		{name: "kill of a Failed pod", setup: []string{htmx("step"), htmx("kill", "pod", "pod-1")},
			ready: func(c *wsClient) bool { return slices.Contains(c.pods(), "pod-1=Failed") },
			msg:   htmx("kill", "pod", "pod-1"), reason: demo.ReasonUnknownTarget},
		{name: "markup in the action", msg: htmx(markup), reason: demo.ReasonUnknownAction},
		{name: "markup in the pod name", msg: htmx("kill", "pod", markup), reason: demo.ReasonUnknownTarget},
		{name: "markup in a field name", msg: htmx("step", markup, 1), reason: demo.ReasonWrongType},
		{name: "long action cut inside a character", msg: htmx(cut + "tail"), reason: demo.ReasonUnknownAction},
		{name: "long field name cut inside a character", msg: htmx("step", cut+"tail", 1), reason: demo.ReasonWrongType},
		{name: "on null", msg: htmx("controller", "on", nil), reason: demo.ReasonWrongType},
		// The operator demo.
		{name: "operator: action of the reconcile demo", kind: "operator", msg: htmx("kill", "pod", "pod-1"), reason: demo.ReasonUnknownAction},
		{name: "operator: members a word", kind: "operator", msg: htmx("set-members", "members", "abc"), reason: demo.ReasonWrongType},
		{name: "operator: members 0", kind: "operator", msg: htmx("set-members", "members", 0), reason: demo.ReasonOutOfRange},
		{name: "operator: members above the maximum", kind: "operator", msg: htmx("set-members", "members", 8), reason: demo.ReasonOutOfRange},
		{name: "operator: members-dec at 1", kind: "operator", setup: []string{htmx("set-members", "members", 1)}, at: 1, msg: htmx("members-dec"), reason: demo.ReasonOutOfRange},
		{name: "operator: kill of a member that does not exist", kind: "operator", msg: htmx("kill-member", "member", "db-1"), reason: demo.ReasonUnknownTarget},
		{name: "operator: present a word", kind: "operator", msg: htmx("backup", "present", "gone"), reason: demo.ReasonWrongType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kind, count, inc := "reconcile", "desired", "replicas-inc"
			if tc.kind == "operator" {
				kind, count, inc = "operator", "spec-members", "members-inc"
			}
			at := tc.at
			switch at {
			case 0:
				at = 3
			case -1:
				at = 0
			}
			ts := startServer(t, Config{Sim: quiet})
			c := dial(t, ts, kind, newSID(), "en")
			for _, m := range tc.setup {
				c.send(m)
			}
			c.waitFor("the setup", func() bool {
				return c.value(count) == fmt.Sprint(at) && (tc.ready == nil || tc.ready(c))
			})
			before := c.state()

			c.send(tc.msg)
			c.waitFor("the refusal", c.errorShown)
			if after := c.state(); after != before {
				t.Errorf("refused input changed the demo:\nbefore %s\nafter  %s", before, after)
			}
			errBox := c.frags[c.prefix+"-error"]
			for _, n := range findAll(errBox, func(*html.Node) bool { return true })[1:] {
				if n.Data != "strong" {
					t.Errorf("refusal holds a <%s> element: input reached the page as markup: %s", n.Data, render(errBox))
				}
			}
			for _, f := range c.frames {
				if strings.Contains(f, "<img") {
					t.Errorf("a frame carries the visitor's markup unescaped: %.300s", f)
				}
			}
			if got := ts.metric(t, `reconcile_demo_rejected_total{reason="`+tc.reason+`"}`); got != 1 {
				t.Errorf("rejected_total{reason=%q} = %v, want 1", tc.reason, got)
			}

			// The connection is kept, and the demo is where it was; the
			// refusal goes away with the next accepted action.
			if at == 10 {
				inc, at = "replicas-dec", 10-2
			}
			c.send(htmx(inc))
			want := fmt.Sprint(at + 1)
			c.waitFor(count+" "+want+" after "+inc, func() bool { return c.value(count) == want && c.errorCleared() })
		})
	}
}

// TestStrikesForgiveAMistypingVisitor: a burst of refusals below the strike
// limit does not cost the connection.
func TestStrikesForgiveAMistypingVisitor(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	c := dial(t, ts, "reconcile", newSID(), "en")
	for range maxStrikes - 1 {
		c.send(`{`)
	}
	c.send(htmx("replicas-inc"))
	c.waitFor("desired 4", func() bool { return c.value("desired") == "4" && c.errorCleared() })
	if got := ts.metric(t, `reconcile_demo_rejected_total{reason="malformed"}`); got != maxStrikes-1 {
		t.Errorf("rejected_total{reason=\"malformed\"} = %v, want %d", got, maxStrikes-1)
	}
}

// TestHostileInputCloses covers input that ends the connection, each with
// its close code and counted reason.
func TestHostileInputCloses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		send     func(ws *websocket.Conn) // runs on its own goroutine, beside the reader
		wantCode int
		reason   string
	}{
		{"frame over the read limit", func(ws *websocket.Conn) {
			pad := strings.Repeat("a", sockets.MaxMessage)
			ws.WriteMessage(websocket.TextMessage, []byte(htmx("step", "pad", pad)))
		}, websocket.CloseMessageTooBig, demo.ReasonTooBig},
		{"binary frame", func(ws *websocket.Conn) {
			ws.WriteMessage(websocket.BinaryMessage, []byte(htmx("step")))
		}, websocket.CloseUnsupportedData, demo.ReasonBinary},
		{"30 malformed messages", func(ws *websocket.Conn) {
			for range 30 {
				if ws.WriteMessage(websocket.TextMessage, []byte(`{"action":`)) != nil {
					return
				}
			}
		}, websocket.ClosePolicyViolation, demo.ReasonMalformed},
		{"flood of 500 valid steps", func(ws *websocket.Conn) {
			for range 500 {
				if ws.WriteMessage(websocket.TextMessage, []byte(htmx("step"))) != nil {
					return
				}
			}
		}, websocket.ClosePolicyViolation, demo.ReasonRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, Config{Sim: quiet})
			c := dial(t, ts, "reconcile", newSID(), "en")
			start := time.Now()
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				tc.send(c.ws)
			}()
			code := c.waitClose(waitLong)
			elapsed := time.Since(start)
			<-sent
			if code != tc.wantCode {
				t.Fatalf("close code %d, want %d", code, tc.wantCode)
			}
			// Gorilla closes an oversized frame itself (1009), which can
			// reach the client before the read pump counts the refusal.
			eventually(t, waitLong, fmt.Sprintf("rejected_total{reason=%q} counts it", tc.reason), func() bool {
				return ts.metric(t, `reconcile_demo_rejected_total{reason="`+tc.reason+`"}`) >= 1
			})
			if tc.reason == demo.ReasonRate {
				// Defaults: 20 actions a second, 40 at once.
				steps := ts.metric(t, `reconcile_demo_actions_total{action="step",demo="reconcile"}`)
				if limit := 40 + 20*elapsed.Seconds() + 1; steps > limit || steps < 40 {
					t.Errorf("%v steps accepted in %v, want 40 (the burst) to %.0f", steps, elapsed, limit)
				}
				t.Logf("flood: %v of 500 steps accepted, closed after %v", steps, elapsed)
			}
		})
	}
}

// TestHandshakeRefused covers sockets refused before the upgrade: they
// never create a session.
func TestHandshakeRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	sid := newSID()
	same := ts.URL // the page's own origin
	for _, tc := range []struct {
		name   string
		query  string
		origin string
		want   int
	}{
		{"foreign Origin", "demo=reconcile&sid=" + sid, "http://evil.example", http.StatusForbidden},
		{"Origin of a sandboxed frame", "demo=reconcile&sid=" + sid, "null", http.StatusForbidden},
		{"Origin on another port", "demo=reconcile&sid=" + sid, "http://127.0.0.1:1", http.StatusForbidden},
		{"Origin of a lookalike host", "demo=reconcile&sid=" + sid, strings.Replace(same, "127.0.0.1", "127.0.0.1.evil.example", 1), http.StatusForbidden},
		{"malformed sid", "demo=reconcile&sid=xyz", same, http.StatusBadRequest},
		{"sid in capitals", "demo=reconcile&sid=" + strings.ToUpper(sid), same, http.StatusBadRequest},
		{"sid too short", "demo=reconcile&sid=" + sid[1:], same, http.StatusBadRequest},
		{"sid too long", "demo=reconcile&sid=" + sid + "0", same, http.StatusBadRequest},
		{"sid not hex", "demo=reconcile&sid=" + strings.Repeat("g", 32), same, http.StatusBadRequest},
		{"sid of path characters", "demo=reconcile&sid=" + strings.Repeat("..%2F", 6) + "ab", same, http.StatusBadRequest},
		{"no sid", "demo=reconcile", same, http.StatusBadRequest},
		{"unknown demo", "demo=nope&sid=" + sid, same, http.StatusBadRequest},
		{"demo in capitals", "demo=RECONCILE&sid=" + sid, same, http.StatusBadRequest},
		{"no demo", "sid=" + sid, same, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Origin": {tc.origin}}
			ws, resp, err := websocket.DefaultDialer.Dial(ts.wsRaw(tc.query), h)
			if err == nil {
				ws.Close()
				t.Fatalf("handshake succeeded, want %d", tc.want)
			}
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("handshake: %v, response %v; want status %d", err, resp, tc.want)
			}
		})
	}
	if got := ts.metric(t, `reconcile_demo_rejected_total{reason="origin"}`); got != 4 {
		t.Errorf("rejected_total{reason=\"origin\"} = %v, want 4", got)
	}
	if got := ts.srv.hub.live.Load(); got != 0 {
		t.Errorf("%d sessions live after refused handshakes, want 0", got)
	}
	// The page's own origin, and a client that is not a browser, are accepted.
	for _, origin := range []string{same, ""} {
		ws, _, err := websocket.DefaultDialer.Dial(ts.wsURL("reconcile", newSID(), "en"), http.Header{"Origin": {origin}})
		if err != nil {
			t.Fatalf("Origin %q refused: %v", origin, err)
		}
		ws.Close()
	}
}

// TestForgedSIDGetsFreshSession: a well-formed id nobody was given is a new
// session with the starting state, not someone else's demo.
func TestForgedSIDGetsFreshSession(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	for _, sid := range []string{strings.Repeat("0", 32), "0123456789abcdef0123456789abcdef", newSID()} {
		c := dial(t, ts, "reconcile", sid, "en")
		if got := c.value("desired"); got != "3" {
			t.Errorf("sid %s: desired %s, want 3", sid, got)
		}
		if got := c.pods(); len(got) != 0 {
			t.Errorf("sid %s: pods %v, want none", sid, got)
		}
		if got := c.value("observed"); got != "0" {
			t.Errorf("sid %s: observed %s, want 0", sid, got)
		}
	}
}

// TestSIDOfAnotherDemoRefused: a reconcile socket that names someone's
// operator session is refused, and that session is untouched.
func TestSIDOfAnotherDemoRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	sid := newSID()
	owner := dial(t, ts, "operator", sid, "en")
	owner.send(htmx("members-inc"))
	owner.waitFor("spec-members 4", func() bool { return owner.value("spec-members") == "4" })
	before := owner.state()

	ws, resp, err := websocket.DefaultDialer.Dial(ts.wsURL("reconcile", sid, "en"), nil)
	if err == nil {
		ws.Close()
		t.Fatal("a reconcile socket joined an operator session")
	}
	if resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("handshake: %v, response %v; want 400", err, resp)
	}

	// The owner's socket still works, and its demo is as the owner left it.
	owner.send(htmx("members-inc"))
	owner.waitFor("spec-members 5", func() bool { return owner.value("spec-members") == "5" })
	owner.send(htmx("members-dec"))
	owner.waitFor("spec-members 4", func() bool { return owner.value("spec-members") == "4" })
	if after := owner.state(); after != before {
		t.Errorf("the operator session changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestStaticPathEscape asks for files outside static/ in every spelling:
// none may come back.
func TestStaticPathEscape(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	source := []string{"module github.com/", "package ", "import (", "go:embed"}
	for _, path := range []string{
		"/static/../go.mod",
		"/static/%2e%2e/server.go",
		"/static/%2E%2E/go.mod",
		"/static/..%2fgo.mod",
		"/static/..%2Fserver%2Fserver.go",
		"/static/app.css/../../go.mod",
		"/static/static.go",
		"/static/./static.go",
		"/static//etc/passwd",
		"/static/%00",
		"/static/..\\go.mod",
		"/static/",
		"/static",
	} {
		t.Run(path, func(t *testing.T) {
			status, loc, body := rawGet(t, ts, path)
			for hops := 0; status >= 300 && status < 400 && hops < 3; hops++ {
				if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
					t.Fatalf("redirect to %q leaves the site", loc)
				}
				status, loc, body = rawGet(t, ts, loc)
			}
			if status == http.StatusOK {
				t.Errorf("GET %s: 200, want 404 (or a redirect to a harmless path)", path)
			}
			for _, s := range source {
				if strings.Contains(body, s) {
					t.Fatalf("GET %s returned source (%q): %.300s", path, s, body)
				}
			}
		})
	}
}

// rawGet sends path exactly as given on the request line, so that no client
// cleans it first, and returns status, Location and body.
func rawGet(t *testing.T, ts *testServer, path string) (int, string, string) {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(waitLong))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, ts.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, err = bufio.NewReader(resp.Body).WriteTo(&b)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), b.String()
}

// TestSlowReader: a browser that stops reading costs a bounded amount of
// memory, its frames coalesce, and neither its session nor any other is
// held up.
func TestSlowReader(t *testing.T) {
	// Not parallel: it measures the heap.
	// Small socket buffers on both ends, so that a reader that stops fills
	// them after a few frames, as a stalled browser on a real network does.
	ts := startServerOn(t, Config{Sim: quiet, ActionRate: 1e6, ActionBurst: 1e6}, func(ln net.Listener) net.Listener {
		return smallSendBuffer{ln}
	})
	sid := newSID()
	dialer := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			conn.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return conn, err
	}}
	ws, _, err := dialer.Dial(ts.wsURL("reconcile", sid, "en"), nil)
	if err != nil {
		t.Fatal(err)
	}
	slow := newClient(t, ws, "rc")

	before := liveHeap()

	const actions = 300
	start := time.Now()
	for i := range actions {
		slow.send(htmx("set-replicas", "replicas", 2+(i%2)*6)) // 2, 8, 2, 8, …: each changes the demo
	}
	slow.send(htmx("set-replicas", "replicas", 5)) // the last, told apart from the rest
	// The session takes every action although nothing is read.
	applied := func() float64 {
		return ts.metric(t, `reconcile_demo_actions_total{action="set-replicas",demo="reconcile"}`)
	}
	eventually(t, 30*time.Second, "the session applies every action", func() bool { return applied() == actions+1 })
	took := time.Since(start)

	// Measured before anything else opens: another session, and the test's
	// own clients that keep every frame they read, would count here too.
	// What the test's earlier servers leave to be collected comes and goes;
	// what this reader holds stays, so the least reading within a few
	// seconds is the one that counts.
	growth := liveHeap() - before
	for settle := time.Now().Add(5 * time.Second); growth > 1<<20 && time.Now().Before(settle); {
		time.Sleep(50 * time.Millisecond)
		growth = min(growth, liveHeap()-before)
	}

	// Another visitor is served meanwhile.
	other := dial(t, ts, "reconcile", newSID(), "en")
	t0 := time.Now()
	other.send(htmx("replicas-inc"))
	other.waitFor("desired 4", func() bool { return other.value("desired") == "4" })
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("another session answered in %v, want well under 2s", d)
	}
	sent := ts.metric(t, "reconcile_demo_frames_sent_total")
	coalesced := ts.metric(t, "reconcile_demo_frames_coalesced_total")

	// A new socket for the same session gets the newest state at once.
	fresh := dial(t, ts, "reconcile", sid, "en")
	if got := fresh.value("desired"); got != "5" {
		t.Errorf("the session's new socket shows desired %s, want 5", got)
	}
	frameSize := len(fresh.frames[0])
	t.Logf("%d actions applied in %v: %v frames sent, %v coalesced; heap %+d KB; a full frame is %d KB",
		actions+1, took, sent, coalesced, growth>>10, frameSize>>10)
	if coalesced < actions/2 {
		t.Errorf("frames_coalesced_total = %v, want most of the %d frames of a socket that is never read", coalesced, actions)
	}
	// Queueing every frame would hold about actions × a frame's size.
	if limit := int64(actions * frameSize / 4); growth > limit {
		t.Errorf("heap grew by %d KB for a reader that stopped, want under %d KB", growth>>10, limit>>10)
	}
}

// liveHeap is the live heap: the least of three readings after a
// collection, since whatever runs beside the test (the server's goroutines,
// the race detector) allocates between a collection and its reading, and
// only what stays is held.
func liveHeap() int64 {
	least := int64(math.MaxInt64)
	for range 3 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		least = min(least, int64(m.HeapAlloc))
	}
	return least
}

// smallSendBuffer accepts connections with a small send buffer.
type smallSendBuffer struct{ net.Listener }

func (l smallSendBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(8 << 10)
	}
	return c, err
}

// TestCloseFrameSurvivesAFlood: a socket closed for flooding gets its close
// frame (1008), though it kept sending and read nothing until it stopped.
// The server lets it read the frame before it closes: closed with the
// flood unread, the connection would be reset, and a reset can discard the
// close frame on its way.
func TestCloseFrameSurvivesAFlood(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	c := dial(t, ts, "reconcile", newSID(), "en")
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		if c.ws.WriteMessage(websocket.TextMessage, []byte(htmx("step"))) != nil {
			break
		}
	}
	if code := c.waitClose(waitLong); code != websocket.ClosePolicyViolation {
		t.Fatalf("close code %d, want %d", code, websocket.ClosePolicyViolation)
	}
}
