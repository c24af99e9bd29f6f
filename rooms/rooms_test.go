package rooms

import (
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFollowersReadTheOwnersFrames: followers here, in two languages, get
// the whole demo and then every change, and the owner counts them.
func TestFollowersReadTheOwnersFrames(t *testing.T) {
	r := start(t, Config{})
	o := newTeacher(t, "tally")
	o.set("count", "1")
	lease, err := r.Open(o, "tally", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	o.hold(lease)
	ja, en := newReader(t), newReader(t)
	r.Follow(lease.Code(), "ja", "tally", ja.conn)
	r.Follow(lease.Code(), "en", "tally", en.conn)
	ja.waitFor(`<p id="count">ja 1</p>`)
	en.waitFor(`<p id="count">en 1</p>`)
	o.hear("two followers", func(n News) bool { return n.Followers == 2 })
	o.set("count", "2")
	ja.waitFor(`ja 2`)
	en.waitFor(`en 2`)
	r.Unfollow(lease.Code(), ja.conn)
	o.hear("one follower", func(n News) bool { return n.Followers == 1 })
	lease.Close()
	en.waitFor(`data-ended="true">tally`)
	eventually(t, waitLong, "the follower's socket closes", en.closed)
}

// TestGapIsRepaired: a replica whose follower misses a frame (a seq gap on
// the bus) joins the owner again for the whole demo before it applies
// anything more, and never shows what came after the gap on its own.
func TestGapIsRepaired(t *testing.T) {
	url := startNATS(t, -1).ClientURL()
	resyncs := &counter{}
	a := start(t, Config{NATS: dial(t, url)})
	b := start(t, Config{NATS: dial(t, url), Metrics: Metrics{Resyncs: resyncs.label}})
	o := newTeacher(t, "tally")
	o.set("count", "1")
	lease, err := a.Open(o, "tally", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	o.hold(lease)
	f := newReader(t)
	b.Follow(lease.Code(), "en", "tally", f.conn)
	f.waitFor(`en 1`)
	o.hear("the other replica's follower", func(n News) bool { return n.Followers == 1 })
	o.set("count", "2")
	f.waitFor(`en 2`)

	// A frame two ahead of the last: something was missed.
	rm := roomOf(t, a, lease.Code())
	spy := dial(t, url)
	data, _ := json.Marshal(frameMsg{Term: rm.term, Epoch: rm.epoch, Seq: 4,
		Frags: []busFrag{{ID: "count", HTML: `<p id="count">en FORGED</p>`}}})
	if err := spy.Publish(subject(lease.Code(), "frames.en"), data); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitLong, "a re-sync for the gap", func() bool { return resyncs.get("gap") == 1 })
	o.set("count", "3")
	f.waitFor(`en 3`)
	if strings.Contains(f.read(), "FORGED") {
		t.Fatal("the frame after the gap was shown before the re-sync")
	}
	o.set("other", "x")
	f.waitFor(`<p id="other">en x</p>`)
}

// roomOf reads a room's tenure on its goroutine's side, for a test that
// forges a frame.
func roomOf(t *testing.T, r *Rooms, code string) room {
	t.Helper()
	var out room
	ok := false
	eventually(t, waitLong, "the room", func() bool {
		reply := make(chan bool, 1)
		r.send(t.Context(), whoAsked{code: code, respond: func(rec *record) {
			out = room{term: rec.term, epoch: rec.epoch}
			reply <- true
		}})
		select {
		case ok = <-reply:
		case <-time.After(100 * time.Millisecond):
		}
		return ok
	})
	return out
}

// TestClaimNeedsTheSecret: a claim of a code with a wrong secret is
// refused and changes nothing; with the right one, the room moves to the
// claimant, its first owner is told, and its followers read the new owner.
func TestClaimNeedsTheSecret(t *testing.T) {
	takeovers := &counter{}
	r := start(t, Config{Metrics: Metrics{Takeovers: takeovers.label("")}})
	first := newTeacher(t, "tally")
	first.set("count", "first")
	lease, err := r.Open(first, "tally", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	first.hold(lease)
	f := newReader(t)
	r.Follow(lease.Code(), "en", "tally", f.conn)
	f.waitFor("en first")

	stranger := newTeacher(t, "tally")
	stranger.set("count", "stranger")
	wrong := strings.Repeat("A", SecretLen)
	r.Claim(stranger, "tally", "198.51.100.7", lease.Code(), wrong)
	if n := stranger.hear("a refusal", func(n News) bool { return n.Refused != nil }); !errors.Is(n.Refused, ErrWrongSecret) {
		t.Fatalf("refused with %v, want ErrWrongSecret", n.Refused)
	}
	r.Claim(newTeacher(t, "other"), "other", "198.51.100.7", lease.Code(), lease.Secret())
	first.set("count", "first again")
	f.waitFor("en first again")
	if strings.Contains(f.read(), "stranger") || takeovers.get("") != 0 {
		t.Fatal("a refused claim changed the room")
	}

	back := newTeacher(t, "tally")
	back.set("count", "back")
	r.Claim(back, "tally", "192.0.2.1", lease.Code(), lease.Secret())
	n := back.hear("the grant", func(n News) bool { return n.Lease != nil || n.Refused != nil })
	if n.Lease == nil || n.Lease.Code() != lease.Code() {
		t.Fatalf("the right secret was refused: %v", n.Refused)
	}
	back.hold(n.Lease)
	first.hear("the loss", func(n News) bool { return n.Lost })
	f.waitFor("en back")
	first.set("count", "first, too late")
	back.set("count", "back, acting")
	f.waitFor("en back, acting")
	if strings.Contains(f.read(), "too late") {
		t.Fatal("the owner that lost the room still reaches its followers")
	}
	if takeovers.get("") != 1 {
		t.Errorf("takeovers = %d, want 1", takeovers.get(""))
	}
}

// TestUnknownCodeWaitsForItsOwner: without NATS, a follower of a code
// nobody knows (a restarted process) waits quietly for the grace: its
// owner's page claims it back and it reads the demo, or nobody does and
// it is told the room ended, not before the grace.
func TestUnknownCodeWaitsForItsOwner(t *testing.T) {
	t.Run("the owner comes back", func(t *testing.T) {
		r := start(t, Config{})
		f := newReader(t)
		code, secret := newCode(), newSecret()
		r.Follow(code, "ja", "tally", f.conn)
		time.Sleep(100 * time.Millisecond)
		if f.read() != "" || f.closed() {
			t.Fatal("a follower of an unknown code was sent something at once")
		}
		o := newTeacher(t, "tally")
		o.set("count", "restored")
		r.Claim(o, "tally", "192.0.2.1", code, secret)
		o.hold(o.hear("the grant", func(n News) bool { return n.Lease != nil }).Lease)
		f.waitFor("ja restored")
		o.set("count", "acting")
		f.waitFor("ja acting")
		// The code is now sealed: another secret cannot take it.
		r.Claim(newTeacher(t, "tally"), "tally", "192.0.2.1", code, newSecret())
		o.set("count", "still mine")
		f.waitFor("still mine")
	})
	t.Run("nobody comes back", func(t *testing.T) {
		r := start(t, Config{})
		f := newReader(t)
		began := time.Now()
		r.Follow(newCode(), "ja", "tally", f.conn)
		eventually(t, waitLong, "the ended banner", func() bool { return strings.Contains(f.read(), `data-ended="true">tally`) })
		if waited := time.Since(began); waited < r.cfg.Grace {
			t.Fatalf("told the room ended after %v, before the grace (%v)", waited, r.cfg.Grace)
		}
		eventually(t, waitLong, "the socket closes", f.closed)
	})
}

// TestSecretsAndCodes: secrets and codes have one shape, and seals match
// only their own secret.
func TestSecretsAndCodes(t *testing.T) {
	s := newSecret()
	if !ValidSecret(s) || ValidSecret(s[:SecretLen-1]) || ValidSecret(s[:SecretLen-1]+"!") || ValidSecret(s+"A") {
		t.Errorf("secret shape: %q", s)
	}
	if !sealOf(s).matches(sealOf(s)) || sealOf(s).matches(sealOf(newSecret())) {
		t.Error("seals")
	}
	for range 100 {
		if _, ok := ParseCode(strings.ToLower(newCode())); !ok {
			t.Fatal("a new code does not parse")
		}
	}
	for _, bad := range []string{"", "ABCDE", "ABCDEFG", "0OIL15", "ABCDE!"} {
		if _, ok := ParseCode(bad); ok {
			t.Errorf("ParseCode(%q) accepted", bad)
		}
	}
}

// TestImportsStayBelow: the rooms import the sockets and nats.go, never
// the server and never a demo.
func TestImportsStayBelow(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/reconcile-demo/reconcile-demo/") && path != "github.com/reconcile-demo/reconcile-demo/sockets" {
				t.Errorf("%s imports %s", f, path)
			}
		}
	}
}

// TestAnotherSecretCannotDisplaceARoom: an owner announced on the bus with
// another secret's seal (a code taken as unknown where nobody knew it)
// displaces nobody where the room is known: its owner keeps it, and its
// followers keep reading that owner.
func TestAnotherSecretCannotDisplaceARoom(t *testing.T) {
	url := startNATS(t, -1).ClientURL()
	a := start(t, Config{NATS: dial(t, url)})
	b := start(t, Config{NATS: dial(t, url)})
	o := newTeacher(t, "tally")
	o.set("count", "1")
	lease, err := a.Open(o, "tally", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	o.hold(lease)
	f := newReader(t)
	b.Follow(lease.Code(), "en", "tally", f.conn)
	f.waitFor("en 1")
	o.hear("the follower", func(n News) bool { return n.Followers == 1 })

	spy := dial(t, url)
	data, _ := json.Marshal(announceMsg{Replica: "elsewhere", Kind: "tally", Seal: sealOf(newSecret()).String(), Term: 9, Epoch: "ffff"})
	for range 3 {
		if err := spy.Publish(subject(lease.Code(), "announce"), data); err != nil {
			t.Fatal(err)
		}
	}
	spy.Flush()
	o.set("count", "2")
	f.waitFor("en 2")
	select {
	case n := <-o.news:
		if n.Lost {
			t.Fatal("the owner handed its room to another secret")
		}
	default:
	}
	if rm := roomOf(t, a, lease.Code()); rm.term != 1 {
		t.Errorf("the owner's tenure moved to %d", rm.term)
	}
}

// TestSlowConsumerResyncs: when NATS drops messages for a subscription
// too slow to take them (its error handler names the subscription), the
// room's followers here are re-synced from the owner.
func TestSlowConsumerResyncs(t *testing.T) {
	url := startNATS(t, -1).ClientURL()
	resyncs := &counter{}
	a := start(t, Config{NATS: dial(t, url)})
	b := start(t, Config{NATS: dial(t, url), Metrics: Metrics{Resyncs: resyncs.label}})
	o := newTeacher(t, "tally")
	o.set("count", "1")
	lease, err := a.Open(o, "tally", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	o.hold(lease)
	f := newReader(t)
	b.Follow(lease.Code(), "en", "tally", f.conn)
	f.waitFor("en 1")
	asked := len(o.asked)
	b.send(t.Context(), slowConsumer{subject: subject(lease.Code(), "frames.en")})
	eventually(t, waitLong, "a re-sync for the slow consumer", func() bool { return resyncs.get("slow") == 1 })
	eventually(t, waitLong, "the owner asked for the whole demo again", func() bool { return len(o.asked) > asked })
	o.set("count", "2")
	f.waitFor("en 2")
}
