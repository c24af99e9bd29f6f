package server

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos"
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	tmpl "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestIdleSessionCostsNothing: a watched demo wakes while something is
// pending and while its chart still scrolls, then never again: converged or
// paused, an hour passes without a single wake-up (each wake would send at
// least the clock fragment).
func TestIdleSessionCostsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  string // a message sent once the demo converged, or ""
	}{
		{"converged", ""},
		{"paused while pods start", `{"action":"pause","paused":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, ctx := runHub(t, Config{SessionTTL: time.Minute, Logger: slog.New(slog.DiscardHandler)})

				sess, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds["reconcile"], "192.0.2.1", tmpl.Ja)
				if err != nil {
					t.Fatal(err)
				}
				conn := sockets.Detached()
				sess.attach <- conn
				if tc.act != "" {
					time.Sleep(1200 * time.Millisecond) // pods created at 1 s, Pending until 2.5 s
					sess.cmds <- demo.Decode(srv.kinds["reconcile"], []byte(tc.act))
				} else {
					time.Sleep(3 * time.Second) // converged at 2.5 s
				}
				synctest.Wait()
				frame := string(conn.Take())
				if tc.act == "" && !strings.Contains(frame, `data-converged="true"`) {
					t.Fatalf("after 3 s the demo has not converged: %.300q", frame)
				}
				time.Sleep(2 * time.Minute) // past the chart's window
				synctest.Wait()
				conn.Take()
				time.Sleep(time.Hour)
				synctest.Wait()
				if frame := conn.Take(); frame != nil {
					t.Fatalf("an idle session woke within the hour and sent %.300q", frame)
				}
			})
		})
	}
}

// TestEveryDemoSettlesAndSendsNothing: for every registered demo, a watched
// session left alone settles (pods start, the controller converges, …) and
// then sends no frame for 10 s: the page draws what time alone changes.
func TestEveryDemoSettlesAndSendsNothing(t *testing.T) {
	for _, k := range demos.All() {
		t.Run(k.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, ctx := runHub(t, Config{SessionTTL: time.Minute, Logger: slog.New(slog.DiscardHandler)})

				sess, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds[k.Name], "192.0.2.1", tmpl.Ja)
				if err != nil {
					t.Fatal(err)
				}
				conn := sockets.Detached()
				sess.attach <- conn
				time.Sleep(2 * time.Minute)
				synctest.Wait()
				conn.Take()
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if frame := conn.Take(); frame != nil {
					t.Fatalf("a settled %s demo sent a frame within 10 s: %.300q", k.Name, frame)
				}
			})
		})
	}
}

// TestTimeScale: with Config.TimeScale at 4, the reconcile demo converges
// (at 2.5 s of its time) after 0.7 s of real time, which at 1 it does not,
// and its pages' bodies say the scale to their clocks; at 1 they say
// nothing.
func TestTimeScale(t *testing.T) {
	for _, tc := range []struct {
		scale     float64
		converged bool
		attr      string
	}{{1, false, ""}, {4, true, `data-time-scale="4"`}} {
		synctest.Test(t, func(t *testing.T) {
			srv, ctx := runHub(t, Config{SessionTTL: time.Minute, TimeScale: tc.scale, Logger: slog.New(slog.DiscardHandler)})

			sess, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds["reconcile"], "192.0.2.1", tmpl.Ja)
			if err != nil {
				t.Fatal(err)
			}
			conn := sockets.Detached()
			sess.attach <- conn
			time.Sleep(700 * time.Millisecond)
			synctest.Wait()
			frames := string(conn.Take())
			if got := strings.Contains(frames, `data-converged="true"`); got != tc.converged {
				t.Errorf("scale %v: converged after 0.7 s = %v, want %v", tc.scale, got, tc.converged)
			}
		})
		srv, err := New(Config{TimeScale: tc.scale, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { srv.Run(ctx); close(done) }()
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/reconcile", nil))
		cancel()
		<-done
		body := rec.Body.String()
		if tc.attr != "" && !strings.Contains(body, tc.attr) || tc.attr == "" && strings.Contains(body, "data-time-scale") {
			t.Errorf("scale %v: the page's body does not say %q: %.300s", tc.scale, tc.attr, body[strings.Index(body, "<body"):])
		}
	}
}

// runHub starts a server's hub (no listener) for a test inside a synctest
// bubble, and stops it when the test ends.
func runHub(t *testing.T, cfg Config) (*Server, context.Context) {
	t.Helper()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv, ctx
}

// TestSnapshotBeat: the frames that time alone brings carry the demo's
// snapshot at most once a second, a visitor's action's frame always does,
// and the snapshot owed when the demo goes quiet comes on the beat: the
// page ends with the present's.
func TestSnapshotBeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, ctx := runHub(t, Config{SessionTTL: time.Minute, Logger: slog.New(slog.DiscardHandler)})
		k := srv.kinds["triggers"]
		sess, _, err := srv.hub.joinSession(ctx, newSID(), k, "192.0.2.1", tmpl.Ja)
		if err != nil {
			t.Fatal(err)
		}
		conn := sockets.Detached()
		sess.attach <- conn
		snapshot := regexp.MustCompile(`<div id="tr-snapshot"[^>]*>`)
		var last string        // the newest snapshot the page got
		var at []time.Duration // when the frames that time brought carried one
		frames, held := 0, 0
		start := time.Now()
		read := func() bool {
			synctest.Wait()
			f := string(conn.Take())
			if f == "" {
				return false
			}
			frames++
			if s := snapshot.FindString(f); s != "" {
				last = s
				return true
			}
			held++
			return false
		}
		read() // the first frame: everything
		// A kill on both sides: events in flight, deliveries, pods starting.
		sess.cmds <- demo.Decode(k, []byte(`{"action":"kill","pod":"pod-1"}`))
		if !read() {
			t.Fatal("the kill's frame carries no snapshot")
		}
		for range 100 {
			time.Sleep(50 * time.Millisecond)
			if read() {
				at = append(at, time.Since(start))
			}
		}
		time.Sleep(time.Minute) // settled
		read()
		for i := 1; i < len(at); i++ {
			if d := at[i] - at[i-1]; d < time.Second {
				t.Errorf("snapshots %v apart in the frames time brought, want a second at least: %v", d, at)
			}
		}
		if held == 0 {
			t.Errorf("%d frames, every one with the snapshot: nothing held", frames)
		}
		// The page's newest snapshot is the present's: a page that joins
		// now gets the same.
		fresh := sockets.Detached()
		sess.attach <- fresh
		synctest.Wait()
		if got := snapshot.FindString(string(fresh.Take())); got != last {
			t.Errorf("the page's newest snapshot is not the present's:\n got %.300s\nwant %.300s", last, got)
		}
	})
}

// TestIdleSessionStackStaysSmall: what a session does when it wakes (a
// demo's step, a replay, rendering a frame) runs aside, so the goroutine
// that waits for the session's page for as long as it is open keeps the
// stack it started with: idle sessions do not bring about the garbage
// collection that would shrink it. Sessions of every demo, waiting as they
// started, then once each sent its first frame and acted once: their
// stacks have not grown.
func TestIdleSessionStackStaysSmall(t *testing.T) {
	const n = 100 // sessions of each demo
	stacks := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.StackInuse
	}
	srv, ctx := runHub(t, Config{SessionTTL: time.Minute, MaxSessionsPerAddr: 10 * n, Logger: slog.New(slog.DiscardHandler)})
	// The goroutines that run wakes outlive them by wakerIdle, with the
	// stacks they grew: a handful for the whole server, which a count per
	// session must not take for the sessions'. They end at once here.
	srv.hub.wakerIdle = time.Millisecond
	type started struct {
		k    demo.Kind
		sess *session
	}
	var all []started
	for _, k := range demos.All() {
		for range n {
			sess, _, err := srv.hub.joinSession(ctx, newSID(), srv.kinds[k.Name], "192.0.2.1", tmpl.Ja)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, started{k, sess})
		}
	}
	runtime.GC()
	before := stacks()
	// One after another: the goroutine that did a session's work is gone
	// before the next starts (a dead goroutine's grown stack is freed, and
	// the next one takes it).
	for _, s := range all {
		c := sockets.Detached()
		s.sess.attach <- c
		s.sess.cmds <- demo.Decode(s.sess.kind, []byte(s.k.Load[0].Send))
		for deadline := time.Now().Add(waitLong); ; {
			if f := c.Take(); f != nil && strings.Contains(string(f), s.k.Load[0].Expect) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no frame answered %s", s.k.Name, s.k.Load[0].Send)
			}
			time.Sleep(time.Millisecond)
		}
	}
	for deadline := time.Now().Add(waitLong); srv.hub.wakers.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	grown := (float64(stacks()) - float64(before)) / float64(len(all))
	t.Logf("stacks grew by %.0f B per session", grown)
	if grown > 1024 {
		t.Errorf("a session's stack grew by %.0f B once it rendered and acted", grown)
	}
}
