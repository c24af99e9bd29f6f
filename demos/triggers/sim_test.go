package triggers

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
)

// The chapter's stories, told through the demo's own surface (Apply,
// Advance, NextDue) on the virtual clock, each under every way the page can
// let time pass.

// drive is a way of letting the demo run: the server's timer, a visitor's
// steps, a mix, at any pace.
type drive struct {
	name string
	run  func(t *testing.T, d *Demo)
}

// untilQuiet follows NextDue like the server's timer does, until the demo
// says nothing more will happen (at most n timers).
func untilQuiet(t *testing.T, d *Demo, n int) {
	t.Helper()
	for range n {
		wait, ok := d.NextDue()
		if !ok {
			return
		}
		d.Advance(max(wait, time.Millisecond))
	}
	t.Fatalf("still not quiet after %d timers", n)
}

var drives = []drive{
	{"the server's timer at 1x", func(t *testing.T, d *Demo) { untilQuiet(t, d, 500) }},
	{"the server's timer at 2x", func(t *testing.T, d *Demo) {
		apply(t, d, demo.Command{Action: "speed", Speed: sim.Double})
		untilQuiet(t, d, 500)
	}},
	{"the server's timer at 0.5x", func(t *testing.T, d *Demo) {
		apply(t, d, demo.Command{Action: "speed", Speed: sim.Half})
		untilQuiet(t, d, 500)
	}},
	{"one long sleep", func(t *testing.T, d *Demo) { d.Advance(time.Minute) }},
	{"paused, then many steps, then time", func(t *testing.T, d *Demo) {
		apply(t, d, demo.Command{Action: "pause", On: true})
		for range 30 {
			stepIfUp(t, d)
		}
		d.Advance(time.Minute) // paused: nothing moves
		apply(t, d, demo.Command{Action: "pause", On: false})
		untilQuiet(t, d, 500)
	}},
	{"steps between small sleeps", func(t *testing.T, d *Demo) {
		for range 100 {
			stepIfUp(t, d)
			d.Advance(70 * ms)
		}
		untilQuiet(t, d, 500)
	}},
}

// stepIfUp steps, and checks that a step while restarting is refused.
func stepIfUp(t *testing.T, d *Demo) {
	t.Helper()
	err := d.Apply(demo.Command{Action: "step"})
	if down, _ := d.w.Restarting(); down {
		var r *demo.Rejection
		if !errors.As(err, &r) {
			t.Fatalf("a step while restarting: %v, want a refusal", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
}

func names(v engine.SideView) []string {
	var out []string
	for _, p := range v.Pods {
		out = append(out, p.Name+" "+p.Phase.String())
	}
	return out
}

// TestStories: with events dropped, a killed pod is repaired only on the
// level side; a duplicated event makes the edge side create one pod too
// many; after a restart during a burst of kills only the level side
// recovers. However the page lets time pass.
func TestStories(t *testing.T) {
	tests := []struct {
		name   string
		act    []demo.Command
		edge   []string // the edge side's pods at the end
		level  int      // the level side's Running pods at the end (converged)
		lesson engine.Row
	}{
		{"events dropped, a pod killed", []demo.Command{
			{Action: "drop-events", On: true}, {Action: "kill", Name: "pod-1"}},
			[]string{"pod-1 Failed", "pod-2 Running", "pod-3 Running"}, 3, engine.RowMissed},
		{"a death duplicated", []demo.Command{
			{Action: "duplicate-next"}, {Action: "kill", Name: "pod-2"}},
			[]string{"pod-1 Running", "pod-3 Running", "pod-4 Running", "pod-5 Running"}, 3, engine.RowTrigger},
		{"a restart during a burst of kills", []demo.Command{
			{Action: "kill", Name: "pod-1"}, {Action: "kill", Name: "pod-2"}, {Action: "restart"}, {Action: "kill", Name: "pod-3"}},
			[]string{"pod-1 Failed", "pod-2 Failed", "pod-3 Failed"}, 3, engine.RowRecovery},
		{"healthy: both sides repair a kill", []demo.Command{{Action: "kill", Name: "pod-3"}},
			[]string{"pod-1 Running", "pod-2 Running", "pod-4 Running"}, 3, engine.RowRecovery},
	}
	for _, tt := range tests {
		for _, dr := range drives {
			t.Run(tt.name+"/"+dr.name, func(t *testing.T) {
				d := NewDemo()
				for _, c := range tt.act {
					apply(t, d, c)
				}
				dr.run(t, d)
				apply(t, d, demo.Command{Action: "pause", On: false})
				untilQuiet(t, d, 500)
				lv, ev := d.w.View(engine.Level), d.w.View(engine.Edge)
				if !lv.Converged || lv.Running != tt.level || !d.w.Converged(engine.Level) {
					t.Errorf("level side %v, want %d Running and converged", names(lv), tt.level)
				}
				if got := names(ev); !slices.Equal(got, tt.edge) {
					t.Errorf("edge side %v, want %v", got, tt.edge)
				}
				if healthy := tt.lesson == engine.RowRecovery && len(tt.act) == 1; ev.Converged != healthy {
					t.Errorf("edge side converged = %v", ev.Converged)
				}
				if got := d.w.Mattered().Row; got != tt.lesson {
					t.Errorf("the row that mattered is %q, want %q", got, tt.lesson)
				}
				// Quiet for good: no timer, and a long sleep changes nothing.
				if _, ok := d.NextDue(); ok {
					t.Fatal("NextDue reports a timer once nothing will happen")
				}
				before := d.Snapshot()
				d.Advance(time.Hour)
				after := d.Snapshot()
				after.Now, after.World.Now = before.Now, before.World.Now
				if !equalJSON(t, before, after) {
					t.Fatalf("a quiet demo changed in an hour")
				}
				if d.Reconciles() == 0 {
					t.Fatal("no reconcile counted")
				}
			})
		}
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

// TestNextDue: the demo's timer is the engine's next happening, scaled by
// the speed; none while paused or quiet.
func TestNextDue(t *testing.T) {
	tests := []struct {
		name  string
		setup []demo.Command
		want  time.Duration
		ok    bool
	}{
		{"fresh: quiet", nil, 0, false},
		{"a kill: its death arrives after the delivery delay", []demo.Command{{Action: "kill", Name: "pod-1"}}, engine.DeliveryDelay, true},
		{"at 2x, half the wait", []demo.Command{{Action: "speed", Speed: sim.Double}, {Action: "kill", Name: "pod-1"}}, engine.DeliveryDelay / 2, true},
		{"at 0.5x, twice the wait", []demo.Command{{Action: "speed", Speed: sim.Half}, {Action: "kill", Name: "pod-1"}}, 2 * engine.DeliveryDelay, true},
		{"paused: no timer", []demo.Command{{Action: "kill", Name: "pod-1"}, {Action: "pause", On: true}}, 0, false},
		{"dropped: the level side's resync is due at the next second", []demo.Command{{Action: "drop-events", On: true}, {Action: "kill", Name: "pod-1"}}, engine.Resync, true},
		{"a restart: the controllers come back", []demo.Command{{Action: "restart"}}, engine.RestartTime, true},
		{"a swap armed, then one event: it waits for its partner, no timer on the edge side", []demo.Command{
			{Action: "swap-next"}, {Action: "drop-events", On: true}, {Action: "replicas-inc"}, {Action: "drop-events", On: false}}, engine.Resync, true},
		{"the switches alone change nothing", []demo.Command{{Action: "duplicate-next"}, {Action: "swap-next"}, {Action: "drop-events", On: true}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDemo()
			for _, c := range tt.setup {
				apply(t, d, c)
			}
			got, ok := d.NextDue()
			if got != tt.want || ok != tt.ok {
				t.Fatalf("NextDue = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestClockFollowsTheEngine: the demo's clock and the engine's own read the
// same time, at every pace; a paused demo's time stands still.
func TestClockFollowsTheEngine(t *testing.T) {
	d := NewDemo()
	check := func(want time.Duration) {
		t.Helper()
		if d.Now() != d.w.Now() || d.Now() != want {
			t.Fatalf("clock %v, engine %v, want %v", d.Now(), d.w.Now(), want)
		}
	}
	d.Advance(300 * ms)
	check(300 * ms)
	apply(t, d, demo.Command{Action: "speed", Speed: sim.Double})
	d.Advance(300 * ms)
	check(900 * ms)
	apply(t, d, demo.Command{Action: "speed", Speed: sim.Half})
	d.Advance(300 * ms)
	check(1050 * ms)
	apply(t, d, demo.Command{Action: "pause", On: true})
	d.Advance(time.Hour)
	check(1050 * ms)
	apply(t, d, demo.Command{Action: "pause", On: false})
	d.Advance(-time.Second)
	check(1050 * ms)
	// A sleep longer than the engine's bound on one Advance: the clock
	// stops where the engine does.
	apply(t, d, demo.Command{Action: "speed", Speed: sim.Double})
	d.Advance(20 * time.Hour)
	check(1050*ms + 24*time.Hour)
}

// TestStepIsOneOfEach: a step is one Reconcile on the level side and the
// edge controller's next event in flight, without moving time.
func TestStepIsOneOfEach(t *testing.T) {
	d := NewDemo()
	apply(t, d, demo.Command{Action: "pause", On: true})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
	before := d.Reconciles()
	r, err := d.Step()
	if err != nil || r.Level == nil || r.Edge == nil {
		t.Fatalf("step: %+v, %v", r, err)
	}
	if r.Edge.Heard.Pod.String() != "pod-1" || len(r.Level.Actions()) != 4 {
		t.Fatalf("the edge side heard %+v; the level side did %+v", r.Edge.Heard, r.Level.Actions())
	}
	if d.Reconciles() != before+1 || d.Now() != 0 {
		t.Fatalf("reconciles %d → %d, clock %v", before, d.Reconciles(), d.Now())
	}
	r, _ = d.Step()
	if r.Edge == nil || r.Edge.Heard.Pod.String() != "pod-2" || len(r.Level.Actions()) != 0 {
		t.Fatalf("second step: %+v", r)
	}
}

// TestResetKeepsPaceAndClock: reset is the starting state at the same time,
// pace and speed, with a note in both logs; the reconcile count goes on.
func TestResetKeepsPaceAndClock(t *testing.T) {
	d := NewDemo()
	apply(t, d, demo.Command{Action: "speed", Speed: sim.Double})
	apply(t, d, demo.Command{Action: "drop-events", On: true})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
	apply(t, d, demo.Command{Action: "replicas-inc"})
	d.Advance(1234*ms + 567*time.Microsecond)
	apply(t, d, demo.Command{Action: "pause", On: true})
	n := d.Reconciles()
	apply(t, d, demo.Command{Action: "reset"})
	// 2,469.134 ms of virtual time passed; the framework carries out an
	// action on the next whole millisecond (the timeline logs milliseconds).
	if d.Now() != 2470*ms || d.w.Now() != d.Now() || !d.Paused() || d.Speed() != sim.Double {
		t.Fatalf("after reset: now %v (engine %v), paused %v, speed %v", d.Now(), d.w.Now(), d.Paused(), d.Speed())
	}
	fresh := engine.New().Snapshot()
	got := d.w.Snapshot()
	got.Now = 0
	if !equalJSON(t, got, fresh) {
		t.Fatalf("reset world %+v, want %+v", got, fresh)
	}
	if note, ok := d.Note(); !ok || note.Kind != NoteReset || note.At != 2470*ms {
		t.Fatalf("note %+v, %v", note, ok)
	}
	if d.Reconciles() != n {
		t.Fatalf("reconciles went from %d to %d", n, d.Reconciles())
	}
	apply(t, d, demo.Command{Action: "pause", On: false})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-3"})
	untilQuiet(t, d, 100)
	if d.Reconciles() <= n {
		t.Fatal("the reconcile count did not go on after reset")
	}
	for _, s := range sides {
		if !d.w.Converged(s) {
			t.Fatalf("%v side did not converge after reset and a kill", s)
		}
	}
}
