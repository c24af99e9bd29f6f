package pipeline

import (
	"errors"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

func TestStartingState(t *testing.T) {
	w := New()
	a := app(t, w, "app-1")
	if !ready(t, w, "app-1") || a.Status.ObservedGeneration != 1 || !a.HasFinalizer(Finalizer) || a.Deleting() {
		t.Fatalf("app-1 = %+v, want Ready, observed generation 1, with its finalizer", a)
	}
	c := child(t, w, "app-1")
	if c.Data.LogLevel != "info" || c.Owner != (apiserver.OwnerRef{Kind: apiserver.KindApp, Name: "app-1", UID: a.UID}) {
		t.Fatalf("child = %+v", c)
	}
	if !w.Dependency() || !w.ControllerOn() || w.Settings() != DefaultSettings() {
		t.Fatal("dependency, controller or settings not as the starting state says")
	}
	if ext := w.External(); len(ext) != 1 || ext[0] != (ExternalRecord{Name: "app-1", UID: a.UID}) {
		t.Fatalf("external records %+v", ext)
	}
	if !w.Quiet() || len(w.Queue()) != 0 || len(w.InFlight()) != 0 {
		t.Fatalf("starting state not quiet: queue %+v, in flight %+v", w.Queue(), w.InFlight())
	}
	// Only the periodic resync is due: 10 h after the controller started.
	if d, ok := w.NextDue(); !ok || d != ResyncPeriod-w.Now() {
		t.Fatalf("NextDue() = %v, %v; want the resync at 10h", d, ok)
	}
	if r := row(t, w, "app-1"); r.Result != "success" || r.Requeue != RequeueNone {
		t.Fatalf("report row %+v", r)
	}
	if n := len(w.Workers()); n != 1 {
		t.Fatalf("%d workers, want 1", n)
	}
	for _, tr := range Traps() {
		if w.TrapOn(tr) {
			t.Fatalf("trap %s on in the starting state", tr)
		}
	}
	roundTrip(t, w)
}

func TestNewIsDeterministic(t *testing.T) {
	a, b := New(), New()
	if a.Now() != b.Now() || a.ResourceVersion() != b.ResourceVersion() || len(a.Events()) != len(b.Events()) {
		t.Fatal("two starting states differ")
	}
}

// TestNoopLeavesTheChildsResourceVersion is chapter 001's proof: a reconcile
// of a converged App writes nothing.
func TestNoopLeavesTheChildsResourceVersion(t *testing.T) {
	w := New()
	before, rv, writes := child(t, w, "app-1"), w.ResourceVersion(), w.Metrics().Writes
	for range 3 {
		res, err := w.Step()
		mustNil(t, err)
		if !res.Resynced || !res.Reconciled || res.Last.Key != "default/app-1" || res.Last.Result != "success" {
			t.Fatalf("Step() = %+v", res)
		}
		if res.Elapsed != ActDelay+ReportDelay {
			t.Fatalf("a reconcile took %v, want %v", res.Elapsed, ActDelay+ReportDelay)
		}
	}
	if got := child(t, w, "app-1"); got.ResourceVersion != before.ResourceVersion {
		t.Fatalf("child resourceVersion %d → %d on a no-op", before.ResourceVersion, got.ResourceVersion)
	}
	if w.ResourceVersion() != rv || w.Metrics().Writes != writes {
		t.Fatal("a converged reconcile wrote")
	}
	if r := row(t, w, "app-1"); r.Action != ActionNoop || r.Status != StatusUnchanged || r.Observed.Child != ChildMatches {
		t.Fatalf("report row %+v, want noop, status unchanged", r)
	}
}

func TestEditBumpsGenerationAndIsReconciled(t *testing.T) {
	w := New()
	cBefore, editAt := child(t, w, "app-1"), w.Now()
	mustNil(t, w.EditApp("app-1"))
	a := app(t, w, "app-1")
	if a.Generation != 2 || a.Spec.LogLevel != "debug" {
		t.Fatalf("after edit: %+v, want generation 2, logLevel debug", a)
	}
	settleWithin(t, w, 5*time.Second)
	a, c := app(t, w, "app-1"), child(t, w, "app-1")
	if c.Data.LogLevel != "debug" || a.Status.ObservedGeneration != 2 || !ready(t, w, "app-1") {
		t.Fatalf("not reconciled: app %+v child %+v", a, c)
	}
	if c.ResourceVersion == cBefore.ResourceVersion || a.Generation != 2 {
		t.Fatal("the child was not updated, or a status write bumped the generation")
	}
	if got := countEvents(w, func(e Event) bool {
		return e.At >= editAt && e.Kind == EventWrite && e.Res == apiserver.KindConfigMap && e.Outcome == "ok"
	}); got != 1 {
		t.Fatalf("%d child writes, want exactly 1", got)
	}
	if w.Metrics().ReconcileError != 0 {
		t.Fatalf("errors in a plain edit:\n%s", trace(w))
	}
}

func TestPredicateDropsStatusEvents(t *testing.T) {
	w := New()
	if n := countEvents(w, func(e Event) bool { return e.Kind == EventEnqueue && e.Outcome == "filtered" }); n == 0 {
		t.Fatal("the starting state's own App updates were not filtered by GenerationChangedPredicate")
	}
	mustNil(t, w.SetPredicate(false))
	mustNil(t, w.EditApp("app-1"))
	settleWithin(t, w, 10*time.Second)
	if n := countEvents(w, func(e Event) bool {
		return e.Kind == EventEnqueue && e.Outcome == "filtered" && e.At > 0 && e.Verb == "for"
	}); n > 2 {
		t.Fatalf("%d filtered events with the predicate off", n)
	}
	if !ready(t, w, "app-1") {
		t.Fatal("without the predicate and with status on change the App still converges")
	}
}

// TestRunawayClimbsAndEitherFixStopsIt: status always + predicate off.
func TestRunawayClimbsAndEitherFixStopsIt(t *testing.T) {
	fixes := map[string]func(*World) error{
		"predicate on":     func(w *World) error { return w.SetPredicate(true) },
		"status on change": func(w *World) error { return w.SetStatusWrite(StatusOnChange) },
	}
	for name, fix := range fixes {
		t.Run(name, func(t *testing.T) {
			w := New()
			mustNil(t, w.SetTrap(TrapRunaway, true))
			if !w.TrapOn(TrapRunaway) {
				t.Fatal("trap not on")
			}
			var counts []int64
			for range 4 {
				w.Advance(10 * time.Second)
				counts = append(counts, w.Metrics().Reconciles())
				if w.Quiet() {
					t.Fatal("a runaway world went quiet")
				}
			}
			for i := 1; i < len(counts); i++ {
				if counts[i]-counts[i-1] < 10 {
					t.Fatalf("reconciles %v: not climbing", counts)
				}
			}
			if !app(t, w, "app-1").Status.LastReconcileTime.Set {
				t.Fatal("no lastReconcileTime written")
			}
			rv := w.ResourceVersion()
			mustNil(t, fix(w))
			settleWithin(t, w, 5*time.Second)
			n := w.Metrics().Reconciles()
			w.Advance(time.Hour)
			if w.Metrics().Reconciles() != n || !w.Quiet() {
				t.Fatalf("%s did not stop the loop", name)
			}
			if w.ResourceVersion()-rv > 3 {
				t.Fatalf("the fix took %d writes to settle", w.ResourceVersion()-rv)
			}
		})
	}
}

func TestDependencyMissingAsErrorBacksOff(t *testing.T) {
	w := New()
	mustNil(t, w.SetNotReady(NotReadyError))
	mustNil(t, w.SetDependency(false))
	// No handler watches the Secret: only a reconcile finds out. Step's
	// resync, through the child's Owns handler, starts one; it still sees
	// the Secret in the cache (the delete is on its way) and succeeds.
	res, err := w.Step()
	mustNil(t, err)
	if res.Last.Result != "success" {
		t.Fatalf("first Step() = %+v, want success from the stale cache", res)
	}
	var waits []time.Duration
	for len(waits) < 8 {
		res, err := w.Step()
		mustNil(t, err)
		if res.Last.Result != "error" || res.Last.Reason != ReasonDependencyMissing {
			t.Fatalf("Step() = %+v, want a DependencyMissing error", res)
		}
		waits = append(waits, row(t, w, "app-1").RequeueIn)
	}
	for i := 1; i < len(waits); i++ {
		if waits[i] != 2*waits[i-1] {
			t.Fatalf("backoff waits %v: not doubling", waits)
		}
	}
	if f := queueKey(w, "app-1").Failures; f != len(waits) {
		t.Fatalf("failures %d, want %d", f, len(waits))
	}
	c, _ := app(t, w, "app-1").ReadyCondition()
	if c.Status != "False" || c.Reason != ReasonDependencyMissing {
		t.Fatalf("Ready condition %+v", c)
	}
	// The dependency comes back: the App recovers on its next retry, and
	// success Forgets its failures.
	mustNil(t, w.SetDependency(true))
	settleWithin(t, w, workqueue.MaxDelay)
	if !ready(t, w, "app-1") || queueKey(w, "app-1").Failures != 0 {
		t.Fatalf("not recovered: %+v", queueKey(w, "app-1"))
	}
}

func TestDependencyMissingAsRequeueAfterKeepsARhythm(t *testing.T) {
	w := New()
	mustNil(t, w.SetDependency(false))
	w.Advance(WatchDelay) // the cache learns the Secret is gone; nothing is enqueued
	if !w.Quiet() {
		t.Fatal("a Secret event enqueued something: no handler watches Secrets")
	}
	res, err := w.Step() // a reconcile to find out
	mustNil(t, err)
	if res.Last.Result != "requeue_after" {
		t.Fatalf("Step() = %+v", res)
	}
	from := w.Now()
	w.Advance(30 * time.Second)
	var ats []time.Duration
	for _, e := range w.Events() {
		if e.Kind == EventReconcile && e.At > from {
			if e.Outcome != "requeue_after" {
				t.Fatalf("reconcile %+v, want requeue_after", e)
			}
			ats = append(ats, e.At)
		}
	}
	if len(ats) < 5 {
		t.Fatalf("%d reconciles in 30s", len(ats))
	}
	for i := 1; i < len(ats); i++ {
		if d := ats[i] - ats[i-1]; d != NotReadyRequeue+ActDelay+ReportDelay {
			t.Fatalf("reconciles %v apart, want 5s + the reconcile itself", d)
		}
	}
	if f := queueKey(w, "app-1").Failures; f != 0 || w.Metrics().ReconcileError != 0 || w.Quiet() {
		t.Fatalf("failures %d, errors %d, quiet %v: want none, none, false", f, w.Metrics().ReconcileError, w.Quiet())
	}
	mustNil(t, w.SetDependency(true))
	w.Advance(NotReadyRequeue + time.Second)
	if !ready(t, w, "app-1") {
		t.Fatal("not Ready within one rhythm of the dependency's return")
	}
}

func TestDeleteWithTheControllerOnCleansUpThenIsGone(t *testing.T) {
	w := New()
	mustNil(t, w.DeleteApp("app-1"))
	a := app(t, w, "app-1")
	if !a.Deleting() || a.Generation != 2 {
		t.Fatalf("after delete: %+v, want Terminating with generation 2", a)
	}
	settleWithin(t, w, 5*time.Second)
	if has(w, apiserver.KindApp, "app-1") || has(w, apiserver.KindConfigMap, "app-1-config") {
		t.Fatal("App or its child still there")
	}
	if len(w.External()) != 0 {
		t.Fatalf("external record not cleaned up: %+v", w.External())
	}
	r := row(t, w, "app-1")
	if r.Action != ActionCleanup || r.Result != "success" || !r.Observed.Deleting {
		t.Fatalf("last report row %+v, want cleanup", r)
	}
	if r.Reconciles < 3 {
		t.Fatalf("the row did not count the reconcile of the gone App: %+v", r)
	}
	// The name can be used again: a new object, a new uid.
	mustNil(t, w.CreateApp("app-1"))
	settleWithin(t, w, 5*time.Second)
	if a2 := app(t, w, "app-1"); a2.UID == a.UID || !ready(t, w, "app-1") {
		t.Fatalf("re-created app-1: %+v", a2)
	}
}

func TestDeleteWithTheControllerOffStaysTerminating(t *testing.T) {
	for _, escape := range []string{"remove finalizer", "controller on"} {
		t.Run(escape, func(t *testing.T) {
			w := New()
			mustNil(t, w.SetTrap(TrapStuckFinalizer, true))
			if w.ControllerOn() || !w.TrapOn(TrapStuckFinalizer) {
				t.Fatal("controller still on")
			}
			mustNil(t, w.DeleteApp("app-1"))
			if d, ok := w.NextDue(); ok {
				t.Fatalf("controller off, yet NextDue() = %v", d)
			}
			w.Advance(MaxAdvance)
			if !app(t, w, "app-1").Deleting() {
				t.Fatal("the App is gone without its cleanup")
			}
			if _, err := w.Step(); !errors.Is(err, ErrControllerOff) {
				t.Fatalf("Step with the controller off: %v", err)
			}
			if escape == "remove finalizer" {
				mustNil(t, w.RemoveFinalizer("app-1"))
				if has(w, apiserver.KindApp, "app-1") || has(w, apiserver.KindConfigMap, "app-1-config") {
					t.Fatal("App or child left after the finalizer was removed")
				}
				ext := w.External()
				if len(ext) != 1 || !ext[0].Orphan {
					t.Fatalf("external records %+v, want app-1's left behind", ext)
				}
				return
			}
			mustNil(t, w.SetTrap(TrapStuckFinalizer, false))
			settleWithin(t, w, 5*time.Second)
			if has(w, apiserver.KindApp, "app-1") || len(w.External()) != 0 {
				t.Fatal("the restarted controller did not clean up")
			}
		})
	}
}

func TestControllerRestartRelistsEverything(t *testing.T) {
	w := New()
	w.SetController(false)
	mustNil(t, w.CreateApp("app-2"))
	mustNil(t, w.EditApp("app-1"))
	w.Advance(time.Minute)
	if has(w, apiserver.KindConfigMap, "app-2-config") || w.Cache() != nil || w.Queue() != nil || w.Workers() != nil {
		t.Fatal("something ran with the controller off")
	}
	w.SetController(true)
	if got := w.ReadyOrder(); len(got) != 1 || w.Workers()[0].Key != "default/app-1" {
		t.Fatalf("after the list: ready %v, workers %+v; want app-1 on the worker, app-2 ready", got, w.Workers())
	}
	settleWithin(t, w, 10*time.Second)
	if child(t, w, "app-2").Data.LogLevel != "info" || child(t, w, "app-1").Data.LogLevel != "debug" {
		t.Fatal("not reconciled after the restart")
	}
}

func TestPeriodicResyncEveryTenHours(t *testing.T) {
	w := New()
	n := w.Metrics().Reconciles()
	d, _ := w.NextDue()
	for left := d - ms1; left > 0; left -= MaxAdvance {
		w.Advance(min(left, MaxAdvance))
	}
	if w.Metrics().Reconciles() != n {
		t.Fatal("reconciled before the resync")
	}
	w.Advance(ms1)
	if countEvents(w, func(e Event) bool { return e.Kind == EventResync && e.Verb == "periodic" }) != 1 {
		t.Fatal("no resync at 10h")
	}
	settleWithin(t, w, time.Second)
	if w.Metrics().Reconciles() != n+1 {
		t.Fatalf("the resync reconciled %d times, want once (app-1 through its child)", w.Metrics().Reconciles()-n)
	}
	if d, _ := w.NextDue(); d != ResyncPeriod-ActDelay-ReportDelay {
		t.Fatalf("next resync in %v", d)
	}
}

func TestStepWithPredicateAndNoChildReconcilesNothing(t *testing.T) {
	w := New()
	w.SetController(false)
	mustNil(t, w.SetDependency(false))
	mustNil(t, w.DeleteApp("app-1"))
	mustNil(t, w.RemoveFinalizer("app-1"))
	w.SetController(true)
	res, err := w.Step()
	mustNil(t, err)
	if !res.Resynced || res.Reconciled || res.Elapsed != 0 {
		t.Fatalf("Step() in an empty world = %+v", res)
	}
}

// TestResultMapping is reconcileHandler's switch: error → AddRateLimited;
// RequeueAfter → Forget, AddAfter; Requeue → AddRateLimited; success →
// Forget; then Done.
func TestResultMapping(t *testing.T) {
	cases := []struct {
		name        string
		res         Result
		err         error
		wantResult  string
		wantRequeue Requeue
		failures    int
		waiting     bool
		due         time.Duration
	}{
		{"error", Result{RequeueAfter: time.Hour}, reconcileError{ReasonTimeout}, "error", RequeueBackoff, 3, true, 20 * ms1},
		{"requeue after", Result{RequeueAfter: 5 * time.Second}, nil, "requeue_after", RequeueAfter, 0, true, 5 * time.Second},
		{"requeue", Result{Requeue: true}, nil, "requeue", RequeueBackoff, 3, true, 20 * ms1},
		{"requeue after wins over requeue", Result{Requeue: true, RequeueAfter: time.Second}, nil, "requeue_after", RequeueAfter, 0, true, time.Second},
		{"success", Result{}, nil, "success", RequeueNone, 0, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := New()
			q := w.ctrl.queue
			key := "default/app-1"
			q.Add(key)
			got, _ := q.Get()
			q.Done(got)
			for range 2 { // two earlier failures, forgotten waits
				q.AddRateLimited(key)
				q.Advance(time.Hour)
				got, _ := q.Get()
				q.Done(got)
			}
			q.Add(key)
			w.startReconcile(0)
			r := w.ctrl.workers[0]
			m := w.Metrics()
			w.finish(r, tc.res, tc.err)
			k := queueKey(w, "app-1")
			if k.Failures != tc.failures || k.Waiting != tc.waiting || k.DueIn != tc.due || k.Processing {
				t.Fatalf("queue key %+v, want failures %d waiting %v due %v, not processing", k, tc.failures, tc.waiting, tc.due)
			}
			rw := row(t, w, "app-1")
			if rw.Result != tc.wantResult || rw.Requeue != tc.wantRequeue || rw.RequeueIn != tc.due {
				t.Fatalf("row %+v", rw)
			}
			after := w.Metrics()
			if after.Reconciles() != m.Reconciles()+1 || after.WorkqueueRetries-m.WorkqueueRetries != map[bool]int64{true: 1, false: 0}[tc.waiting] {
				t.Fatalf("metrics %+v → %+v", m, after)
			}
			if w.ctrl.workers[0] != nil {
				t.Fatal("the worker is still busy")
			}
		})
	}
}

// TestFailingCleanupHoldsTheFinalizer: a cleanup that fails never removes
// the finalizer (クリーンアップが エラーを投げると、ファイナライザーが永遠に外れず);
// once the external API answers, the App goes.
func TestFailingCleanupHoldsTheFinalizer(t *testing.T) {
	w := New()
	mustNil(t, w.SetTrap(TrapSlowObject, true))
	mustNil(t, w.DeleteApp("app-1"))
	w.Advance(2 * time.Minute)
	a := app(t, w, "app-1")
	if !a.Deleting() || !a.HasFinalizer(Finalizer) {
		t.Fatalf("app-1 %+v, want Terminating with its finalizer", a)
	}
	if r := row(t, w, "app-1"); r.Action != ActionCleanup || r.Reason != ReasonTimeout || r.Requeue != RequeueBackoff {
		t.Fatalf("row %+v", r)
	}
	if len(w.External()) != 1 {
		t.Fatal("the record went without an answer from the external API")
	}
	mustNil(t, w.SetTrap(TrapSlowObject, false))
	settleWithin(t, w, 5*time.Second)
	if has(w, apiserver.KindApp, "app-1") || len(w.External()) != 0 {
		t.Fatal("not cleaned up once the external API answered")
	}
}

// TestCleanupIsIdempotent: deleting a record that is already gone is
// success, or the finalizer would never come off.
func TestCleanupIsIdempotent(t *testing.T) {
	w := New()
	delete(w.external, "app-1") // gone already (a previous cleanup got this far)
	mustNil(t, w.DeleteApp("app-1"))
	settleWithin(t, w, 5*time.Second)
	if has(w, apiserver.KindApp, "app-1") {
		t.Fatal("App stuck on a record that was already gone")
	}
	if countEvents(w, func(e Event) bool { return e.Kind == EventExternal && e.Verb == "delete" && e.Outcome == "absent" }) != 1 {
		t.Fatal("no idempotent delete")
	}
}

// TestWorkerWritesRefusedWhenTheAPIServerIsBusy: a reconcile's write refused
// with TooManyRequests is an error like any other: backoff, then success.
func TestWorkerWritesRefusedWhenTheAPIServerIsBusy(t *testing.T) {
	w := New()
	mustNil(t, w.EditApp("app-1"))
	w.Advance(WatchDelay) // app-1 is on the worker; it will update the child at +ActDelay
	for w.SetDependency(!w.Dependency()) == nil {
	}
	w.Advance(ActDelay)
	if w.Metrics().TooManyRequests == 0 || row(t, w, "app-1").Reason != ReasonTooManyRequests {
		t.Fatalf("row %+v\n%s", row(t, w, "app-1"), trace(w))
	}
	w.Advance(WatchDelay) // the backlog drains
	mustNil(t, w.SetDependency(true))
	settleWithin(t, w, 30*time.Second)
	if child(t, w, "app-1").Data.LogLevel != "debug" {
		t.Fatal("not converged after the refusal")
	}
}
