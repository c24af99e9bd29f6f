package reconcile

import (
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
	"time"

	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

const ms = time.Millisecond

// phases counts the demo's pods by phase.
func phases(d *Demo) (running, pending, failed int) {
	for _, p := range d.Pods() {
		switch p.Phase {
		case chapter.Running:
			running++
		case chapter.Pending:
			pending++
		case chapter.Failed:
			failed++
		}
	}
	return
}

func podNames(d *Demo) []string {
	var out []string
	for _, p := range d.Pods() {
		out = append(out, p.Name)
	}
	return out
}

func kinds(evs []sim.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

// converged returns a demo with desired Running pods and the controller on,
// at virtual time 2.5s.
func converged(t *testing.T, desired int) *Demo {
	t.Helper()
	d := NewDemo(sim.Options{}, desired, true)
	d.Advance(2500 * ms)
	if !d.Converged() {
		t.Fatalf("demo did not converge to %d: %+v", desired, d.Pods())
	}
	return d
}

func mustNextDue(t *testing.T, d interface{ NextDue() (time.Duration, bool) }, want time.Duration) {
	t.Helper()
	got, ok := d.NextDue()
	if !ok || got != want {
		t.Fatalf("NextDue() = %v, %v; want %v, true", got, ok, want)
	}
}

func mustIdle(t *testing.T, d interface{ NextDue() (time.Duration, bool) }) {
	t.Helper()
	if got, ok := d.NextDue(); ok {
		t.Fatalf("NextDue() = %v, true; want false", got)
	}
}

func TestControllerOnConvergesOnTheVirtualClock(t *testing.T) {
	for _, desired := range []int{1, 3, MaxDesired} {
		t.Run(strconv.Itoa(desired), func(t *testing.T) {
			d := NewDemo(sim.Options{}, desired, true)
			mustNextDue(t, d, time.Second)
			d.Advance(999 * ms)
			if len(d.Pods()) != 0 || d.Reconciles() != 0 {
				t.Fatalf("before the first tick: %d pods, %d reconciles", len(d.Pods()), d.Reconciles())
			}
			d.Advance(1 * ms) // the 1s tick
			if _, p, _ := phases(d); p != desired || d.Reconciles() != 1 {
				t.Fatalf("after the first tick: %d pending, %d reconciles", p, d.Reconciles())
			}
			if r, ok := d.Last(); !ok || r.Trigger != "tick" || r.At != time.Second || len(r.Actions) != desired {
				t.Fatalf("Last() = %+v, %v", r, ok)
			}
			for _, p := range d.Pods() {
				if p.StartsIn != 1500*ms {
					t.Fatalf("pod %s starts in %v, want 1.5s", p.Name, p.StartsIn)
				}
			}
			mustNextDue(t, d, 1500*ms)
			d.Advance(1499 * ms)
			if _, p, _ := phases(d); p != desired || d.Converged() {
				t.Fatalf("at 2.499s: %d pending, converged %v", p, d.Converged())
			}
			d.Advance(1 * ms)
			if r, _, _ := phases(d); r != desired || !d.Converged() {
				t.Fatalf("at 2.5s: %d running, converged %v", r, d.Converged())
			}
			for _, p := range d.Pods() {
				if p.StartsIn != 0 {
					t.Fatalf("Running pod %s has StartsIn %v", p.Name, p.StartsIn)
				}
			}
			// Idle costs nothing: no tick is due, and a minute runs none.
			mustIdle(t, d)
			d.Advance(time.Minute)
			if d.Reconciles() != 1 || d.Now() != 2500*ms+time.Minute {
				t.Fatalf("idle minute: %d reconciles, now %v", d.Reconciles(), d.Now())
			}
		})
	}
}

func TestPendingRunsAfterStartDelayEvenWithTheControllerOff(t *testing.T) {
	for _, delay := range []time.Duration{0, 300 * ms, 4 * time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			d := NewDemo(sim.Options{StartDelay: delay}, 3, false)
			want := delay
			if want == 0 {
				want = 1500 * ms // the default
			}
			mustIdle(t, d)
			d.Step()
			mustNextDue(t, d, want)
			d.Advance(want - ms)
			if _, p, _ := phases(d); p != 3 {
				t.Fatalf("before the delay: %d pending", p)
			}
			d.Advance(ms)
			if r, _, _ := phases(d); r != 3 || !d.Converged() {
				t.Fatalf("after the delay: %d running", r)
			}
			if d.Reconciles() != 1 || d.Controller() {
				t.Fatalf("%d reconciles, controller %v", d.Reconciles(), d.Controller())
			}
			mustIdle(t, d)
		})
	}
}

func TestControllerOffKilledPodsStayFailed(t *testing.T) {
	d := converged(t, 3)
	d.SetController(false)
	for _, p := range []string{"pod-1", "pod-3"} {
		if err := d.Kill(p); err != nil {
			t.Fatal(err)
		}
	}
	mustIdle(t, d)
	n := d.Reconciles()
	d.Advance(time.Minute)
	if r, p, f := phases(d); r != 1 || p != 0 || f != 2 {
		t.Fatalf("after a minute off: %d running, %d pending, %d failed", r, p, f)
	}
	if d.Reconciles() != n || d.Converged() {
		t.Fatalf("reconciles %d → %d, converged %v", n, d.Reconciles(), d.Converged())
	}
	tests := []struct {
		desired int
		diff    [3]int
	}{
		{3, [3]int{2, 2, 0}},
		{5, [3]int{2, 4, 0}},
		{1, [3]int{2, 0, 0}},
		{0, [3]int{2, 0, 1}},
	}
	for _, tt := range tests {
		if err := d.SetDesired(tt.desired); err != nil {
			t.Fatal(err)
		}
		f, c, x := d.Diff()
		if got := [3]int{f, c, x}; got != tt.diff {
			t.Fatalf("desired %d: Diff() = %v, want %v", tt.desired, got, tt.diff)
		}
		d.Advance(10 * time.Second)
		if _, _, f := phases(d); f != 2 {
			t.Fatalf("desired %d off: %d failed", tt.desired, f)
		}
	}
	if d.Reconciles() != n {
		t.Fatal("a controller that is off reconciled")
	}
	// Switched back on, it repairs on the next tick.
	d.SetDesired(3)
	d.SetController(true)
	d.Advance(time.Second)
	if _, p, f := phases(d); f != 0 || p != 2 {
		t.Fatalf("on again: %d pending, %d failed", p, f)
	}
}

func TestStepRunsExactlyOneReconcileWhateverTheController(t *testing.T) {
	for _, on := range []bool{false, true} {
		for _, paused := range []bool{false, true} {
			t.Run("on="+strconv.FormatBool(on)+",paused="+strconv.FormatBool(paused), func(t *testing.T) {
				d := converged(t, 3)
				d.SetController(on)
				d.SetPaused(paused)
				for _, p := range []string{"pod-1", "pod-2", "pod-3"} {
					d.Kill(p)
				}
				n, now := d.Reconciles(), d.Now()
				r := d.Step()
				if d.Reconciles() != n+1 || d.Now() != now {
					t.Fatalf("Step ran %d reconciles, moved time %v → %v", d.Reconciles()-n, now, d.Now())
				}
				want := []chapter.Action{{Kind: "delete", Pod: "pod-1"}, {Kind: "delete", Pod: "pod-2"}, {Kind: "delete", Pod: "pod-3"},
					{Kind: "create", Pod: "pod-4"}, {Kind: "create", Pod: "pod-5"}, {Kind: "create", Pod: "pod-6"}}
				if r.Trigger != "step" || r.At != now || r.Desired != 3 || r.Observed != 0 || r.Failed != 3 ||
					!reflect.DeepEqual(r.Actions, want) {
					t.Fatalf("report = %+v", r)
				}
				if last, ok := d.Last(); !ok || !reflect.DeepEqual(last, r) {
					t.Fatalf("Last() = %+v, want the step's report", last)
				}
				if _, p, f := phases(d); p != 3 || f != 0 {
					t.Fatalf("after one step: %d pending, %d failed", p, f)
				}
				// A step with nothing to do is still a reconcile, and is logged.
				r = d.Step()
				if r.Actions != nil || r.Observed != 3 || d.Reconciles() != n+2 {
					t.Fatalf("second step = %+v", r)
				}
				evs := d.Events()
				if e := evs[len(evs)-1]; e.Kind != EventNoop || e.N != 3 || e.M != 3 {
					t.Fatalf("last event = %+v, want noop 3/3", e)
				}
			})
		}
	}
}

func TestPauseStopsTime(t *testing.T) {
	d := NewDemo(sim.Options{}, 3, true)
	d.Advance(time.Second) // 3 Pending
	d.SetPaused(true)
	if !d.Paused() {
		t.Fatal("Paused() = false")
	}
	mustIdle(t, d)
	snap, evs := d.Snapshot(), d.Events()
	d.Advance(time.Minute)
	if d.Now() != time.Second || !reflect.DeepEqual(d.Snapshot(), snap) || !reflect.DeepEqual(d.Events(), evs) {
		t.Fatalf("time moved while paused: now %v", d.Now())
	}
	d.Kill("pod-1")
	mustIdle(t, d)
	d.SetPaused(false)
	mustNextDue(t, d, time.Second) // the 2s tick comes before the 2.5s starts
	d.Advance(time.Second)
	if _, p, f := phases(d); p != 3 || f != 0 {
		t.Fatalf("after resuming: %d pending, %d failed", p, f)
	}
}

func TestAdvanceIgnoresNonPositiveDurations(t *testing.T) {
	d := NewDemo(sim.Options{}, 3, true)
	d.Advance(time.Second)
	snap := d.Snapshot()
	for _, dur := range []time.Duration{0, -1, -time.Hour, math.MinInt64} {
		d.Advance(dur)
		if got := d.Snapshot(); !reflect.DeepEqual(got, snap) {
			t.Fatalf("Advance(%v) changed the demo: %+v", dur, got)
		}
	}
}

func TestSpeedScalesTheCallersTime(t *testing.T) {
	tests := []struct {
		speed     sim.Speed
		firstTick time.Duration // caller's time to the first tick
		converge  time.Duration // caller's time to 3 Running
	}{
		{sim.Half, 2 * time.Second, 5 * time.Second},
		{sim.Normal, time.Second, 2500 * ms},
		{sim.Double, 500 * ms, 1250 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.speed.String(), func(t *testing.T) {
			d := NewDemo(sim.Options{}, 3, true)
			d.SetSpeed(tt.speed)
			if d.Speed() != tt.speed {
				t.Fatalf("Speed() = %v", d.Speed())
			}
			mustNextDue(t, d, tt.firstTick)
			d.Advance(tt.converge - 2*ms)
			if d.Converged() {
				t.Fatalf("converged early, at virtual %v", d.Now())
			}
			d.Advance(2 * ms)
			if !d.Converged() || d.Now() != 2500*ms {
				t.Fatalf("after %v of caller time: converged %v at virtual %v", tt.converge, d.Converged(), d.Now())
			}
		})
	}
}

func TestSpeed(t *testing.T) {
	for _, sp := range []sim.Speed{sim.Half, sim.Normal, sim.Double} {
		got, err := sim.ParseSpeed(sp.String())
		if err != nil || got != sp {
			t.Errorf("ParseSpeed(%q) = %v, %v", sp.String(), got, err)
		}
		// Unscale rounds up: a timer set to it never fires early.
		for _, d := range []time.Duration{1, 2, 3, 999, 1500 * ms, time.Second + 1} {
			if back := sp.Scale(sp.Unscale(d)); back < d {
				t.Errorf("speed %v: Scale(Unscale(%v)) = %v, early", sp, d, back)
			}
		}
	}
	for _, s := range []string{"", "0", "1.0", "3", "x2", "2 "} {
		if _, err := sim.ParseSpeed(s); err == nil {
			t.Errorf("ParseSpeed(%q) succeeded", s)
		}
	}
	d := NewDemo(sim.Options{}, 1, true)
	d.SetSpeed(sim.Double)
	for _, bad := range []sim.Speed{-1, 3, 100} {
		d.SetSpeed(bad)
		if d.Speed() != sim.Double {
			t.Fatalf("SetSpeed(%d) changed the speed to %v", bad, d.Speed())
		}
	}
}

func TestNextDue(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T) *Demo
		want time.Duration // 0: not due
	}{
		{"converged, controller on", func(t *testing.T) *Demo { return converged(t, 3) }, 0},
		{"converged, controller off", func(t *testing.T) *Demo {
			d := converged(t, 3)
			d.SetController(false)
			return d
		}, 0},
		{"desired 0 from the start", func(t *testing.T) *Demo { return NewDemo(sim.Options{}, 0, true) }, 0},
		{"off, nothing created", func(t *testing.T) *Demo { return NewDemo(sim.Options{}, 3, false) }, 0},
		{"pod pending, off", func(t *testing.T) *Demo {
			d := NewDemo(sim.Options{}, 3, false)
			d.Step()
			d.Advance(400 * ms)
			return d
		}, 1100 * ms},
		{"pod pending at 2x", func(t *testing.T) *Demo {
			d := NewDemo(sim.Options{}, 3, false)
			d.Step()
			d.SetSpeed(sim.Double)
			return d
		}, 750 * ms},
		{"pod pending at 0.5x", func(t *testing.T) *Demo {
			d := NewDemo(sim.Options{}, 3, false)
			d.Step()
			d.SetSpeed(sim.Half)
			return d
		}, 3 * time.Second},
		{"killed pod, on: next cadence tick", func(t *testing.T) *Demo {
			d := converged(t, 3)
			d.Kill("pod-2")
			return d
		}, 500 * ms},
		{"killed pod, off", func(t *testing.T) *Demo {
			d := converged(t, 3)
			d.SetController(false)
			d.Kill("pod-2")
			return d
		}, 0},
		{"desired raised, on", func(t *testing.T) *Demo {
			d := converged(t, 3)
			d.Advance(300 * ms)
			d.SetDesired(4)
			return d
		}, 200 * ms},
		{"paused with a pod pending", func(t *testing.T) *Demo {
			d := NewDemo(sim.Options{}, 3, false)
			d.Step()
			d.SetPaused(true)
			return d
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.make(t)
			if tt.want == 0 {
				mustIdle(t, d)
				return
			}
			mustNextDue(t, d, tt.want)
			// Nothing happens before the due time; something happens at it.
			n := len(d.Events())
			seq := d.Events()[n-1].Seq
			d.Advance(tt.want - 1)
			if evs := d.Events(); evs[len(evs)-1].Seq != seq {
				t.Fatalf("something happened before NextDue: %+v", evs[len(evs)-1])
			}
			d.Advance(2) // 2, not 1: at 0.5× a single nanosecond scales to none
			if evs := d.Events(); evs[len(evs)-1].Seq == seq {
				t.Fatal("nothing happened at NextDue")
			}
		})
	}
}

// TestNextDueIsExact walks random states: whenever NextDue reports a
// duration, nothing is logged before it passes and something is logged when
// it has; whenever it reports false, a long Advance logs nothing.
func TestNextDueIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	d := NewDemo(sim.Options{LogSize: 10}, 3, true)
	lastSeq := func() int {
		evs := d.Events()
		return evs[len(evs)-1].Seq
	}
	for i := 0; i < 2000; i++ {
		switch rng.Intn(6) {
		case 0:
			d.SetDesired(rng.Intn(MaxDesired + 1))
		case 1:
			if ps := d.Pods(); len(ps) > 0 {
				d.Kill(ps[rng.Intn(len(ps))].Name)
			}
		case 2:
			d.SetController(rng.Intn(3) > 0)
		case 3:
			d.SetSpeed(sim.Speed(rng.Intn(3)))
		case 4:
			d.Advance(time.Duration(rng.Intn(700)) * ms)
		default:
			seq := lastSeq()
			due, ok := d.NextDue()
			if !ok {
				d.Advance(time.Hour)
				if lastSeq() != seq {
					t.Fatalf("step %d: NextDue said idle, but %+v happened", i, d.Events()[len(d.Events())-1])
				}
				continue
			}
			if due <= 0 {
				t.Fatalf("step %d: NextDue = %v", i, due)
			}
			d.Advance(due - 1)
			if lastSeq() != seq {
				t.Fatalf("step %d: %+v happened before NextDue %v", i, d.Events()[len(d.Events())-1], due)
			}
			d.Advance(2) // 2, not 1: at 0.5× a single nanosecond scales to none
			if lastSeq() == seq {
				t.Fatalf("step %d: nothing happened at NextDue %v", i, due)
			}
		}
	}
}

func TestEventsLogKindsAndVirtualTimes(t *testing.T) {
	d := NewDemo(sim.Options{}, 2, true)
	d.Advance(3 * time.Second)
	d.Kill("pod-1")
	d.Advance(3 * time.Second)
	d.SetDesired(1)
	d.SetController(false)
	d.Step()
	d.Step()
	want := []sim.Event{
		{Kind: sim.EventWatchStart, At: 0},
		{Kind: EventCreate, At: time.Second, Name: "pod-1", N: 2, M: 0},
		{Kind: EventCreate, At: time.Second, Name: "pod-2", N: 2, M: 0},
		{Kind: EventRunning, At: 2500 * ms, Name: "pod-1"},
		{Kind: EventRunning, At: 2500 * ms, Name: "pod-2"},
		{Kind: EventConverged, At: 2500 * ms, N: 2},
		{Kind: EventKill, At: 3 * time.Second, Name: "pod-1"},
		{Kind: EventDelete, At: 4 * time.Second, Name: "pod-1", N: 2, M: 1},
		{Kind: EventCreate, At: 4 * time.Second, Name: "pod-3", N: 2, M: 1},
		{Kind: EventRunning, At: 5500 * ms, Name: "pod-3"},
		{Kind: EventConverged, At: 5500 * ms, N: 2},
		{Kind: EventDesired, At: 6 * time.Second, N: 1, M: 2},
		{Kind: sim.EventWatchStop, At: 6 * time.Second},
		{Kind: EventDelete, At: 6 * time.Second, Name: "pod-3", N: 1, M: 2},
		{Kind: EventConverged, At: 6 * time.Second, N: 1},
		{Kind: EventNoop, At: 6 * time.Second, N: 1, M: 1},
	}
	got := d.Events()
	for i := range got {
		if got[i].Seq != i+1 {
			t.Fatalf("event %d has Seq %d", i, got[i].Seq)
		}
		got[i].Seq = 0
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n got %+v\nwant %+v", got, want)
	}
	// Events returns a copy.
	got[0].Kind = "x"
	if d.Events()[0].Kind != sim.EventWatchStart {
		t.Fatal("Events() returned the log itself")
	}
}

func TestLogIsBoundedByLogSize(t *testing.T) {
	for _, size := range []int{0, 1, 5, 40} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			d := NewDemo(sim.Options{LogSize: size}, 1, false)
			want := size
			if want == 0 {
				want = 40
			}
			for i := 0; i < 3*want+7; i++ {
				d.SetDesired(i%2 + 2) // one event each
			}
			evs := d.Events()
			if len(evs) != want {
				t.Fatalf("%d events kept, want %d", len(evs), want)
			}
			total := 3*want + 7 // no watch-start: the controller is off
			for i, e := range evs {
				if e.Seq != total-want+1+i {
					t.Fatalf("event %d has Seq %d: not the newest, in order", i, e.Seq)
				}
			}
			if last := evs[len(evs)-1]; last.Kind != EventDesired || last.N != d.Desired() {
				t.Fatalf("last event = %+v", last)
			}
		})
	}
}

func TestHistoryRecordsChangesOnly(t *testing.T) {
	d := NewDemo(sim.Options{}, 2, true)
	d.Advance(30 * time.Second)
	want := []Sample{
		{At: 0, Desired: 2},
		{At: time.Second, Desired: 2, Pending: 2},
		{At: 2500 * ms, Desired: 2, Running: 1, Pending: 1},
		{At: 2500 * ms, Desired: 2, Running: 2},
	}
	if got := d.History(); !reflect.DeepEqual(got, want) {
		t.Fatalf("history:\n got %+v\nwant %+v", got, want)
	}
	// A change that changes nothing adds nothing.
	d.SetDesired(2)
	d.Step()
	if got := d.History(); len(got) != len(want) {
		t.Fatalf("history grew without a change: %+v", got)
	}
}

func TestHistoryIsWindowed(t *testing.T) {
	for _, window := range []time.Duration{0, 10 * time.Second} {
		t.Run(window.String(), func(t *testing.T) {
			d := NewDemo(sim.Options{Window: window}, 1, false)
			w := window
			if w == 0 {
				w = time.Minute
			}
			if d.Window() != w {
				t.Fatalf("Window() = %v, want %v", d.Window(), w)
			}
			for i := 1; i <= 200; i++ {
				d.Advance(time.Second)
				d.SetDesired(i % 2)
			}
			edge := d.Now() - w
			h := d.History()
			if h[0].At > edge {
				t.Fatalf("first sample at %v: the value at the window's edge %v is lost", h[0].At, edge)
			}
			if len(h) < 2 || h[1].At <= edge {
				t.Fatalf("samples before the window kept: %+v", h[:2])
			}
			if len(h) != int(w/time.Second)+1 {
				t.Fatalf("%d samples, want %d", len(h), int(w/time.Second)+1)
			}
			if last := h[len(h)-1]; last.Desired != d.Desired() || last.At != d.Now() {
				t.Fatalf("last sample %+v", last)
			}
			// Time passing alone trims too.
			d.Advance(w + time.Second)
			if h := d.History(); len(h) != 1 || h[0].Desired != d.Desired() {
				t.Fatalf("after a quiet window: %+v", h)
			}
		})
	}
}

func TestHistoryIsBoundedHoweverFastThingsChange(t *testing.T) {
	d := NewDemo(sim.Options{Window: time.Hour}, 1, false)
	for i := 0; i < 3*sim.MaxSamples; i++ {
		d.SetDesired(i%2 + 2)
	}
	h := d.History()
	if len(h) != sim.MaxSamples {
		t.Fatalf("%d samples, want the bound %d", len(h), sim.MaxSamples)
	}
	if h[len(h)-1].Desired != d.Desired() {
		t.Fatalf("newest sample dropped: %+v", h[len(h)-1])
	}
	h[0].Desired = 99
	if d.History()[0].Desired == 99 {
		t.Fatal("History() returned the history itself")
	}
}

func TestSetDesiredOutOfRangeChangesNothing(t *testing.T) {
	tests := []struct {
		n       int
		wantErr bool
	}{
		{-1, true}, {MaxDesired + 1, true}, {1000, true}, {math.MinInt, true}, {math.MaxInt, true},
		{0, false}, {MaxDesired, false}, {5, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.n), func(t *testing.T) {
			d := converged(t, 3)
			snap, evs := d.Snapshot(), d.Events()
			err := d.SetDesired(tt.n)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				if !reflect.DeepEqual(d.Snapshot(), snap) || !reflect.DeepEqual(d.Events(), evs) || d.Desired() != 3 {
					t.Fatal("a refused SetDesired changed the demo")
				}
				mustIdle(t, d)
				return
			}
			if err != nil || d.Desired() != tt.n {
				t.Fatalf("SetDesired(%d) = %v, Desired() = %d", tt.n, err, d.Desired())
			}
			if e := d.Events()[len(d.Events())-1]; e.Kind != EventDesired || e.N != tt.n || e.M != 3 {
				t.Fatalf("event = %+v", e)
			}
		})
	}
}

func TestNewDemoClampsDesired(t *testing.T) {
	for n, want := range map[int]int{-5: 0, 0: 0, 3: 3, MaxDesired: MaxDesired, 50: MaxDesired} {
		if got := NewDemo(sim.Options{}, n, false).Desired(); got != want {
			t.Errorf("NewDemo(%d).Desired() = %d, want %d", n, got, want)
		}
	}
}

func TestKillUnknownOrFailedPodChangesNothing(t *testing.T) {
	for _, name := range []string{"pod-9", "", "pod-0", "POD-1", "pod-2"} {
		t.Run(name, func(t *testing.T) {
			d := converged(t, 3)
			d.SetController(false)
			if err := d.Kill("pod-2"); err != nil {
				t.Fatal(err)
			}
			snap, evs := d.Snapshot(), d.Events()
			if err := d.Kill(name); err == nil {
				t.Fatalf("Kill(%q) succeeded", name)
			}
			if !reflect.DeepEqual(d.Snapshot(), snap) || !reflect.DeepEqual(d.Events(), evs) {
				t.Fatal("a refused Kill changed the demo")
			}
		})
	}
}

func TestKillPendingPodCancelsItsStart(t *testing.T) {
	d := NewDemo(sim.Options{}, 2, false)
	d.Step()
	if err := d.Kill("pod-1"); err != nil {
		t.Fatal(err)
	}
	d.Advance(time.Minute)
	want := []PodView{{Name: "pod-1", Phase: chapter.Failed}, {Name: "pod-2", Phase: chapter.Running}}
	if got := d.Pods(); !reflect.DeepEqual(got, want) {
		t.Fatalf("pods = %+v, want %+v", got, want)
	}
}

func TestControllerSwitchLogsOnlyChanges(t *testing.T) {
	d := NewDemo(sim.Options{}, 0, false)
	d.SetController(false)
	d.SetController(true)
	d.SetController(true)
	d.SetController(false)
	if got := kinds(d.Events()); !reflect.DeepEqual(got, []string{sim.EventWatchStart, sim.EventWatchStop}) {
		t.Fatalf("events = %v", got)
	}
}

func TestReplicaReset(t *testing.T) {
	d := converged(t, 3)
	d.SetController(false)
	d.SetDesired(7)
	d.Step()
	d.SetSpeed(sim.Double)
	d.Advance(time.Second)
	now := d.Now()
	d.Reset()
	if d.Desired() != 3 || !d.Controller() || len(d.Pods()) != 0 || d.Now() != now || d.Speed() != sim.Double {
		t.Fatalf("after Reset: desired %d, on %v, pods %v, now %v, speed %v", d.Desired(), d.Controller(), d.Pods(), d.Now(), d.Speed())
	}
	if _, ok := d.Last(); ok {
		t.Fatal("Last() survived Reset")
	}
	if got := kinds(d.Events()); !reflect.DeepEqual(got, []string{sim.EventWatchStart, sim.EventReset}) {
		t.Fatalf("events after Reset = %v", got)
	}
	for _, e := range d.Events() {
		if e.At != now {
			t.Fatalf("event %+v not at %v", e, now)
		}
	}
	d.Advance(2 * time.Second)
	if got := podNames(d); !reflect.DeepEqual(got, []string{"pod-1", "pod-2", "pod-3"}) {
		t.Fatalf("pods after Reset = %v", got)
	}
}

func TestAdvanceNeverMovesTimeBack(t *testing.T) {
	for _, sp := range []sim.Speed{sim.Half, sim.Normal, sim.Double} {
		d := NewDemo(sim.Options{}, 3, true)
		d.SetSpeed(sp)
		d.Advance(time.Second)
		now := d.Now()
		d.Advance(math.MaxInt64)
		if d.Now() < now {
			t.Fatalf("speed %v: Advance(MaxInt64) moved the clock from %v to %v", sp, now, d.Now())
		}
	}
}
