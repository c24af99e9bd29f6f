package pipeline

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// The behaviours of issue #19's truth pass: the queue controller-runtime
// v0.24 uses by default, Result{Requeue: true}, the Watches on the Secret,
// a child edited by hand, and identical writes.

var kinds = []workqueue.Kind{workqueue.Priority, workqueue.Classic}

// withKind returns the starting state on a queue of kind k.
func withKind(t *testing.T, k workqueue.Kind) *World {
	t.Helper()
	w := New()
	mustNil(t, w.SetQueueKind(k))
	settleWithin(t, w, 5*time.Second)
	if w.ctrl.queue.Kind() != k || w.QueueKind() != k {
		t.Fatalf("queue %s, want %s", w.ctrl.queue.Kind(), k)
	}
	return w
}

func TestQueueKindDefaultsToPriority(t *testing.T) {
	w := New()
	if w.Settings().QueueKind != workqueue.Priority || w.ctrl.queue.Kind() != workqueue.Priority {
		t.Fatalf("queue kind %s, want priority: controller-runtime's default since v0.23", w.Settings().QueueKind)
	}
	if l := w.RateLimiter(); l.Kind != workqueue.LimiterItemExponential || l.Bucket {
		t.Fatalf("rate limiter %+v, want the per-item exponential alone", l)
	}
	mustNil(t, w.SetQueueKind(workqueue.Classic))
	if l := w.RateLimiter(); l.Kind != workqueue.LimiterMaxOf || !l.Bucket || l.Tokens != workqueue.BucketBurst {
		t.Fatalf("classic rate limiter %+v, want max-of with a full bucket", l)
	}
	if n := countEvents(w, func(e Event) bool { return e.Kind == EventSettings && e.Verb == "queueKind" }); n != 1 {
		t.Fatal("no settings event for the queue kind")
	}
	w.SetController(false)
	if l := w.RateLimiter(); l.Kind != workqueue.LimiterMaxOf || len(l.Keys) != 0 {
		t.Fatalf("rate limiter while off %+v", l)
	}
	if err := w.SetQueueKind("fifo"); err == nil {
		t.Fatal("accepted a queue kind that does not exist")
	}
}

// TestInitialListGoesBehindRealEvents: the controller starts with three
// Apps to list. On the priority queue they are added at low priority, so an
// edit of app-3 made while app-1 is reconciled overtakes app-2; on the
// classic queue they go in order.
func TestInitialListGoesBehindRealEvents(t *testing.T) {
	want := map[workqueue.Kind][]string{
		workqueue.Priority: {"default/app-1", "default/app-3", "default/app-2"},
		workqueue.Classic:  {"default/app-1", "default/app-2", "default/app-3"},
	}
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			w := withKind(t, k)
			w.SetController(false)
			mustNil(t, w.CreateApp("app-2"))
			mustNil(t, w.CreateApp("app-3"))
			from := len(w.Events())
			w.SetController(true)
			low := map[workqueue.Kind]int{workqueue.Priority: workqueue.LowPriority}[k]
			for _, key := range w.Queue() {
				if key.Priority != low {
					t.Fatalf("listed %+v, want priority %d", key, low)
				}
			}
			mustNil(t, w.EditApp("app-3"))
			w.Advance(WatchDelay)
			if p := queueKey(w, "app-3").Priority; p != 0 {
				t.Fatalf("app-3 at priority %d after its edit's event, want 0", p)
			}
			settleWithin(t, w, 10*time.Second)
			var gets []string
			for _, e := range w.Events()[from:] {
				if e.Kind == EventGet && len(gets) < 3 {
					gets = append(gets, e.Key)
				}
			}
			if !reflect.DeepEqual(gets, want[k]) {
				t.Fatalf("reconciled %v, want %v\n%s", gets, want[k], trace(w))
			}
		})
	}
}

// TestResyncAddsAtLowPriority: the informer's resync hands every object to
// the handlers as an update that kept its resourceVersion; on the priority
// queue the owner is enqueued at low priority, and handed out so.
func TestResyncAddsAtLowPriority(t *testing.T) {
	for _, k := range kinds {
		w := withKind(t, k)
		from := len(w.Events())
		res, err := w.Step()
		mustNil(t, err)
		if !res.Resynced || res.Last.Result != "success" {
			t.Fatalf("Step() = %+v", res)
		}
		want := map[workqueue.Kind]int{workqueue.Priority: workqueue.LowPriority}[k]
		for _, e := range w.Events()[from:] {
			added := e.Kind == EventEnqueue && e.Verb == "resync" && e.Outcome != "filtered"
			if (added || e.Kind == EventGet) && e.Priority != want {
				t.Fatalf("%s: %+v, want priority %d", k, e, want)
			}
		}
	}
}

// TestLowPriorityKeyIsRequeuedLow: a key handed out at low priority keeps
// it when it fails, as controller-runtime's reconcileHandler passes the
// priority back.
func TestLowPriorityKeyIsRequeuedLow(t *testing.T) {
	w := New()
	mustNil(t, w.SetNotReady(NotReadyError))
	w.SetController(false)
	mustNil(t, w.SetDependency(false))
	w.SetController(true)
	w.Advance(ActDelay + ReportDelay)
	k := queueKey(w, "app-1")
	if !k.Waiting || k.Priority != workqueue.LowPriority || k.Failures != 1 {
		t.Fatalf("after the listed key failed: %+v", k)
	}
	if r := row(t, w, "app-1"); r.Result != "error" || r.RequeueIn != workqueue.BaseDelay {
		t.Fatalf("row %+v", r)
	}
}

// TestRequeueTrueIsRateLimited: Result{Requeue: true} backs off as an error
// does (failures climb, waits double), yet it is counted as a requeue, not
// an error, on either queue.
func TestRequeueTrueIsRateLimited(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			w := withKind(t, k)
			mustNil(t, w.SetNotReady(NotReadyRequeueTrue))
			settleWithin(t, w, 5*time.Second)
			mustNil(t, w.SetDependency(false))
			w.Advance(WatchDelay)
			var waits []time.Duration
			for len(waits) < 6 {
				res, err := w.Step()
				mustNil(t, err)
				if res.Last.Result != "requeue" || res.Last.Reason != "" {
					t.Fatalf("Step() = %+v, want a requeue without an error", res)
				}
				r := row(t, w, "app-1")
				if r.Requeue != RequeueBackoff || r.Result != "requeue" {
					t.Fatalf("row %+v", r)
				}
				waits = append(waits, r.RequeueIn)
			}
			for i := 1; i < len(waits); i++ {
				if waits[i] != 2*waits[i-1] {
					t.Fatalf("waits %v: not doubling", waits)
				}
			}
			m := w.Metrics()
			if m.ReconcileRequeue != 6 || m.ReconcileError != 0 {
				t.Fatalf("requeue %d error %d, want 6 0", m.ReconcileRequeue, m.ReconcileError)
			}
			l := w.RateLimiter()
			if len(l.Keys) != 1 || l.Keys[0].Failures != 6 || l.Keys[0].NextDelay != 64*workqueue.BaseDelay {
				t.Fatalf("rate limiter %+v, want app-1 with 6 failures, next 320ms", l)
			}
			if n := countEvents(w, func(e Event) bool {
				return e.Kind == EventReconcile && e.Outcome == "requeue"
			}); n != 6 {
				t.Fatalf("%d reconcile events say requeue", n)
			}
			// The dependency comes back: success Forgets the failures.
			mustNil(t, w.SetDependency(true))
			settleWithin(t, w, time.Minute)
			if !ready(t, w, "app-1") || len(w.RateLimiter().Keys) != 0 {
				t.Fatalf("not recovered: %+v", w.RateLimiter())
			}
			roundTrip(t, w)
		})
	}
}

// TestSecretWatchReconcilesTheWaitingAppAtOnce: an App waits RequeueAfter
// 5 s for its Secret. With Watches on the Secret, the Secret's creation
// reconciles it at once; without, it waits out its RequeueAfter. On the
// priority queue the add ends the wait; the classic queue keeps it, and
// reconciles the App once more when it comes.
func TestSecretWatchReconcilesTheWaitingAppAtOnce(t *testing.T) {
	const beat = WatchDelay + ActDelay + ReportDelay
	cases := []struct {
		kind       workqueue.Kind
		watch      bool
		readyAfter time.Duration // from the Secret's creation
		reconciles int           // of app-1 from then on
	}{
		{workqueue.Priority, true, beat, 1},
		{workqueue.Classic, true, beat, 2},
		{workqueue.Priority, false, NotReadyRequeue - time.Second + ActDelay + ReportDelay, 1},
		{workqueue.Classic, false, NotReadyRequeue - time.Second + ActDelay + ReportDelay, 1},
	}
	for _, tc := range cases {
		name := string(tc.kind) + map[bool]string{true: ", watched", false: ", not watched"}[tc.watch]
		t.Run(name, func(t *testing.T) {
			w := withKind(t, tc.kind)
			mustNil(t, w.SetSecretWatch(tc.watch))
			settleWithin(t, w, 5*time.Second)
			mustNil(t, w.SetDependency(false))
			w.Advance(WatchDelay)
			if !tc.watch {
				mustNil(t, stepErr(w.Step()))
			} else {
				// The Secret's deletion enqueued the App.
				w.Advance(ActDelay + ReportDelay)
			}
			if r := row(t, w, "app-1"); r.Result != "requeue_after" || r.Observed.Dependency {
				t.Fatalf("row %+v, want requeue_after on the missing Secret", r)
			}
			w.Advance(time.Second)
			if k := queueKey(w, "app-1"); !k.Waiting || k.DueIn != NotReadyRequeue-time.Second {
				t.Fatalf("app-1 %+v, want waiting 4s", k)
			}
			created := w.Now()
			mustNil(t, w.SetDependency(true))
			for !ready(t, w, "app-1") {
				if w.Now()-created > 10*time.Second {
					t.Fatal("never Ready")
				}
				w.Advance(100 * ms1)
			}
			if got := w.Now() - created; got != tc.readyAfter {
				t.Fatalf("Ready %v after the Secret came, want %v", got, tc.readyAfter)
			}
			w.Advance(time.Minute)
			if n := countEvents(w, func(e Event) bool {
				return e.Kind == EventReconcile && e.Key == "default/app-1" && e.At > created
			}); n != tc.reconciles {
				t.Fatalf("%d reconciles after the Secret came, want %d\n%s", n, tc.reconciles, trace(w))
			}
			if tc.watch && countEvents(w, func(e Event) bool { return e.Kind == EventEnqueue && e.Verb == "watches" }) < 2 {
				t.Fatal("no enqueue from the Secret's watch")
			}
			if !w.Quiet() {
				t.Fatal("not quiet")
			}
		})
	}
}

func stepErr(_ StepResult, err error) error { return err }

// TestSecretWatchMapsToEveryApp: the map function enqueues every App that
// uses the Secret (all of them), in name order, and only with the watch on.
func TestSecretWatchMapsToEveryApp(t *testing.T) {
	w := New()
	mustNil(t, w.CreateApp("app-2"))
	mustNil(t, w.CreateApp("app-3"))
	settleWithin(t, w, 10*time.Second)
	mustNil(t, w.SetSecretWatch(true))
	settleWithin(t, w, 10*time.Second)
	from := len(w.Events())
	mustNil(t, w.SetDependency(false))
	w.Advance(WatchDelay)
	var keys []string
	for _, e := range w.Events()[from:] {
		if e.Kind == EventEnqueue {
			if e.Verb != "watches" || e.Res != apiserver.KindSecret || e.Name != DependencyName {
				t.Fatalf("enqueue %+v", e)
			}
			keys = append(keys, e.Key)
		}
	}
	if want := []string{"default/app-1", "default/app-2", "default/app-3"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("enqueued %v, want %v", keys, want)
	}
}

// TestChildEditIsPutBack: a hand edit of the child is a write with a new
// resourceVersion; the Owns watch enqueues the owner, whose reconcile sees
// the drift and updates the child back to what the spec says.
func TestChildEditIsPutBack(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			w := withKind(t, k)
			before := child(t, w, "app-1")
			from := len(w.Events())
			mustNil(t, w.EditChild("app-1"))
			edited := child(t, w, "app-1")
			if edited.Data.LogLevel == before.Data.LogLevel || edited.ResourceVersion <= before.ResourceVersion {
				t.Fatalf("edited child %+v", edited)
			}
			w.Advance(WatchDelay)
			if s := queueKey(w, "app-1").State; s != "processing" {
				t.Fatalf("app-1 %s after the child's event, want processing", s)
			}
			settleWithin(t, w, 5*time.Second)
			after := child(t, w, "app-1")
			if after.Data != before.Data || after.ResourceVersion <= edited.ResourceVersion {
				t.Fatalf("child not put back: %+v", after)
			}
			// The log tells the story in order.
			steps := []func(Event) bool{
				func(e Event) bool {
					return e.Kind == EventWrite && e.Actor == "user" && e.Verb == "update" && e.Res == apiserver.KindConfigMap
				},
				func(e Event) bool {
					return e.Kind == EventWatch && e.Res == apiserver.KindConfigMap && e.Verb == "MODIFIED"
				},
				func(e Event) bool { return e.Kind == EventEnqueue && e.Verb == "owns" && e.Key == "default/app-1" },
				func(e Event) bool {
					return e.Kind == EventWrite && e.Actor == "worker" && e.Verb == "update" && e.Res == apiserver.KindConfigMap
				},
				func(e Event) bool { return e.Kind == EventReconcile && e.Verb == string(ActionUpdate) },
			}
			for _, e := range w.Events()[from:] {
				if len(steps) > 0 && steps[0](e) {
					steps = steps[1:]
				}
			}
			if len(steps) > 0 {
				t.Fatalf("%d steps of the story missing from the log:\n%s", len(steps), trace(w))
			}
			// The last report row is the no-op after the repair (its own
			// write came back through Owns); the repair is in the log.
			if r := row(t, w, "app-1"); r.Result != "success" || r.Observed.Child != ChildMatches {
				t.Fatalf("row %+v", r)
			}
		})
	}
}

// TestChildEditReportSaysDrift: the report row of the reconcile that repairs
// the child says what it saw and did: the child differs, update.
func TestChildEditReportSaysDrift(t *testing.T) {
	w := New()
	mustNil(t, w.EditChild("app-1"))
	w.Advance(WatchDelay) // the Owns watch hands app-1 to the worker
	res, err := w.Step()
	mustNil(t, err)
	if res.Last.Key != "default/app-1" || res.Resynced {
		t.Fatalf("Step() = %+v", res)
	}
	if r := row(t, w, "app-1"); r.Observed.Child != ChildDiffers || r.Action != ActionUpdate || r.Result != "success" {
		t.Fatalf("row %+v, want child differs → update", r)
	}
}

func TestChildEditRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		app  string
		want error
	}{
		"unknown name":      {"app-4", ErrUnknownApp},
		"App with no child": {"app-2", apiserver.ErrNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			w := New()
			before, events := w.Snapshot(), len(w.Events())
			if err := w.EditChild(tc.app); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !reflect.DeepEqual(w.Snapshot(), before) || len(w.Events()) != events {
				t.Fatal("a refused edit changed the world")
			}
		})
	}
}

// TestIdenticalWritesAreNoops: chapter 001 says rewriting the same content
// makes a watch event; the API server, rightly, does not: an apply of what
// is there is a no-op, with no new resourceVersion and no event, so a
// converged reconcile that writes anyway starts nothing.
func TestIdenticalWritesAreNoops(t *testing.T) {
	w := New()
	withSettings(t, w, func(s *Settings) {
		s.ChildWrite, s.StatusFrom, s.Predicate = ChildApply, StatusFromApply, false
	})
	settleWithin(t, w, 5*time.Second)
	rv, delivered, from := w.ResourceVersion(), w.Metrics().WatchEvents, len(w.Events())
	res, err := w.Step()
	mustNil(t, err)
	if res.Last.Result != "success" {
		t.Fatalf("Step() = %+v", res)
	}
	noops := 0
	for _, e := range w.Events()[from:] {
		if e.Kind == EventWrite {
			if e.Outcome != "noop" {
				t.Fatalf("write %+v, want noop", e)
			}
			noops++
		}
	}
	if noops != 2 || w.ResourceVersion() != rv || len(w.InFlight()) != 0 {
		t.Fatalf("%d no-op writes, rv %d → %d, %d events on their way", noops, rv, w.ResourceVersion(), len(w.InFlight()))
	}
	w.Advance(time.Minute)
	if w.Metrics().WatchEvents != delivered || !w.Quiet() {
		t.Fatal("an identical write made a watch event")
	}
}

// TestRunawayComesFromLastReconcileTime: with status always, every status
// write carries the reconcile's time, so it is a real change each time (a
// new resourceVersion, a new event, and without the predicate a new
// reconcile). The same status written again would be a no-op.
func TestRunawayComesFromLastReconcileTime(t *testing.T) {
	w := New()
	mustNil(t, w.SetTrap(TrapRunaway, true))
	from := len(w.Events())
	w.Advance(5 * time.Second)
	var writes []Event
	for _, e := range w.Events()[from:] {
		if e.Kind == EventWrite && e.Verb == "update-status" {
			writes = append(writes, e)
		}
	}
	if len(writes) < 5 {
		t.Fatalf("%d status writes in 5 s of runaway", len(writes))
	}
	for _, e := range writes {
		if e.Outcome != "ok" {
			t.Fatalf("status write %+v, want a real change", e)
		}
	}
	a := app(t, w, "app-1")
	if last := writes[len(writes)-1]; !a.Status.LastReconcileTime.Set || a.Status.LastReconcileTime.At != last.At {
		t.Fatalf("lastReconcileTime %+v, want the last write's time %v", a.Status.LastReconcileTime, last.At)
	}
	// Writing that same status again changes nothing.
	again, err := w.store.UpdateStatus(a)
	mustNil(t, err)
	if again.Changed || len(w.store.TakeEvents()) != 0 {
		t.Fatal("an identical status write was a change")
	}
}

// TestRequeueAfterOfAKeyAlreadyQueued: an event arrives while the App is
// reconciled, and the reconcile returns RequeueAfter. The classic queue
// keeps both the dirty key and the wait; the priority queue's one item per
// key is already ready, so the wait is moot: the row's RequeueIn is 0 and
// the log's requeue says ready.
func TestRequeueAfterOfAKeyAlreadyQueued(t *testing.T) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			w := withKind(t, k)
			mustNil(t, w.SetDependency(false))
			w.Advance(WatchDelay)
			mustNil(t, w.EditApp("app-1"))
			w.Advance(WatchDelay) // app-1 is on the worker
			mustNil(t, w.EditApp("app-1"))
			w.Advance(WatchDelay) // its edit's event: dirty
			if q := queueKey(w, "app-1"); !q.Processing || !q.Dirty {
				t.Fatalf("app-1 %+v, want processing and dirty", q)
			}
			w.Advance(ActDelay + ReportDelay - WatchDelay) // the reconcile returns
			r := row(t, w, "app-1")
			var last Event
			for e := range w.NewestEvents() {
				if e.Kind == EventRequeue {
					last = e
					break
				}
			}
			switch k {
			case workqueue.Priority:
				if r.RequeueIn != 0 || last.Outcome != "ready" || last.Delay != 0 || queueKey(w, "app-1").Waiting {
					t.Fatalf("row %+v, requeue %+v: want ready now, no wait", r, last)
				}
			case workqueue.Classic:
				if r.RequeueIn != NotReadyRequeue || last.Outcome != "" || !queueKey(w, "app-1").Waiting {
					t.Fatalf("row %+v, requeue %+v: want a 5 s wait beside the dirty key", r, last)
				}
			}
			if r.Result != "requeue_after" {
				t.Fatalf("row %+v", r)
			}
			roundTrip(t, w)
		})
	}
}
