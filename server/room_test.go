package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/rooms"
)

// follow opens a follower's socket to a room and waits for the first frame,
// which carries every fragment.
func follow(t *testing.T, ts *testServer, code, lang, prefix string) *wsClient {
	t.Helper()
	q := url.Values{"room": {code}, "lang": {lang}}
	for name, k := range ts.srv.kinds {
		if k.Prefix == prefix {
			q.Set("demo", name) // as the room page's ws-connect says
		}
	}
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?" + q.Encode()
	ws, resp, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		status := ""
		if resp != nil {
			status = resp.Status
		}
		t.Fatalf("follow room %s: %v %s", code, err, status)
	}
	c := newClient(t, ws, prefix)
	c.waitFor("the room's demo", func() bool { return c.frags[prefix+"-snapshot"] != nil })
	return c
}

// openRoom has the owner open a room and returns its code.
func openRoom(t *testing.T, owner *wsClient) string {
	t.Helper()
	owner.send(htmx("room-open"))
	owner.waitFor("the room panel", func() bool { return owner.value("room-code") != "(absent)" })
	code := owner.value("room-code")
	if _, ok := rooms.ParseCode(code); !ok {
		t.Fatalf("room code %q", code)
	}
	return code
}

// noSID fails the test if any byte a follower received holds the owner's
// session id.
func noSID(t *testing.T, sid string, who string, frames []string) {
	t.Helper()
	for _, f := range frames {
		if strings.Contains(f, sid) {
			t.Fatalf("%s received the owner's session id: %.300q", who, f)
		}
	}
}

// followersShown waits until the owner's panel counts n followers.
func followersShown(owner *wsClient, n string) {
	owner.waitFor("followers "+n, func() bool { return owner.value("room-followers") == n })
}

// TestRoomOnOneServer: a teacher opens a room; two followers (one in
// English) see its demo live, read-only, without the teacher's session id;
// one forks it into a demo of its own; closing the room tells them.
func TestRoomOnOneServer(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet})
	sid := newSID()
	for _, k := range demos.All() {
		_, body := ts.get(t, "/"+k.Name, nil)
		if root := byTestID(parsePage(t, body), k.Name+"-demo"); len(root) != 1 || len(byTestID(root[0], "room-open")) != 1 {
			t.Errorf("the %s demo has no room-open button", k.Name)
		}
	}
	owner := dial(t, ts, "reconcile", sid, "ja")
	code := openRoom(t, owner)
	if !strings.HasSuffix(attr(owner.testids("room-url")[0], "href"), "/room/"+code) || len(owner.testids("room-qr")) != 1 {
		t.Fatalf("the panel has no join URL or QR code: %s", render(owner.frags["rc-room"]))
	}

	// The follower's page: the demo as followers see it.
	resp, body := ts.get(t, "/room/"+strings.ToLower(code)+"?lang=en", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /room/%s: %s", code, resp.Status)
	}
	doc := parsePage(t, body)
	root := byTestID(doc, "reconcile-demo")
	if len(root) != 1 || attr(root[0], "data-role") != "follower" || attr(root[0], "data-sid") != "" ||
		!strings.Contains(attr(root[0], "ws-connect"), "room="+code) {
		t.Fatalf("the room page's demo is not a follower's: %.400s", render(root[0]))
	}
	if len(byTestID(doc, "room-banner")) != 1 || len(byTestID(doc, "fork")) != 1 {
		t.Fatal("the room page has no banner or fork button")
	}
	if !strings.Contains(string(body), `<link rel="stylesheet" href="/static/room.css">`) || !strings.Contains(string(body), `<script src="/static/room.js" defer>`) ||
		strings.Contains(string(body), "data-room=") {
		t.Error("the room page does not link the rooms' stylesheet and script")
	}
	if strings.Contains(string(body), sid) {
		t.Fatal("the room page holds the owner's session id")
	}

	ja := follow(t, ts, code, "ja", "rc")
	en := follow(t, ts, code, "en", "rc")
	followersShown(owner, "2")

	// The teacher acts: both followers see it in their language.
	owner.send(htmx("set-replicas", "replicas", 5))
	for _, f := range []*wsClient{ja, en} {
		f.waitFor("desired 5", func() bool { return f.value("desired") == "5" })
	}
	if !strings.Contains(render(en.frags["rc-desired"]), "Desired state") || !strings.Contains(render(ja.frags["rc-desired"]), "desired state(宣言)") {
		t.Error("followers do not read the demo in their own language")
	}

	// A follower cannot act: refused by the server, the demo unchanged.
	before := owner.state()
	en.send(htmx("set-replicas", "replicas", 1))
	en.send(htmx("room-close"))
	en.waitFor("the refusal", en.errorShown)
	owner.send(htmx("pause", "paused", false)) // a round trip: the refusals came before it
	owner.waitFor("the teacher's demo", func() bool { return owner.state() == before })
	if ts.metric(t, `reconcile_demo_rejected_total{reason="follower"}`) < 2 {
		t.Error("the followers' actions were not counted as refused")
	}

	// Fork: a private session from the room's current state.
	snap := en.snapshotJSON()
	mine := dial(t, ts, "reconcile", newSID(), "en")
	mine.send(restoreMsg(json.RawMessage(snap)))
	mine.waitFor("the forked state", func() bool { return mine.value("desired") == "5" })
	mine.send(htmx("set-replicas", "replicas", 2))
	mine.waitFor("the fork acts alone", func() bool { return mine.value("desired") == "2" })
	owner.send(htmx("pause", "paused", false))
	owner.waitFor("the teacher unchanged", func() bool { return owner.value("desired") == "5" })

	// Leaving lowers the count; closing tells the rest, who may still fork.
	ja.ws.Close()
	followersShown(owner, "1")
	owner.send(htmx("room-close"))
	if code := en.waitClose(waitLong); code != websocket.CloseNormalClosure {
		t.Errorf("a follower of a closed room got %d, want 1000", code)
	}
	if b := en.frags["room-banner"]; b == nil || attr(b, "data-ended") != "true" {
		t.Error("the follower was not told the room ended")
	}
	noSID(t, sid, "the English follower", en.frames)
	noSID(t, sid, "the Japanese follower", ja.frames)
	if resp, _ := ts.get(t, "/room/"+code, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a closed room's page: %s, want 404", resp.Status)
	}
}

// TestRoomEndsWithItsSession: when the owner's session expires, its
// followers are told; while they watch, the demo keeps its clock.
func TestRoomEndsWithItsSession(t *testing.T) {
	ts := startServer(t, Config{SessionTTL: 2500 * time.Millisecond})
	owner := dial(t, ts, "operator", newSID(), "ja")
	code := openRoom(t, owner)
	f := follow(t, ts, code, "ja", "op")
	owner.send(htmx("step")) // restore
	owner.send(htmx("step")) // create db-1, which starts 1.5 s later
	f.waitFor("db-1 created", func() bool { return len(f.pods()) == 1 })
	owner.ws.Close() // the teacher's tab goes away; the follower still watches
	f.waitFor("db-1 ready while only a follower watches", func() bool {
		p := f.pods()
		return len(p) == 1 && p[0] == "db-1=true"
	})
	// The session's TTL ends: the follower is told, and its socket closes.
	if code := f.waitClose(5 * time.Second); code != websocket.CloseNormalClosure {
		t.Errorf("close %d, want 1000", code)
	}
	if b := f.frags["room-banner"]; b == nil || attr(b, "data-ended") != "true" {
		t.Error("the follower was not told the room ended")
	}
}

// TestRoomLimits: rooms per address, followers per room, and wrong codes.
func TestRoomLimits(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet, RoomsPerAddr: 1, RoomFollowers: 1, RoomLookupBurst: 3, RoomLookups: 0.001})
	a := dial(t, ts, "reconcile", newSID(), "en")
	code := openRoom(t, a)
	b := dial(t, ts, "operator", newSID(), "en")
	b.send(htmx("room-open"))
	b.waitFor("the refusal", b.errorShown)
	if b.value("room-code") != "(absent)" {
		t.Error("a second room from one address was opened")
	}

	follow(t, ts, code, "en", "rc")
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws?room=" + code
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	second := newClient(t, ws, "rc")
	if code := second.waitClose(waitLong); code != websocket.CloseTryAgainLater {
		t.Errorf("a follower over the limit got %d, want 1013", code)
	}

	// Three wrong codes (the burst), then the address must wait.
	for i, want := range []int{404, 404, 404, 429} {
		if resp, _ := ts.get(t, "/room/"+strings.Repeat("Y", 6), nil); resp.StatusCode != want {
			t.Errorf("wrong code %d: %s, want %d", i+1, resp.Status, want)
		}
	}
	// Out of tokens, even the right code is refused for a while.
	if resp, _ := ts.get(t, "/room/"+code, nil); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a right code after many wrong ones: %s, want 429", resp.Status)
	}
	if ts.metric(t, `reconcile_demo_room_lookups_total{result="limited"}`) == 0 {
		t.Error("limited lookups are not counted")
	}
	for _, bad := range []string{"/room/abc", "/room/0OIL15", "/room/" + strings.Repeat("A", 200)} {
		if resp, _ := ts.get(t, bad, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", bad, resp.Status)
		}
	}
	if resp, _ := ts.get(t, "/ws?room=abc", nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed room code on the socket: %s, want 400", resp.Status)
	}
}

// startNATS runs a NATS server in the test's process, as the library.
func startNATS(t *testing.T) string {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(5 * time.Second) {
		t.Fatal("NATS did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

// TestRoomAcrossReplicas: the teacher on one server, a follower on another,
// joined by NATS: the follower follows, cannot act, is counted on the
// teacher's panel, can fork on its own server, never sees the teacher's
// session id, and is told when the room ends.
func TestRoomAcrossReplicas(t *testing.T) {
	nurl := startNATS(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := startServer(t, Config{Sim: quiet, NATSURL: nurl, Logger: log})
	b := startServer(t, Config{Sim: quiet, NATSURL: nurl, Logger: log})
	sid := newSID()
	owner := dial(t, a, "reconcile", sid, "ja")
	code := openRoom(t, owner)

	resp, body := b.get(t, "/room/"+code+"?lang=en", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /room/%s on the other server: %s", code, resp.Status)
	}
	if strings.Contains(string(body), sid) {
		t.Fatal("the other server's room page holds the owner's session id")
	}
	doc := parsePage(t, body)
	if n := byTestID(doc, "reconcile-demo"); len(n) != 1 || attr(n[0], "data-role") != "follower" {
		t.Fatal("the other server's room page has no follower's demo")
	}
	f := follow(t, b, code, "en", "rc")
	local := follow(t, a, code, "ja", "rc")
	followersShown(owner, "2")

	owner.send(htmx("set-replicas", "replicas", 5))
	f.waitFor("desired 5 on the other server", func() bool { return f.value("desired") == "5" })
	local.waitFor("desired 5 on the owner's server", func() bool { return local.value("desired") == "5" })
	f.send(htmx("step"))
	f.waitFor("the refusal", f.errorShown)

	// Fork on the follower's own server, from the room's state.
	mine := dial(t, b, "reconcile", newSID(), "en")
	mine.send(restoreMsg(json.RawMessage(f.snapshotJSON())))
	mine.waitFor("the forked state", func() bool { return mine.value("desired") == "5" })

	owner.send(htmx("room-close"))
	if code := f.waitClose(waitLong); code != websocket.CloseNormalClosure {
		t.Errorf("the remote follower got %d, want 1000", code)
	}
	if bn := f.frags["room-banner"]; bn == nil || attr(bn, "data-ended") != "true" {
		t.Error("the remote follower was not told the room ended")
	}
	noSID(t, sid, "the remote follower", f.frames)
	noSID(t, sid, "the local follower", local.frames)
	if resp, _ := b.get(t, "/room/"+code, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a closed room on the other server: %s, want 404", resp.Status)
	}
}

// TestClientAddrBehindProxies: X-Forwarded-For names the client only when
// the peer is a trusted proxy, and then the nearest untrusted hop counts.
func TestClientAddrBehindProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		peer    string
		xff     []string
		want    string
	}{
		{"no proxies configured: the peer", nil, "10.1.2.3:5000", []string{"198.51.100.9"}, "10.1.2.3"},
		{"an untrusted peer's header is ignored", trusted, "203.0.113.5:5000", []string{"198.51.100.9"}, "203.0.113.5"},
		{"a trusted proxy names the client", trusted, "10.1.2.3:5000", []string{"198.51.100.9"}, "198.51.100.9"},
		{"a chain of trusted proxies", trusted, "10.1.2.3:5000", []string{"198.51.100.9, 10.9.9.9", "10.8.8.8"}, "198.51.100.9"},
		{"a forged hop before the client is not believed", trusted, "10.1.2.3:5000", []string{"1.2.3.4, 198.51.100.9"}, "198.51.100.9"},
		{"IPv6 through a trusted proxy", trusted, "[fd00::1]:5000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"a malformed hop stops the walk", trusted, "10.1.2.3:5000", []string{"198.51.100.9, garbage"}, "10.1.2.3"},
		{"no header: the proxy itself", trusted, "10.1.2.3:5000", nil, "10.1.2.3"},
		{"only proxies: the farthest one", trusted, "10.1.2.3:5000", []string{"10.4.4.4"}, "10.4.4.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{cfg: Config{TrustedProxies: tc.proxies}}
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.clientAddr(r); got != tc.want {
				t.Fatalf("clientAddr = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPerAddressLimitsBehindAProxy: behind a trusted proxy, two classrooms
// (two forwarded addresses) each get their own per-address limit.
func TestPerAddressLimitsBehindAProxy(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet, MaxSessionsPerAddr: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	page := func(client string) int {
		resp, _ := ts.get(t, "/reconcile", http.Header{"X-Forwarded-For": {client}})
		return resp.StatusCode
	}
	for _, client := range []string{"198.51.100.1", "198.51.100.2"} {
		if code := page(client); code != http.StatusOK {
			t.Fatalf("first page for %s: %d", client, code)
		}
		// The session starts with its socket: open one for this client.
		u := ts.wsURL("reconcile", newSID(), "")
		ws, _, err := websocket.DefaultDialer.Dial(u, http.Header{"X-Forwarded-For": {client}})
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, ws, "rc")
		c.waitFor("a frame", func() bool { return c.frags["rc-snapshot"] != nil })
		if code := page(client); code != http.StatusServiceUnavailable {
			t.Errorf("a second page for %s: %d, want 503 (its own limit)", client, code)
		}
	}
}

// TestFollowerLooksAtThePastAlone: a follower scrubs its own view of the
// room's past (its page sends the room's timeline with the moment); the
// room's frames are held back from it meanwhile, the teacher and the other
// followers see nothing of it, and back to now it follows the room again.
func TestFollowerLooksAtThePastAlone(t *testing.T) {
	ts := startServer(t, Config{Sim: quiet})
	owner := dial(t, ts, "reconcile", newSID(), "ja")
	code := openRoom(t, owner)
	a := follow(t, ts, code, "ja", "rc")
	b := follow(t, ts, code, "ja", "rc")
	followersShown(owner, "2")
	owner.send(htmx("set-replicas", "replicas", 5))
	a.waitFor("desired 5", func() bool { return a.value("desired") == "5" })
	b.waitFor("desired 5", func() bool { return b.value("desired") == "5" })
	owner.send(htmx("set-replicas", "replicas", 7))
	a.waitFor("desired 7", func() bool { return a.value("desired") == "7" })
	panel := a.frags["rc-timeline"]
	moment := attr(byTestID(panel, "timeline-panel")[0], "data-moment")
	marks := byTestID(a.frags["rc-timeline-marks"], "timeline-mark")
	if moment == "" || len(marks) != 2 {
		t.Fatalf("the follower's timeline holds no timeline (%q) or %d marks, want 2", moment, len(marks))
	}
	first := attr(marks[0], "data-at")

	// Back to the first action's moment: desired 5, on this page only.
	a.send(`{"action":"timeline","at":"` + first + `","moment":"` + moment + `","HEADERS":{}}`)
	a.waitFor("the past", func() bool {
		return a.value("desired") == "5" && attr(byTestID(a.frags["rc-timeline-track"], "timeline")[0], "data-mode") == "past"
	})
	owner.send(htmx("set-replicas", "replicas", 2))
	b.waitFor("desired 2", func() bool { return b.value("desired") == "2" })
	owner.waitFor("desired 2", func() bool { return owner.value("desired") == "2" })
	if a.value("desired") != "5" {
		t.Fatalf("the room's frames reached a follower looking at the past: desired %s", a.value("desired"))
	}
	if owner.value("room-followers") != "2" {
		t.Fatalf("the room counts %s followers", owner.value("room-followers"))
	}
	// A moment past the timeline's end is refused on that page only.
	a.send(`{"action":"timeline","at":"999999999","moment":"` + moment + `","HEADERS":{}}`)
	a.waitFor("the refusal", a.errorShown)
	// A follower still cannot act on the room.
	a.send(htmx("set-replicas", "replicas", 9))
	owner.send(htmx("pause", "paused", false))
	owner.waitFor("the teacher's demo", func() bool { return owner.value("desired") == "2" })

	// Back to now: the room's present.
	a.send(htmx("timeline-live"))
	a.waitFor("the present", func() bool {
		return a.value("desired") == "2" && attr(byTestID(a.frags["rc-timeline-track"], "timeline")[0], "data-mode") == "live"
	})
	owner.send(htmx("set-replicas", "replicas", 4))
	a.waitFor("desired 4", func() bool { return a.value("desired") == "4" })
}
