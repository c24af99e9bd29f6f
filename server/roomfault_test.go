package server

// Rooms that survive their faults, with real parts: an embedded
// nats-server that stops and comes back on its port, replicas that die
// without a goodbye, a lone process restarted on its address, and owner
// secrets right and wrong.

import (
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	natsserver "github.com/nats-io/nats-server/v2/server"
)

// fastRooms are room timings a test can wait out: an owner is gone after
// 0.6 s of silence, and its followers wait grace for it.
func fastRooms(cfg Config, grace time.Duration) Config {
	cfg.RoomAnnounce, cfg.RoomRetry, cfg.RoomGrace = 200*time.Millisecond, 100*time.Millisecond, grace
	return cfg
}

// killable is a listener that can drop every connection it accepted at
// once, hijacked sockets included, as a killed process's kernel does.
type killable struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *killable) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

func (l *killable) kill() {
	l.Listener.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
}

// startKillable starts a server that crash can stop without a goodbye.
func startKillable(t *testing.T, cfg Config) (*testServer, *killable) {
	t.Helper()
	var k *killable
	ts := startServerOn(t, cfg, func(l net.Listener) net.Listener { k = &killable{Listener: l}; return k })
	return ts, k
}

// crash stops a replica as SIGKILL would: its NATS connection and every
// socket drop at once, and nothing it does afterwards reaches anyone.
func crash(ts *testServer, k *killable) {
	ts.srv.nc.Close()
	k.kill()
	ts.cancel()
}

// natsOn runs nats-server on a fixed port, so that it can come back there.
func natsOn(t *testing.T, port int) *natsserver.Server {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(waitLong) {
		t.Fatal("NATS did not start")
	}
	t.Cleanup(ns.Shutdown)
	return ns
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// ownerSecret is the secret the owner's page keeps: on its room panel.
func ownerSecret(t *testing.T, owner *wsClient) string {
	t.Helper()
	p := owner.frags[owner.prefix+"-room"]
	if p == nil || len(attr(p, "data-secret")) != 43 {
		t.Fatal("the owner's panel holds no owner secret")
	}
	return attr(p, "data-secret")
}

func claimMsg(code, secret string) string {
	b, _ := json.Marshal(map[string]string{"action": "room-claim", "code": code, "secret": secret})
	return string(b)
}

// comeBack is the owner's page back on a socket, as app.js does it: the
// same session id, its snapshot, then its room's code and secret.
func comeBack(t *testing.T, ts *testServer, sid, snapshot, code, secret string) *wsClient {
	t.Helper()
	c := dial(t, ts, "reconcile", sid, "ja")
	c.send(restoreMsg(json.RawMessage(snapshot)))
	c.send(claimMsg(code, secret))
	c.waitFor("the room back", func() bool { return c.value("room-code") == code })
	return c
}

// noSecret fails the test if a follower received the owner secret.
func noSecret(t *testing.T, secret, who string, frames []string) {
	t.Helper()
	for _, f := range frames {
		if strings.Contains(f, secret) {
			t.Fatalf("%s received the owner secret", who)
		}
	}
}

// TestRoomSurvivesNATSOutage: NATS stops mid-class and comes back on its
// port. The follower on the other replica keeps its socket through the
// outage and, without reconnecting, shows what the teacher did meanwhile
// within 5 s of NATS's return; the teacher's count comes back too.
func TestRoomSurvivesNATSOutage(t *testing.T) {
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	ns := natsOn(t, atoi(t, port))
	url := ns.ClientURL()
	// A grace shorter than the outage: nobody may be judged gone while
	// nothing can be heard.
	const grace = time.Second
	a := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, grace))
	b := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, grace))
	owner := dial(t, a, "reconcile", newSID(), "ja")
	code := openRoom(t, owner)
	far := follow(t, b, code, "en", "rc")
	near := follow(t, a, code, "ja", "rc")
	followersShown(owner, "2")
	owner.send(htmx("set-replicas", "replicas", 4))
	far.waitFor("desired 4", func() bool { return far.value("desired") == "4" })

	ns.Shutdown()
	ns.WaitForShutdown()
	owner.send(htmx("set-replicas", "replicas", 5))
	owner.send(htmx("controller", "on", false))
	near.waitFor("desired 5 on the owner's replica, NATS or not", func() bool { return near.value("desired") == "5" })
	time.Sleep(3*200*time.Millisecond + grace + 400*time.Millisecond) // down for longer than staleness and grace
	natsOn(t, atoi(t, port))
	back := time.Now()
	far.waitFor("the teacher's state after the outage", func() bool {
		return far.value("desired") == "5" && far.value("controller-toggle") == "false"
	})
	if d := time.Since(back); d > 5*time.Second {
		t.Errorf("the follower caught up %v after NATS came back, want ≤ 5 s", d)
	}
	owner.send(htmx("set-replicas", "replicas", 6))
	far.waitFor("frames flow again", func() bool { return far.value("desired") == "6" })
	followersShown(owner, "2")
	if b.metric(t, `reconcile_demo_room_resyncs_total{reason="reconnect"}`) < 1 {
		t.Error("the re-sync after NATS came back is not counted")
	}
	if far.err != nil || near.err != nil {
		t.Error("a follower's socket closed during the outage")
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRoomOwnersReplicaDies: the replica of a room's owner dies without a
// goodbye. Followers elsewhere keep their sockets and wait; when the
// teacher's page comes back on another replica with its secret, the room
// is the teacher's again under the same code and every follower carries
// on; when it does not, they are told the room ended, after the grace and
// not before.
func TestRoomOwnersReplicaDies(t *testing.T) {
	t.Run("the teacher comes back on another replica", func(t *testing.T) {
		url := startNATS(t)
		a, ak := startKillable(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
		b := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
		sid := newSID()
		owner := dial(t, a, "reconcile", sid, "ja")
		code := openRoom(t, owner)
		secret := ownerSecret(t, owner)
		owner.send(htmx("set-replicas", "replicas", 4))
		owner.waitFor("desired 4", func() bool { return owner.value("desired") == "4" })
		far := follow(t, b, code, "en", "rc")
		far.waitFor("desired 4", func() bool { return far.value("desired") == "4" })
		followersShown(owner, "1")
		snap := owner.snapshotJSON()

		crash(a, ak)
		// The follower on the dead replica comes back through the balancer
		// to the live one, and waits with the others.
		refugee := followNoWait(t, b, code, "ja", "rc")
		teacher := comeBack(t, b, sid, snap, code, secret)
		if teacher.value("desired") != "4" {
			t.Fatalf("the teacher's demo came back with desired %s, want 4", teacher.value("desired"))
		}
		teacher.send(htmx("set-replicas", "replicas", 6))
		far.waitFor("the teacher's change after the crash", func() bool { return far.value("desired") == "6" })
		refugee.waitFor("the teacher's change, on the refugee", func() bool { return refugee.value("desired") == "6" })
		followersShown(teacher, "2")
		if b.metric(t, "reconcile_demo_room_takeovers_total") != 1 {
			t.Error("the takeover is not counted")
		}
		noSecret(t, secret, "the follower", far.frames)
		noSID(t, sid, "the follower", far.frames)
	})
	t.Run("nobody comes back", func(t *testing.T) {
		url := startNATS(t)
		const grace = 1500 * time.Millisecond
		a, ak := startKillable(t, fastRooms(Config{Sim: quiet, NATSURL: url}, grace))
		b := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, grace))
		owner := dial(t, a, "reconcile", newSID(), "ja")
		code := openRoom(t, owner)
		far := follow(t, b, code, "en", "rc")
		followersShown(owner, "1")

		crash(a, ak)
		died := time.Now()
		if got := far.waitClose(10 * time.Second); got != websocket.CloseNormalClosure {
			t.Fatalf("the follower's socket closed with %d, want 1000", got)
		}
		waited := time.Since(died)
		if bn := far.frags["room-banner"]; bn == nil || attr(bn, "data-ended") != "true" {
			t.Fatal("the follower was not told the room ended")
		}
		if waited < grace {
			t.Errorf("told the room ended %v after its owner died, before the grace (%v)", waited, grace)
		}
		if limit := 3*200*time.Millisecond + grace + 2*time.Second; waited > limit {
			t.Errorf("told the room ended %v after its owner died, want ≤ %v", waited, limit)
		}
		if b.metric(t, "reconcile_demo_room_owner_losses_total") != 1 {
			t.Error("the owner's loss is not counted")
		}
		// It can still fork the last state.
		mine := dial(t, b, "reconcile", newSID(), "en")
		mine.send(restoreMsg(json.RawMessage(far.snapshotJSON())))
		mine.waitFor("the forked demo", func() bool { return mine.value("desired") == "3" })
	})
}

// followNoWait opens a follower's socket and reads nothing yet.
func followNoWait(t *testing.T, ts *testServer, code, lang, prefix string) *wsClient {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(ts.wsRaw("room="+code+"&lang="+lang+"&demo=reconcile"), nil)
	if err != nil {
		t.Fatalf("follow room %s: %v", code, err)
	}
	return newClient(t, ws, prefix)
}

// TestRoomMovesWithItsOwnersSocket: the teacher's socket moves to another
// replica (the balancer) while the session it left is alive: that replica
// hands the room over without ending it, and its followers join the new
// owner along the same path as the others.
func TestRoomMovesWithItsOwnersSocket(t *testing.T) {
	t.Parallel()
	url := startNATS(t)
	a := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
	b := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
	sid := newSID()
	owner := dial(t, a, "reconcile", sid, "ja")
	code := openRoom(t, owner)
	secret := ownerSecret(t, owner)
	near := follow(t, a, code, "ja", "rc")
	far := follow(t, b, code, "en", "rc")
	followersShown(owner, "2")
	snap := owner.snapshotJSON()
	owner.ws.Close()

	moved := comeBack(t, b, sid, snap, code, secret)
	moved.send(htmx("set-replicas", "replicas", 7))
	near.waitFor("the change, on the old owner's replica", func() bool { return near.value("desired") == "7" })
	far.waitFor("the change, on the new owner's replica", func() bool { return far.value("desired") == "7" })
	followersShown(moved, "2")
	if near.err != nil || far.err != nil {
		t.Fatal("a follower's socket closed in the move")
	}
	// The session left on the first replica no longer holds the room: its
	// page (were it to come back there) shows no room.
	old := dial(t, a, "reconcile", sid, "ja")
	if old.value("room-code") != "(absent)" {
		t.Errorf("the session the teacher left still shows room %s", old.value("room-code"))
	}
	if a.metric(t, "reconcile_demo_rooms") != 0 || b.metric(t, "reconcile_demo_rooms") != 1 {
		t.Error("the room is not counted on its new owner's replica only")
	}
}

// TestRoomClaimNeedsItsSecret: a claim with the right code and a wrong
// secret, here or on another replica, is refused with a visible error,
// counted, and changes nothing: the teacher keeps the room and the class
// keeps following the teacher.
func TestRoomClaimNeedsItsSecret(t *testing.T) {
	t.Parallel()
	url := startNATS(t)
	a := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
	b := startServer(t, fastRooms(Config{Sim: quiet, NATSURL: url}, 30*time.Second))
	owner := dial(t, a, "reconcile", newSID(), "ja")
	code := openRoom(t, owner)
	secret := ownerSecret(t, owner)
	far := follow(t, b, code, "en", "rc")
	followersShown(owner, "1")

	// One character off, still of the secret's alphabet (a bit flipped
	// could leave it: 'a'^1 is '`', refused as malformed, not as wrong).
	wrong := []byte(secret)
	if wrong[0] = 'A'; secret[0] == 'A' {
		wrong[0] = 'B'
	}
	for _, ts := range []*testServer{a, b} {
		stranger := dial(t, ts, "reconcile", newSID(), "en")
		stranger.send(htmx("set-replicas", "replicas", 9))
		stranger.send(claimMsg(code, string(wrong)))
		stranger.waitFor("the refusal", stranger.errorShown)
		if !strings.Contains(render(stranger.frags["rc-error"]), "cannot be taken back") {
			t.Errorf("the refusal does not say why: %s", render(stranger.frags["rc-error"]))
		}
		if stranger.value("room-code") != "(absent)" {
			t.Fatal("a wrong secret got the room")
		}
		if p := stranger.frags["rc-room"]; p == nil || attr(p, "data-claim") != "refused" {
			t.Error("the refused claim's panel does not say so (the page would keep trying)")
		}
		if ts.metric(t, `reconcile_demo_rejected_total{reason="room_claim"}`) < 1 {
			t.Error("the refused claim is not counted")
		}
	}
	// A follower cannot claim either: whatever it sends is refused.
	far.send(claimMsg(code, secret))
	far.waitFor("the follower's refusal", far.errorShown)

	owner.send(htmx("set-replicas", "replicas", 2))
	far.waitFor("the teacher's change", func() bool { return far.value("desired") == "2" })
	if owner.value("room-code") != code {
		t.Fatal("the teacher lost the room")
	}
	for _, ts := range []*testServer{a, b} {
		if ts.metric(t, "reconcile_demo_room_takeovers_total") != 0 {
			t.Error("a refused claim counted as a takeover")
		}
	}

	// Wrong claims are strikes: a socket that keeps trying is closed. Each
	// claim is followed by a pause switch, whose frame says the session
	// has refused the claim before the next one goes.
	prober := dial(t, b, "reconcile", newSID(), "en")
	for i := 0; i < 3*maxStrikes && prober.err == nil; i++ {
		paused := i%2 == 0
		prober.send(claimMsg(code, string(wrong)))
		prober.send(htmx("pause", "paused", paused))
		deadline := time.Now().Add(waitLong)
		for prober.read(deadline) == nil {
			if c := prober.frags["rc-clock"]; c != nil && attr(c, "data-paused") == strconv.FormatBool(paused) {
				break
			}
		}
	}
	var ce *websocket.CloseError
	if !errors.As(prober.err, &ce) || ce.Code != websocket.ClosePolicyViolation {
		t.Errorf("a socket that keeps claiming with a wrong secret ended with %v, want close 1008", prober.err)
	}
}

// TestRoomSurvivesRestartWithoutNATS: one process, no NATS, restarted on
// its address. The followers' sockets come back and wait quietly; the
// teacher's page comes back with its secret and its room is restored
// under the same code; the followers carry on.
func TestRoomSurvivesRestartWithoutNATS(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	first := startServerAt(t, fastRooms(Config{Sim: quiet}, 30*time.Second), addr)
	sid := newSID()
	owner := dial(t, first, "reconcile", sid, "ja")
	code := openRoom(t, owner)
	secret := ownerSecret(t, owner)
	owner.send(htmx("set-replicas", "replicas", 4))
	owner.waitFor("desired 4", func() bool { return owner.value("desired") == "4" })
	f := follow(t, first, code, "en", "rc")
	f.waitFor("desired 4", func() bool { return f.value("desired") == "4" })
	snap := owner.snapshotJSON()

	first.stop(t)
	if got := f.waitClose(waitLong); got != websocket.CloseServiceRestart {
		t.Fatalf("a follower's socket closed with %d on a restart, want 1012 (its page reconnects)", got)
	}
	second := startServerAt(t, fastRooms(Config{Sim: quiet}, 30*time.Second), addr)
	back := followNoWait(t, second, code, "en", "rc")
	time.Sleep(300 * time.Millisecond)
	if len(back.frames) != 0 {
		t.Fatal("the follower was sent something before its owner came back")
	}
	teacher := comeBack(t, second, sid, snap, code, secret)
	back.waitFor("the demo, restored", func() bool { return back.value("desired") == "4" })
	teacher.send(htmx("set-replicas", "replicas", 2))
	back.waitFor("the teacher's change", func() bool { return back.value("desired") == "2" })
	followersShown(teacher, "1")
	noSecret(t, secret, "the follower", back.frames)
}
