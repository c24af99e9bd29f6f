package pipeline

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// The demo's timing and stories on the virtual clock: every test calls
// Advance, Step and Apply and reads the engine's views; none sleeps.

func object(t *testing.T, d *Demo, kind, name string) apiserver.Object {
	t.Helper()
	for _, o := range d.World().Objects() {
		if o.Kind == kind && o.Name == name {
			return o
		}
	}
	t.Fatalf("%s %s is not in the store", kind, name)
	return apiserver.Object{}
}

func hasObject(d *Demo, kind, name string) bool {
	for _, o := range d.World().Objects() {
		if o.Kind == kind && o.Name == name {
			return true
		}
	}
	return false
}

func reportRow(t *testing.T, d *Demo, name string) engine.ReportRow {
	t.Helper()
	for _, r := range d.World().Report() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no report row for %s", name)
	return engine.ReportRow{}
}

func queueKey(d *Demo, name string) (engine.QueueKey, bool) {
	for _, k := range d.World().Queue() {
		if k.Key == "default/"+name {
			return k, true
		}
	}
	return engine.QueueKey{}, false
}

// settle advances in steps of at most a second until the demo has nothing
// due, failing after limit.
func settle(t *testing.T, d *Demo, limit time.Duration) {
	t.Helper()
	start := d.Now()
	for {
		due, ok := d.NextDue()
		if !ok {
			return
		}
		if d.Now()-start > limit {
			t.Fatalf("not quiet after %v", limit)
		}
		d.Advance(min(max(due, time.Millisecond), time.Second))
	}
}

func TestStartingState(t *testing.T) {
	d := NewDemo()
	w := d.World()
	a := object(t, d, apiserver.KindApp, "app-1")
	c, _ := a.ReadyCondition()
	if c.Status != "True" || a.Generation != 1 || a.Status.ObservedGeneration != 1 || !a.HasFinalizer(engine.Finalizer) {
		t.Fatalf("app-1 %+v, want Ready with its finalizer", a)
	}
	if s := w.Settings(); s != engine.DefaultSettings() || !s.Predicate || s.StatusWrite != engine.StatusOnChange ||
		s.Workers != 1 || !w.Dependency() || !w.ControllerOn() {
		t.Fatalf("settings %+v, dependency %v, controller %v", s, w.Dependency(), w.ControllerOn())
	}
	if d.Now() != w.Now() || d.Now() <= 0 || d.Paused() || d.Speed() != sim.Normal {
		t.Fatalf("clock %v (engine %v), paused %v, speed %v", d.Now(), w.Now(), d.Paused(), d.Speed())
	}
	// Converged: only the 10 h resync is due, so the demo sets no timer.
	if _, ok := d.NextDue(); ok {
		t.Fatal("a converged demo reports something due")
	}
	if r := reportRow(t, d, "app-1"); r.Result != "success" || r.Requeue != engine.RequeueNone {
		t.Fatalf("report row %+v", r)
	}
}

// TestConvergedCostsNothing: with nothing due, an hour passes without a
// reconcile, a write or an event; only the clock moves.
func TestConvergedCostsNothing(t *testing.T) {
	d := NewDemo()
	before := d.World().Snapshot()
	events := len(d.World().Events())
	d.Advance(time.Hour)
	after := d.World().Snapshot()
	after.Now, before.Now = 0, 0
	after.Controller.ResyncIn, before.Controller.ResyncIn = 0, 0
	if !reflect.DeepEqual(before, after) || len(d.World().Events()) != events {
		t.Fatal("an hour of a converged demo changed the world")
	}
	if d.Now() != d.World().Now() {
		t.Fatalf("clock %v, engine %v", d.Now(), d.World().Now())
	}
}

// TestClockFollowsTheEngine: after every kind of call the page's clock is
// the engine's, at any speed, paused or not.
func TestClockFollowsTheEngine(t *testing.T) {
	cases := []struct {
		name string
		do   func(d *Demo)
	}{
		{"advance", func(d *Demo) { d.Advance(1234567 * time.Nanosecond) }},
		{"advance at 2×", func(d *Demo) { d.SetSpeed(sim.Double); d.Advance(333 * time.Millisecond) }},
		{"advance at 0.5×", func(d *Demo) { d.SetSpeed(sim.Half); d.Advance(333 * time.Millisecond) }},
		{"a day away", func(d *Demo) {
			d.Apply(demo.Command{Action: "trap", Name: "runaway", On: true})
			d.Advance(24 * time.Hour)
		}},
		{"step", func(d *Demo) { d.Apply(demo.Command{Action: "step"}) }},
		{"step paused", func(d *Demo) { d.SetPaused(true); d.Apply(demo.Command{Action: "step"}) }},
		{"edit", func(d *Demo) { d.Apply(demo.Command{Action: "edit", Name: "app-1"}); d.Advance(250 * time.Millisecond) }},
		{"reset", func(d *Demo) { d.Advance(time.Second); d.Apply(demo.Command{Action: "reset"}) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDemo()
			tc.do(d)
			if d.Now() != d.World().Now() {
				t.Fatalf("clock %v, engine %v", d.Now(), d.World().Now())
			}
		})
	}
}

func TestPaceScalesVirtualTime(t *testing.T) {
	cases := []struct {
		speed  sim.Speed
		paused bool
		real   time.Duration
		want   time.Duration // virtual
	}{
		{sim.Normal, false, time.Second, time.Second},
		{sim.Double, false, time.Second, 2 * time.Second},
		{sim.Half, false, time.Second, 500 * time.Millisecond},
		{sim.Normal, true, time.Second, 0},
	}
	for _, tc := range cases {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "trap", Name: "runaway", On: true}) // always something due
		d.SetSpeed(tc.speed)
		d.SetPaused(tc.paused)
		start := d.Now()
		d.Advance(tc.real)
		if got := d.Now() - start; got != tc.want {
			t.Errorf("speed %v paused %v: %v of real time moved the clock %v, want %v", tc.speed, tc.paused, tc.real, got, tc.want)
		}
		due, ok := d.NextDue()
		if ok == tc.paused {
			t.Errorf("speed %v paused %v: NextDue ok=%v", tc.speed, tc.paused, ok)
		}
		if ok {
			v, _ := d.World().NextDue()
			if want := tc.speed.Unscale(v); due != want {
				t.Errorf("speed %v: NextDue %v, want %v (virtual %v)", tc.speed, due, want, v)
			}
		}
	}
}

// TestNextDueIsExact: waiting NextDue of the caller's time makes the next
// thing happen; waiting less does not.
func TestNextDueIsExact(t *testing.T) {
	for _, sp := range []sim.Speed{sim.Half, sim.Normal, sim.Double} {
		d := NewDemo()
		d.SetSpeed(sp)
		mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
		for i := 0; i < 12; i++ {
			due, ok := d.NextDue()
			if !ok {
				break
			}
			n := len(d.World().Events())
			seq := d.World().Events()[n-1].Seq
			if due > time.Millisecond {
				d.Advance(due - time.Millisecond)
				if ev := d.World().Events(); ev[len(ev)-1].Seq != seq {
					t.Fatalf("speed %v: something happened %v before NextDue", sp, time.Millisecond)
				}
				d.Advance(time.Millisecond)
			} else {
				d.Advance(due)
			}
			if ev := d.World().Events(); ev[len(ev)-1].Seq == seq {
				t.Fatalf("speed %v: nothing happened at NextDue %v", sp, due)
			}
		}
	}
}

// TestStepReconcilesOneKey: paused, one step runs one reconcile and moves
// the clock by the time it took (act + report: 400 ms); with no key ready
// it resyncs first, as the periodic resync does.
func TestStepReconcilesOneKey(t *testing.T) {
	d := NewDemo()
	d.SetPaused(true)
	child := object(t, d, apiserver.KindConfigMap, "app-1-config")
	n := d.Reconciles()
	start := d.Now()
	res, err := d.Step()
	if err != nil || !res.Resynced || !res.Reconciled || res.Last.Key != "default/app-1" {
		t.Fatalf("Step() = %+v, %v", res, err)
	}
	if got := d.Now() - start; got != engine.ActDelay+engine.ReportDelay {
		t.Fatalf("a step moved the clock %v", got)
	}
	if d.Reconciles() != n+1 {
		t.Fatalf("reconciles %d → %d", n, d.Reconciles())
	}
	// No-op: the child's resourceVersion stays.
	if got := object(t, d, apiserver.KindConfigMap, "app-1-config"); got.ResourceVersion != child.ResourceVersion {
		t.Fatalf("a no-op reconcile moved the child's resourceVersion %d → %d", child.ResourceVersion, got.ResourceVersion)
	}
	if r := reportRow(t, d, "app-1"); r.Action != engine.ActionNoop || r.Status != engine.StatusUnchanged {
		t.Fatalf("report row %+v", r)
	}
	if _, ok := d.NextDue(); ok {
		t.Fatal("paused, yet something is due")
	}
}

func TestEditBumpsGenerationAndIsReconciled(t *testing.T) {
	d := NewDemo()
	mustApply(t, d, demo.Command{Action: "edit", Name: "app-1"})
	a := object(t, d, apiserver.KindApp, "app-1")
	if a.Generation != 2 || a.Status.ObservedGeneration != 1 || a.Spec.LogLevel != "debug" {
		t.Fatalf("after the edit: %+v", a)
	}
	settle(t, d, 5*time.Second)
	a = object(t, d, apiserver.KindApp, "app-1")
	c := object(t, d, apiserver.KindConfigMap, "app-1-config")
	if a.Status.ObservedGeneration != 2 || c.Data.LogLevel != "debug" {
		t.Fatalf("not reconciled: %+v, child %+v", a, c)
	}
	if r := reportRow(t, d, "app-1"); r.Result != "success" {
		t.Fatalf("report row %+v", r)
	}
}

// TestRunawayClimbsUntilFixed: predicate off and status always, the
// reconciles climb without end; either of the chapter's fixes stops them.
func TestRunawayClimbsUntilFixed(t *testing.T) {
	for _, fix := range []demo.Command{
		{Action: "predicate", On: true},
		{Action: "status-write", Name: "on-change"},
		{Action: "trap", Name: "runaway", On: false},
	} {
		t.Run(fix.Action, func(t *testing.T) {
			d := NewDemo()
			mustApply(t, d, demo.Command{Action: "predicate", On: false})
			mustApply(t, d, demo.Command{Action: "status-write", Name: "always"})
			if !d.World().TrapOn(engine.TrapRunaway) {
				t.Fatal("the runaway trap is not on")
			}
			last := d.Reconciles()
			for i := 0; i < 5; i++ {
				d.Advance(10 * time.Second)
				if d.Reconciles()-last < 10 {
					t.Fatalf("reconciles %d → %d in 10 s: not climbing", last, d.Reconciles())
				}
				last = d.Reconciles()
				if _, ok := d.NextDue(); !ok {
					t.Fatal("a runaway loop reports nothing due")
				}
			}
			mustApply(t, d, fix)
			settle(t, d, 5*time.Second)
			n := d.Reconciles()
			d.Advance(time.Hour)
			if d.Reconciles() != n {
				t.Fatalf("%+v did not stop the loop", fix)
			}
		})
	}
}

// TestNotReady: a missing dependency returned as an error backs off, its
// failures climbing with doubling waits; returned as RequeueAfter it keeps
// a 5 s rhythm with no failures.
func TestNotReady(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "dependency", On: false})
		mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"}) // redeploys: app-1 is reconciled at once
		var waits []time.Duration
		seq := int64(0)
		for d.Now() < 30*time.Second {
			d.Advance(100 * time.Millisecond)
			for _, e := range d.World().Events() {
				if e.Seq > seq && e.Kind == engine.EventRequeue {
					if e.Verb != string(engine.RequeueBackoff) {
						t.Fatalf("requeue %+v, want backoff", e)
					}
					waits = append(waits, e.Delay)
				}
				seq = max(seq, e.Seq)
			}
		}
		if len(waits) < 10 {
			t.Fatalf("%d failures in 30 s", len(waits))
		}
		for i := 1; i < len(waits); i++ {
			if waits[i] != 2*waits[i-1] {
				t.Fatalf("backoff waits %v: not doubling", waits)
			}
		}
		k, _ := queueKey(d, "app-1")
		if k.Failures != len(waits) || k.State != "waiting" {
			t.Fatalf("queue key %+v after %d failures", k, len(waits))
		}
		if r := reportRow(t, d, "app-1"); r.Requeue != engine.RequeueBackoff || r.Reason != engine.ReasonDependencyMissing {
			t.Fatalf("report row %+v", r)
		}
	})
	t.Run("requeue", func(t *testing.T) {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "dependency", On: false})
		mustApply(t, d, demo.Command{Action: "not-ready", Name: "error"})
		mustApply(t, d, demo.Command{Action: "not-ready", Name: "requeue"})
		d.Advance(2 * time.Second)
		n := d.World().Metrics().ReconcileRequeueAfter
		d.Advance(30 * time.Second)
		m := d.World().Metrics()
		if got := m.ReconcileRequeueAfter - n; got < 5 || got > 7 {
			t.Fatalf("%d RequeueAfter reconciles in 30 s, want one every 5 s", got)
		}
		if k, _ := queueKey(d, "app-1"); k.Failures != 0 || m.ReconcileError != 0 {
			t.Fatalf("failures %d, errors %d", k.Failures, m.ReconcileError)
		}
		if r := reportRow(t, d, "app-1"); r.Requeue != engine.RequeueAfter || r.RequeueIn != engine.NotReadyRequeue {
			t.Fatalf("report row %+v", r)
		}
		mustApply(t, d, demo.Command{Action: "dependency", On: true})
		settle(t, d, 10*time.Second)
		if c, _ := object(t, d, apiserver.KindApp, "app-1").ReadyCondition(); c.Status != "True" {
			t.Fatal("the dependency came back, the App did not get Ready")
		}
	})
}

// TestDelete: with the controller on, deletion is a last reconcile
// (cleanup) and the App is gone, its report row kept; with it off, the App
// stays Terminating until its finalizer is removed by hand, and its
// external record is left behind.
func TestDelete(t *testing.T) {
	t.Run("controller on", func(t *testing.T) {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "delete", Name: "app-1"})
		if a := object(t, d, apiserver.KindApp, "app-1"); !a.Deleting() {
			t.Fatal("not Terminating after delete")
		}
		settle(t, d, 5*time.Second)
		if hasObject(d, apiserver.KindApp, "app-1") || hasObject(d, apiserver.KindConfigMap, "app-1-config") {
			t.Fatal("app-1 or its child still there")
		}
		if r := reportRow(t, d, "app-1"); r.Action != engine.ActionCleanup {
			t.Fatalf("the last row says %s, want cleanup", r.Action)
		}
		if len(d.World().External()) != 0 {
			t.Fatal("the external record was not cleaned up")
		}
	})
	t.Run("controller off", func(t *testing.T) {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "controller", On: false})
		mustApply(t, d, demo.Command{Action: "delete", Name: "app-1"})
		d.Advance(time.Hour)
		if a := object(t, d, apiserver.KindApp, "app-1"); !a.Deleting() || len(a.Finalizers) != 1 {
			t.Fatalf("app-1 %+v, want Terminating with its finalizer", a)
		}
		mustApply(t, d, demo.Command{Action: "remove-finalizer", Name: "app-1"})
		if hasObject(d, apiserver.KindApp, "app-1") {
			t.Fatal("app-1 still there without its finalizer")
		}
		if ext := d.World().External(); len(ext) != 1 || !ext[0].Orphan {
			t.Fatalf("external records %+v, want app-1's left an orphan", ext)
		}
		if r := reportRow(t, d, "app-1"); r.Action == engine.ActionCleanup {
			t.Fatal("a cleanup that never ran is in the report")
		}
	})
}

// TestTrapsShowTheirSymptom: each trap, switched on with its trigger, shows
// the symptom the traps panel names; its fix ends it.
func TestTrapsShowTheirSymptom(t *testing.T) {
	type check func(t *testing.T, before, after engine.Metrics, d *Demo) bool
	cases := []struct {
		trap    engine.Trap
		trigger *demo.Command
		symptom check
		fix     demo.Command
		// cured reports whether the fix ended the symptom, over the 20 s
		// after it; nil: the demo goes quiet.
		cured check
	}{
		{engine.TrapRunaway, nil, func(_ *testing.T, b, a engine.Metrics, _ *Demo) bool { return a.Reconciles()-b.Reconciles() > 20 },
			demo.Command{Action: "predicate", On: true}, nil},
		{engine.TrapConflict, &demo.Command{Action: "edit", Name: "app-1"},
			func(_ *testing.T, b, a engine.Metrics, _ *Demo) bool { return a.Conflicts > b.Conflicts },
			demo.Command{Action: "status-from", Name: "apply"}, nil},
		{engine.TrapAlreadyExists, nil, func(_ *testing.T, b, a engine.Metrics, _ *Demo) bool { return a.AlreadyExists-b.AlreadyExists > 3 },
			demo.Command{Action: "child-write", Name: "get-then-branch"}, nil},
		{engine.TrapNotVisible, &demo.Command{Action: "create", Name: "app-2"},
			func(t *testing.T, b, a engine.Metrics, d *Demo) bool {
				return a.ReconcileError > b.ReconcileError &&
					countEvents(d, func(e engine.Event) bool { return e.Kind == engine.EventReconcile && e.Reason == engine.ReasonNotFound }) > 0
			},
			demo.Command{Action: "after-create", Name: "trust"}, nil},
		{engine.TrapSlowObject, &demo.Command{Action: "create", Name: "app-2"},
			func(t *testing.T, b, a engine.Metrics, d *Demo) bool {
				return reportRow(t, d, "app-1").Reason == engine.ReasonTimeout
			},
			demo.Command{Action: "workers", N: 2},
			// app-1 still hangs, but a new App no longer waits behind it.
			func(t *testing.T, _, _ engine.Metrics, d *Demo) bool {
				mustApply(t, d, demo.Command{Action: "create", Name: "app-3"})
				d.Advance(engine.WatchDelay + engine.ActDelay + engine.ReportDelay + 100*time.Millisecond)
				return reportRow(t, d, "app-3").Result == "success"
			}},
		{engine.TrapStampede, nil, func(_ *testing.T, b, a engine.Metrics, _ *Demo) bool { return a.ExternalCalls-b.ExternalCalls > 20 },
			demo.Command{Action: "periodic", Name: "long"},
			func(_ *testing.T, _, _ engine.Metrics, d *Demo) bool {
				n := d.World().Metrics().ExternalCalls
				d.Advance(20 * time.Second)
				return d.World().Metrics().ExternalCalls-n <= 2
			}},
		{engine.TrapStuckFinalizer, &demo.Command{Action: "delete", Name: "app-1"},
			func(t *testing.T, b, a engine.Metrics, d *Demo) bool {
				return object(t, d, apiserver.KindApp, "app-1").Deleting()
			},
			demo.Command{Action: "controller", On: true}, nil},
	}
	for _, tc := range cases {
		t.Run(string(tc.trap), func(t *testing.T) {
			d := NewDemo()
			before := d.World().Metrics()
			mustApply(t, d, demo.Command{Action: "trap", Name: string(tc.trap), On: true})
			if !d.World().TrapOn(tc.trap) {
				t.Fatal("not on")
			}
			if tc.trigger != nil {
				mustApply(t, d, *tc.trigger)
			}
			d.Advance(20 * time.Second)
			if !tc.symptom(t, before, d.World().Metrics(), d) {
				t.Fatal("no symptom")
			}
			mustApply(t, d, tc.fix)
			if d.World().TrapOn(tc.trap) && tc.trap != engine.TrapSlowObject {
				t.Fatal("the fix left the trap on")
			}
			if tc.cured != nil {
				if !tc.cured(t, d.World().Metrics(), d.World().Metrics(), d) {
					t.Fatal("the fix did not end the symptom")
				}
				return
			}
			settle(t, d, 20*time.Second)
		})
	}
}

// TestRefusalsChangeNothing: every action the state does not allow is
// refused with the visitor's sentence, and the demo is as it was.
func TestRefusalsChangeNothing(t *testing.T) {
	off := func() *Demo {
		d := NewDemo()
		mustApply(t, d, demo.Command{Action: "controller", On: false})
		return d
	}
	backlog := func() *Demo {
		d := NewDemo()
		for d.Apply(demo.Command{Action: "edit", Name: "app-1"}) == nil {
		}
		return d
	}
	cases := []struct {
		name   string
		make   func() *Demo
		cmd    demo.Command
		reason string
	}{
		{"unknown App", NewDemo, demo.Command{Action: "create", Name: "app-4"}, demo.ReasonUnknownTarget},
		{"a fourth CR", NewDemo, demo.Command{Action: "create", Name: "app-1"}, demo.ReasonOutOfRange},
		{"edit a gone App", NewDemo, demo.Command{Action: "edit", Name: "app-2"}, demo.ReasonUnknownTarget},
		{"edit an unknown name", NewDemo, demo.Command{Action: "edit", Name: "db"}, demo.ReasonUnknownTarget},
		{"delete a gone App", NewDemo, demo.Command{Action: "delete", Name: "app-3"}, demo.ReasonUnknownTarget},
		{"no finalizer", func() *Demo {
			d := off()
			mustApply(t, d, demo.Command{Action: "create", Name: "app-2"}) // no controller: no finalizer yet
			return d
		}, demo.Command{Action: "remove-finalizer", Name: "app-2"}, demo.ReasonUnknownTarget},
		{"step with the controller off", off, demo.Command{Action: "step"}, demo.ReasonOutOfRange},
		{"the API server behind", backlog, demo.Command{Action: "create", Name: "app-2"}, demo.ReasonRate},
		{"the dependency while behind", backlog, demo.Command{Action: "dependency", On: false}, demo.ReasonRate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.make()
			before := demo.MustJSON(d.Snapshot())
			err := d.Apply(tc.cmd)
			r, ok := err.(*demo.Rejection)
			if !ok {
				t.Fatalf("%+v: %v, want a rejection", tc.cmd, err)
			}
			if r.Reason != tc.reason || r.Text("ja") == "" || r.Text("en") == "" {
				t.Fatalf("rejection %q %q", r.Reason, r.Text("en"))
			}
			if after := demo.MustJSON(d.Snapshot()); after != before {
				t.Fatalf("a refused %+v changed the demo", tc.cmd)
			}
		})
	}
}

// TestLoadMessagesAreValid: the load generator's steps are each answered by
// a frame, and leave no loop running.
func TestLoadMessagesAreValid(t *testing.T) {
	demotest.CheckLoad(t, Kind)
	d := NewDemo()
	for round := 0; round < 3; round++ {
		for _, st := range Kind.Load {
			mustApply(t, d, demo.Decode(&Kind, []byte(st.Send)))
			d.Advance(300 * time.Millisecond)
		}
	}
	settle(t, d, time.Minute) // no loop left running
}

// mustApply carries out c as the framework does (pause and speed are its
// own), failing on a refusal.
func mustApply(t *testing.T, d *Demo, c demo.Command) {
	t.Helper()
	if err := demo.Wrap(&Kind, d).Apply(c); err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
}

func countEvents(d *Demo, match func(engine.Event) bool) int {
	n := 0
	for _, e := range d.World().Events() {
		if match(e) {
			n++
		}
	}
	return n
}

// TestFreshDemosShareTheStartingState: a demo nobody has touched holds no
// engine of its own; the first change makes one, and the shared starting
// state never changes, however many demos read it at once.
func TestFreshDemosShareTheStartingState(t *testing.T) {
	before := demo.MustJSON(start.Snapshot())
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				d := NewDemo()
				if d.w != nil {
					t.Error("a new demo made an engine of its own")
					return
				}
				render(t, d)
				d.SetSpeed(sim.Double) // the pace is the demo's own
				d.SetPaused(i%2 == 0)
				if _, ok := d.NextDue(); ok || d.w != nil {
					t.Error("a fresh demo has something due, or made an engine")
					return
				}
				switch (g + i) % 3 {
				case 0:
					d.Advance(time.Second)
				case 1:
					d.Apply(demo.Command{Action: "edit", Name: "app-1"})
				default:
					d.Apply(demo.Command{Action: "reset"})
				}
				if d.Paused() && (g+i)%3 == 0 {
					if d.w != nil {
						t.Error("time passed while paused")
					}
					continue
				}
				if d.w == nil || d.w == start || d.Now() != d.w.Now() {
					t.Error("a change did not make the demo its own engine")
					return
				}
				render(t, d)
			}
		}(g)
	}
	wg.Wait()
	if after := demo.MustJSON(start.Snapshot()); after != before {
		t.Fatal("the shared starting state changed")
	}
}
