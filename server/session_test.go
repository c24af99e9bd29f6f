package server

// Sessions: isolation, replacement, expiry, restore from the page's
// snapshot, capacity and draining.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gorilla/websocket"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	tmpl "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestVisitorsAreIsolated: two sessions on one server never see each
// other's actions.
func TestVisitorsAreIsolated(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	a := dial(t, ts, "reconcile", newSID(), "en")
	b := dial(t, ts, "reconcile", newSID(), "en")

	a.send(htmx("set-replicas", "replicas", "7"))
	a.send(htmx("step"))
	a.waitFor("7 pods", func() bool { return len(a.pods()) == 7 })
	a.send(htmx("kill", "pod", "pod-1"))
	a.waitFor("pod-1 Failed", func() bool { return slices.Contains(a.pods(), "pod-1=Failed") })

	b.send(htmx("controller", "on", false))
	b.waitFor("b's controller off", func() bool {
		n := b.testids("controller-toggle")
		return len(n) == 1 && attr(n[0], "aria-pressed") == "false"
	})
	if got := b.value("desired"); got != "3" {
		t.Errorf("b sees desired %s, want its own 3", got)
	}
	if got := b.pods(); len(got) != 0 {
		t.Errorf("b sees pods %v, want none", got)
	}
	for _, f := range b.frames {
		// (The clock carries data-value too: look for the desired count's.)
		if strings.Contains(f, `data-name="pod-`) || strings.Contains(f, `data-testid="desired" data-value="7"`) {
			t.Fatalf("b was sent a's state: %.300s", f)
		}
	}
	// And a's controller is still on.
	if n := a.testids("controller-toggle"); len(n) != 1 || attr(n[0], "aria-pressed") != "true" {
		t.Errorf("a's controller changed with b's")
	}
}

// TestSecondSocketReplacesFirst: a second tab (or a reconnect) on the same
// session takes it over; the first socket closes normally.
func TestSecondSocketReplacesFirst(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	sid := newSID()
	first := dial(t, ts, "reconcile", sid, "en")
	first.send(htmx("replicas-inc"))
	first.waitFor("desired 4", func() bool { return first.value("desired") == "4" })

	second := dial(t, ts, "reconcile", sid, "en")
	if got := second.value("desired"); got != "4" {
		t.Errorf("the second socket starts at desired %s, want the session's 4", got)
	}
	if code := first.waitClose(waitLong); code != websocket.CloseNormalClosure {
		t.Errorf("the replaced socket closed with %d, want 1000", code)
	}
	second.send(htmx("replicas-inc"))
	second.waitFor("desired 5", func() bool { return second.value("desired") == "5" })
	if got := ts.srv.hub.live.Load(); got != 1 {
		t.Errorf("%d sessions live, want 1", got)
	}
}

// TestSessionExpiry: a session outlives its socket for SessionTTL, then a
// socket with the same id gets a fresh demo.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		ttl       time.Duration
		wantFresh bool
	}{
		{"reconnect within the TTL keeps the demo", time.Minute, false},
		{"reconnect after the TTL gets a fresh demo", 200 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, Config{Sim: quiet, SessionTTL: tc.ttl})
			sid := newSID()
			c := dial(t, ts, "reconcile", sid, "en")
			c.send(htmx("set-replicas", "replicas", 5))
			c.send(htmx("step"))
			c.send(htmx("kill", "pod", "pod-1"))
			c.waitFor("pod-1 Failed", func() bool { return slices.Contains(c.pods(), "pod-1=Failed") })
			c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
			c.ws.Close()
			closed := time.Now()

			if tc.wantFresh {
				eventually(t, waitLong, "the session expires", func() bool { return ts.srv.hub.live.Load() == 0 })
				if d := time.Since(closed); d < tc.ttl {
					t.Errorf("the session ended %v after its socket, before the TTL of %v", d, tc.ttl)
				}
				if got := ts.metric(t, "reconcile_demo_sessions"); got != 0 {
					t.Errorf("sessions gauge %v, want 0", got)
				}
			}
			again := dial(t, ts, "reconcile", sid, "en")
			desired, pods := again.value("desired"), again.pods()
			if tc.wantFresh {
				if desired != "3" || len(pods) != 0 {
					t.Errorf("after the TTL: desired %s, pods %v; want a fresh demo (3, none)", desired, pods)
				}
			} else if desired != "5" || !slices.Contains(pods, "pod-1=Failed") {
				t.Errorf("within the TTL: desired %s, pods %v; want the same demo (5, pod-1 Failed)", desired, pods)
			}
		})
	}
}

// TestSessionLifetime steps a fake clock through a session's life: it
// lives while a socket is attached however long, and ends exactly SessionTTL
// after its socket leaves, or after it starts if none ever comes.
func TestSessionLifetime(t *testing.T) {
	const ttl = time.Minute
	synctest.Test(t, func(t *testing.T) {
		srv, err := New(Config{SessionTTL: ttl, Sim: quiet, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { srv.Run(ctx); close(done) }()
		live := func() int64 { synctest.Wait(); return srv.hub.live.Load() }

		// A session whose socket never comes.
		if _, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds["reconcile"], "192.0.2.1", tmpl.Ja); err != nil {
			t.Fatal(err)
		}
		time.Sleep(ttl - time.Nanosecond)
		if got := live(); got != 1 {
			t.Fatalf("just before the TTL: %d sessions, want 1", got)
		}
		time.Sleep(time.Nanosecond)
		if got := live(); got != 0 {
			t.Fatalf("at the TTL: %d sessions, want 0", got)
		}

		// A session with a socket: lives for hours while attached.
		sess, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds["operator"], "192.0.2.1", tmpl.En)
		if err != nil {
			t.Fatal(err)
		}
		conn := sockets.Detached() // no socket: the session only fills the mailbox
		sess.attach <- conn
		time.Sleep(3 * time.Hour)
		if got := live(); got != 1 {
			t.Fatalf("attached for 3h: %d sessions, want 1", got)
		}
		if frame := conn.Take(); !strings.Contains(string(frame), `id="op-snapshot"`) {
			t.Errorf("the attached connection was sent no full frame: %.200q", frame)
		}
		sess.detach <- conn
		time.Sleep(ttl - time.Nanosecond)
		if got := live(); got != 1 {
			t.Fatalf("TTL - 1ns after detach: %d sessions, want 1", got)
		}
		time.Sleep(time.Nanosecond)
		if got := live(); got != 0 {
			t.Fatalf("TTL after detach: %d sessions, want 0", got)
		}

		// Draining closes an attached connection with 1012 and Run returns.
		sess, _, err = srv.hub.joinSession(ctx, newSID(), srv.kinds["reconcile"], "192.0.2.1", tmpl.Ja)
		if err != nil {
			t.Fatal(err)
		}
		conn = sockets.Detached()
		sess.attach <- conn
		cancel()
		<-done
		<-conn.Closed()
		if conn.CloseCode() != sockets.CloseServiceRestart {
			t.Errorf("drain closed the connection with %d, want 1012", conn.CloseCode())
		}
	})
}

// validSnapshot is a reconcile snapshot this server could have written:
// 5 declared, pod-1 Failed, pod-2 Running, pod-3 Pending.
func validSnapshot() map[string]any {
	return map[string]any{"v": 1, "now": 4000, "desired": 5, "controller": true, "paused": false, "speed": "1", "seq": 3,
		"pods": []any{
			map[string]any{"name": "pod-1", "phase": "Failed"},
			map[string]any{"name": "pod-2", "phase": "Running"},
			map[string]any{"name": "pod-3", "phase": "Pending", "startsIn": 500},
		}}
}

func restoreMsg(snapshot any) string {
	b, err := json.Marshal(map[string]any{"action": "restore", "snapshot": snapshot})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestRestoreOnAnotherServer: the page's snapshot, sent to a second server
// process that never saw the session, rebuilds the same demo.
func TestRestoreOnAnotherServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind    string
		actions []string
		ready   func(c *wsClient) bool // the state to carry over has been reached
	}{
		{"reconcile", []string{htmx("set-replicas", "replicas", 5), htmx("step"), htmx("kill", "pod", "pod-2"),
			htmx("controller", "on", false), htmx("speed", "speed", "2")},
			func(c *wsClient) bool { return slices.Contains(c.pods(), "pod-2=Failed") && c.value("speed") == "2" }},
		{"operator", []string{htmx("members-inc"), htmx("step"), htmx("step"), htmx("step"), htmx("backup", "present", false)},
			func(c *wsClient) bool { return len(c.pods()) == 2 && c.value("backup") == "false" }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			one := startServer(t, Config{Sim: quiet})
			two := startServer(t, Config{Sim: quiet})
			sid := newSID()
			c := dial(t, one, tc.kind, sid, "en")
			for _, a := range tc.actions {
				c.send(a)
			}
			c.waitFor("the state to carry over", func() bool { return tc.ready(c) })
			want, snap := c.state(), c.snapshotJSON()

			d := dial(t, two, tc.kind, sid, "en")
			if d.state() == want {
				t.Fatal("the second server's fresh demo already equals the first's: the test shows nothing")
			}
			d.send(restoreMsg(json.RawMessage(snap)))
			d.waitFor("the restored demo", func() bool { return d.state() == want })
			if d.errorShown() {
				t.Errorf("restore shows a refusal")
			}
			if got := two.metric(t, `reconcile_demo_rejected_total{reason="bad_snapshot"}`); got != 0 {
				t.Errorf("a valid snapshot was counted as bad")
			}
		})
	}
}

// TestRestoreOnlyBeforeFirstAction: the session is the truth once it has
// acted; the page's copy may be older.
func TestRestoreOnlyBeforeFirstAction(t *testing.T) {
	t.Parallel()
	seven := validSnapshot()
	seven["desired"] = 7
	for _, tc := range []struct {
		name        string
		before      []string // sent before the restore under test
		wantDesired string   // after the restore under test and a replicas-dec
	}{
		{"a fresh session takes the snapshot", nil, "6"},
		{"after an action it is ignored", []string{htmx("replicas-inc")}, "3"},
		{"a second restore is ignored", []string{restoreMsg(validSnapshot())}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, Config{Sim: quiet})
			c := dial(t, ts, "reconcile", newSID(), "en")
			for _, m := range tc.before {
				c.send(m)
			}
			c.send(restoreMsg(seven))
			c.send(htmx("replicas-dec"))
			c.waitFor("desired "+tc.wantDesired, func() bool { return c.value("desired") == tc.wantDesired })
			if c.errorShown() {
				t.Errorf("an ignored restore shows a refusal")
			}
		})
	}
}

// TestTamperedSnapshotRefused: a snapshot this server could not have written
// is refused with a visible error, and the visitor gets a fresh demo.
func TestTamperedSnapshotRefused(t *testing.T) {
	t.Parallel()
	with := func(key string, v any) map[string]any { s := validSnapshot(); s[key] = v; return s }
	withPod := func(p map[string]any) map[string]any {
		s := validSnapshot()
		s["pods"] = append(s["pods"].([]any), p)
		return s
	}
	many := validSnapshot()
	var pods []any
	for i := 1; i <= reconcile.MaxPods+1; i++ {
		pods = append(pods, map[string]any{"name": "pod-" + strconv.Itoa(i), "phase": "Running"})
	}
	many["pods"], many["seq"] = pods, reconcile.MaxPods+1
	opSnap := map[string]any{"v": 1, "now": 0, "members": 3, "backup": true, "controller": false, "paused": false,
		"speed": "1", "status": map[string]any{"phase": "Pending"}, "seq": 0}

	for _, tc := range []struct {
		name     string
		snapshot any
		reason   string
	}{
		{"desired 999", with("desired", 999), demo.ReasonSnapshot},
		{"desired negative", with("desired", -1), demo.ReasonSnapshot},
		{"unknown pod phase", withPod(map[string]any{"name": "pod-4", "phase": "Zombie"}), demo.ReasonSnapshot},
		{"pod named outside the sequence", withPod(map[string]any{"name": "pod-99", "phase": "Running"}), demo.ReasonSnapshot},
		{"pod with a path for a name", withPod(map[string]any{"name": "../../etc/passwd", "phase": "Running"}), demo.ReasonSnapshot},
		{"pod with markup for a name", withPod(map[string]any{"name": "<b>x</b>", "phase": "Running"}), demo.ReasonSnapshot},
		{"pod-0", withPod(map[string]any{"name": "pod-0", "phase": "Running"}), demo.ReasonSnapshot},
		{"pod-01", withPod(map[string]any{"name": "pod-01", "phase": "Running"}), demo.ReasonSnapshot},
		{"duplicate pod", withPod(map[string]any{"name": "pod-2", "phase": "Running"}), demo.ReasonSnapshot},
		{"pending pod starting in a year", withPod(map[string]any{"name": "pod-3", "phase": "Pending", "startsIn": int64(365 * 24 * 3600 * 1000)}), demo.ReasonSnapshot},
		{"more pods than allowed", many, demo.ReasonSnapshot},
		{"version 2", with("v", 2), demo.ReasonSnapshot},
		{"no version", func() map[string]any { s := validSnapshot(); delete(s, "v"); return s }(), demo.ReasonSnapshot},
		{"extra field", with("admin", true), demo.ReasonSnapshot},
		{"speed not offered", with("speed", "100"), demo.ReasonSnapshot},
		{"clock negative", with("now", -1), demo.ReasonSnapshot},
		{"clock absurd", with("now", int64(1)<<62), demo.ReasonSnapshot},
		{"desired a string", with("desired", "5"), demo.ReasonSnapshot},
		{"operator snapshot", opSnap, demo.ReasonSnapshot},
		{"empty object", map[string]any{}, demo.ReasonSnapshot},
		{"not an object", "abc", demo.ReasonWrongType},
		{"an array", []any{validSnapshot()}, demo.ReasonWrongType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, Config{Sim: quiet})
			c := dial(t, ts, "reconcile", newSID(), "en")
			fresh := c.state()
			c.send(restoreMsg(tc.snapshot))
			c.waitFor("the refusal", c.errorShown)
			if got := c.state(); got != fresh {
				t.Errorf("a refused snapshot changed the demo:\nfresh %s\nnow   %s", fresh, got)
			}
			if got := ts.metric(t, `reconcile_demo_rejected_total{reason="`+tc.reason+`"}`); got != 1 {
				t.Errorf("rejected_total{reason=%q} = %v, want 1", tc.reason, got)
			}
			c.send(htmx("replicas-inc"))
			c.waitFor("desired 4 after replicas-inc", func() bool { return c.value("desired") == "4" && c.errorCleared() })
		})
	}
}

// TestCapacity: over a cap, new sessions are refused with 1013 (which
// htmx-ext-ws retries) and pages with 503 and Retry-After; sockets of
// existing sessions still join.
func TestCapacity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"MaxSessions", Config{MaxSessions: 1}},
		{"MaxSessionsPerAddr", Config{MaxSessionsPerAddr: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.cfg.Sim, tc.cfg.SessionTTL = quiet, 300*time.Millisecond
			ts := startServer(t, tc.cfg)
			if resp, _ := ts.get(t, "/reconcile", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /reconcile under the cap: %s", resp.Status)
			}
			sid := newSID()
			first := dial(t, ts, "reconcile", sid, "en")

			over := dialNoWait(t, ts, "reconcile", newSID(), "en")
			if code := over.waitClose(waitLong); code != websocket.CloseTryAgainLater {
				t.Errorf("a session over the cap closed with %d, want 1013", code)
			}
			if len(over.frames) != 0 {
				t.Errorf("a refused socket was sent %d frames", len(over.frames))
			}
			// The existing session still takes a new socket.
			again := dial(t, ts, "reconcile", sid, "en")
			if code := first.waitClose(waitLong); code != websocket.CloseNormalClosure {
				t.Errorf("the replaced socket closed with %d, want 1000", code)
			}
			again.send(htmx("replicas-inc"))
			again.waitFor("desired 4", func() bool { return again.value("desired") == "4" })

			if tc.cfg.MaxSessions == 1 {
				if resp, _ := ts.get(t, "/readyz", nil); resp.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("readyz at the cap: %s, want 503", resp.Status)
				}
			}
			t.Run("page answers 503", func(t *testing.T) {
				checkBusyPage(t, ts)
			})

			// When the session expires, the capacity is free again.
			again.ws.Close()
			eventually(t, waitLong, "the page is served again after the session expires", func() bool {
				resp, _ := ts.get(t, "/reconcile", nil)
				return resp.StatusCode == http.StatusOK
			})
		})
	}
}

func checkBusyPage(t *testing.T, ts *testServer) {
	t.Helper()
	resp, body := ts.get(t, "/reconcile?lang=en", nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("GET /reconcile at the cap: %s, want 503", resp.Status)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	if !strings.Contains(string(body), "busy") {
		t.Errorf("the 503 page does not say the demo is busy: %.300s", body)
	}
}

// TestDrain: cancelling Run closes every socket with 1012 at once, readyz
// turns 503, and nothing new starts.
func TestDrain(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	if resp, _ := ts.get(t, "/readyz", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz before the drain: %s, want 200", resp.Status)
	}
	clients := []*wsClient{
		dial(t, ts, "reconcile", newSID(), "en"),
		dial(t, ts, "operator", newSID(), "ja"),
		dial(t, ts, "reconcile", newSID(), "ja"),
	}
	start := time.Now()
	ts.cancel()
	for i, c := range clients {
		if code := c.waitClose(2 * time.Second); code != websocket.CloseServiceRestart {
			t.Errorf("socket %d closed with %d, want 1012", i, code)
		}
	}
	t.Logf("every socket closed %v after the drain began", time.Since(start))
	select {
	case <-ts.done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not return within 2s of the drain")
	}
	if resp, _ := ts.get(t, "/readyz", nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("readyz after the drain: %s, want 503", resp.Status)
	}
	if resp, _ := ts.get(t, "/reconcile", nil); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a page during the drain: %s (Retry-After %q), want 503 with Retry-After", resp.Status, resp.Header.Get("Retry-After"))
	}
}

// TestSocketAfterDrain: a page that reconnects at once after its 1012 (as
// htmx-ext-ws does) is answered promptly, not left hanging.
func TestSocketAfterDrain(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{Sim: quiet})
	ts.cancel()
	<-ts.done
	d := websocket.Dialer{HandshakeTimeout: 2 * time.Second}
	ws, resp, err := d.Dial(ts.wsURL("reconcile", newSID(), "en"), nil)
	switch {
	case err == nil:
		c := newClient(t, ws, "rc")
		if code := c.waitClose(2 * time.Second); code != websocket.CloseServiceRestart {
			t.Errorf("a socket after the drain closed with %d, want 1012", code)
		}
	case resp != nil:
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("a socket after the drain: %s, want 503 or a 1012 close", resp.Status)
		}
	default:
		t.Fatalf("a socket after the drain got no answer within 2s: %v", err)
	}
}
