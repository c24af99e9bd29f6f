package pipeline

import (
	"testing"
	"time"
)

func withSettings(t *testing.T, w *World, f func(*Settings)) {
	t.Helper()
	s := w.Settings()
	f(&s)
	mustNil(t, w.SetSettings(s))
}

func TestTrapsSwitchTheirCause(t *testing.T) {
	for _, tr := range Traps() {
		w := New()
		mustNil(t, w.SetTrap(tr, true))
		if !w.TrapOn(tr) {
			t.Fatalf("%s: SetTrap(on) did not put the cause in place", tr)
		}
		for _, other := range Traps() {
			if other != tr && w.TrapOn(other) {
				t.Fatalf("%s switched %s on too", tr, other)
			}
		}
		mustNil(t, w.SetTrap(tr, false))
		if w.TrapOn(tr) || w.Settings() != DefaultSettings() || !w.ControllerOn() {
			t.Fatalf("%s: SetTrap(off) did not return to the starting settings: %+v", tr, w.Settings())
		}
	}
	if err := New().SetTrap("nope", true); err == nil {
		t.Fatal("an unknown trap was accepted")
	}
}

// TestStatusConflict: a reconcile that starts from a cache that has not yet
// received its own last status write (the child's event arrives first)
// writes status with a stale resourceVersion.
func TestStatusConflict(t *testing.T) {
	cases := []struct {
		from      StatusFrom
		conflicts bool
	}{
		{StatusFromCache, true},
		{StatusFromLatest, false},
		{StatusFromApply, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.from), func(t *testing.T) {
			w := New()
			withSettings(t, w, func(s *Settings) { s.StatusFrom = tc.from })
			settleWithin(t, w, 5*time.Second)
			mustNil(t, w.EditApp("app-1"))
			settleWithin(t, w, 10*time.Second)
			m := w.Metrics()
			if got := m.Conflicts > 0; got != tc.conflicts {
				t.Fatalf("conflicts %d, want some: %v\n%s", m.Conflicts, tc.conflicts, trace(w))
			}
			if tc.conflicts && countEvents(w, func(e Event) bool {
				return e.Kind == EventWrite && e.Verb == "update-status" && e.Reason == "Conflict"
			}) == 0 {
				t.Fatal("the conflict was not on the status write")
			}
			a := app(t, w, "app-1")
			if a.Status.ObservedGeneration != 2 || !ready(t, w, "app-1") {
				t.Fatalf("not converged: %+v", a)
			}
		})
	}
}

// TestAlreadyExists: create without checking fails from the second
// reconcile on, and keeps failing.
func TestAlreadyExists(t *testing.T) {
	cases := []struct {
		write ChildWrite
		fails bool
	}{
		{ChildBlind, true},
		{ChildGetThenBranch, false},
		{ChildApply, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.write), func(t *testing.T) {
			w := New()
			withSettings(t, w, func(s *Settings) { s.ChildWrite = tc.write })
			w.Advance(30 * time.Second)
			m := w.Metrics()
			if got := m.AlreadyExists > 3; got != tc.fails {
				t.Fatalf("AlreadyExists %d, want climbing: %v", m.AlreadyExists, tc.fails)
			}
			if tc.fails {
				if r := row(t, w, "app-1"); r.Reason != "AlreadyExists" || r.Action != ActionCreate || r.Requeue != RequeueBackoff {
					t.Fatalf("report row %+v", r)
				}
				if queueKey(w, "app-1").Failures < 3 {
					t.Fatal("failures not climbing")
				}
				return
			}
			if !w.Quiet() || m.ReconcileError != 0 {
				t.Fatalf("quiet %v, errors %d", w.Quiet(), m.ReconcileError)
			}
			// Idempotent: a change of spec goes through the same path.
			mustNil(t, w.EditApp("app-1"))
			settleWithin(t, w, 5*time.Second)
			if child(t, w, "app-1").Data.LogLevel != "debug" || w.Metrics().ReconcileError != 0 {
				t.Fatalf("edit not applied idempotently:\n%s", trace(w))
			}
		})
	}
}

// TestJustCreatedIsNotVisible: the cache has not received the create.
func TestJustCreatedIsNotVisible(t *testing.T) {
	cases := []struct {
		after     AfterCreate
		notFound  bool
		holdsLong bool
	}{
		{AfterCreateReadBack, true, false},
		{AfterCreateTrust, false, false},
		{AfterCreateSleep, false, true},
	}
	for _, tc := range cases {
		t.Run(string(tc.after), func(t *testing.T) {
			w := New()
			withSettings(t, w, func(s *Settings) { s.AfterCreate = tc.after })
			settleWithin(t, w, 5*time.Second)
			mustNil(t, w.CreateApp("app-2"))
			settleWithin(t, w, 10*time.Second)
			nf := countEvents(w, func(e Event) bool { return e.Kind == EventReconcile && e.Reason == ReasonNotFound })
			if (nf > 0) != tc.notFound {
				t.Fatalf("%d NotFound errors, want some: %v\n%s", nf, tc.notFound, trace(w))
			}
			if !tc.notFound && w.Metrics().ReconcileError != 0 {
				t.Fatalf("errors without the trap:\n%s", trace(w))
			}
			longest := time.Duration(0)
			for _, e := range w.Events() {
				if e.Kind == EventGet && e.Key == "default/app-2" {
					for _, f := range w.Events() {
						if f.Kind == EventReconcile && f.Key == e.Key && f.Seq > e.Seq {
							longest = max(longest, f.At-e.At)
							break
						}
					}
				}
			}
			if held := longest >= SleepAfterCreate; held != tc.holdsLong {
				t.Fatalf("longest reconcile of app-2 %v; want it to hold its worker over %v: %v", longest, SleepAfterCreate, tc.holdsLong)
			}
			if child(t, w, "app-2").Data.LogLevel != "info" || !ready(t, w, "app-2") {
				t.Fatal("app-2 did not converge")
			}
		})
	}
}

// TestSlowObjectDelaysTheRest: with one worker, app-2 waits behind app-1's
// hung call; with MaxConcurrentReconciles 2 it does not.
func TestSlowObjectDelaysTheRest(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(map[int]string{1: "one worker", 2: "two workers"}[workers], func(t *testing.T) {
			w := New()
			mustNil(t, w.CreateApp("app-2"))
			settleWithin(t, w, 5*time.Second)
			withSettings(t, w, func(s *Settings) { s.Workers = workers })
			mustNil(t, w.SetTrap(TrapSlowObject, true)) // redeploys: app-1 then app-2 are listed
			start := w.Now()
			var waited time.Duration
			for w.Now()-start < 30*time.Second {
				w.Advance(100 * ms1)
				if k := queueKey(w, "app-2"); k.Ready {
					waited += 100 * ms1
				}
				checkWorkers(t, w)
			}
			if slowed := waited >= SlowCall-time.Second; slowed != (workers == 1) {
				t.Fatalf("app-2 waited ready %v with %d workers", waited, workers)
			}
			if !ready(t, w, "app-2") {
				t.Fatal("app-2 never reconciled")
			}
			r := row(t, w, "app-1")
			if r.Reason != ReasonTimeout || r.Took < SlowCall {
				t.Fatalf("app-1's row %+v, want a timeout after holding its worker", r)
			}
		})
	}
}

// checkWorkers: never two workers on one key, and processing is exactly
// the workers' keys.
func checkWorkers(t *testing.T, w *World) {
	t.Helper()
	seen := map[string]bool{}
	for _, v := range w.Workers() {
		if !v.Busy {
			continue
		}
		if seen[v.Key] {
			t.Fatalf("two workers on %s", v.Key)
		}
		seen[v.Key] = true
	}
	for _, k := range w.Queue() {
		if k.Processing != seen[k.Key] || k.Processing && k.Ready {
			t.Fatalf("queue key %+v, workers %+v", k, w.Workers())
		}
	}
}

// TestExternalAPIStampede: a short RequeueAfter calls the external API on
// every reconcile; a longer one calms it.
func TestExternalAPIStampede(t *testing.T) {
	perMinute := func(p Periodic) int64 {
		w := New()
		withSettings(t, w, func(s *Settings) { s.Periodic = p })
		w.Advance(time.Second)
		n := w.Metrics().ExternalCalls
		w.Advance(time.Minute)
		return w.Metrics().ExternalCalls - n
	}
	short, long, none := perMinute(PeriodicShort), perMinute(PeriodicLong), perMinute(PeriodicNone)
	if short < 60 || long > 2 || none != 0 {
		t.Fatalf("external calls a minute: short %d, long %d, none %d", short, long, none)
	}
}

func TestSleepHoldsTheOnlyWorker(t *testing.T) {
	w := New()
	mustNil(t, w.SetSettings(func() Settings { s := DefaultSettings(); s.AfterCreate = AfterCreateSleep; return s }()))
	settleWithin(t, w, time.Second)
	mustNil(t, w.CreateApp("app-2"))
	w.Advance(WatchDelay + ActDelay)
	v := w.Workers()[0]
	if !v.Busy || v.Key != "default/app-2" || v.Phase != string(phaseReadBack) || v.Action != ActionCreate {
		t.Fatalf("worker %+v, want app-2 sleeping after its create", v)
	}
	mustNil(t, w.EditApp("app-1"))
	w.Advance(WatchDelay)
	if k := queueKey(w, "app-1"); !k.Ready {
		t.Fatalf("app-1 %+v, want ready behind the sleeping worker", k)
	}
	if a := app(t, w, "app-1"); a.Status.ObservedGeneration != 1 {
		t.Fatal("app-1 reconciled while the only worker slept")
	}
}

// TestConflictsRiseWithConcurrency: edit three Apps at once with status from
// the cache. One worker works through the queue slowly enough for the cache
// to catch up; two workers pick keys up sooner, before their own status
// writes have reached the cache (コントローラーがリソースを同時に複数処理する
// と、確率が上がります).
func TestConflictsRiseWithConcurrency(t *testing.T) {
	conflicts := func(workers int) int64 {
		w := New()
		mustNil(t, w.CreateApp("app-2"))
		mustNil(t, w.CreateApp("app-3"))
		settleWithin(t, w, 10*time.Second)
		withSettings(t, w, func(s *Settings) { s.Workers = workers; s.StatusFrom = StatusFromCache })
		settleWithin(t, w, 10*time.Second)
		before := w.Metrics().Conflicts
		for _, n := range AppNames {
			mustNil(t, w.EditApp(n))
		}
		settleWithin(t, w, 20*time.Second)
		for _, n := range AppNames {
			if app(t, w, n).Status.ObservedGeneration != 2 {
				t.Fatalf("%s not converged", n)
			}
		}
		return w.Metrics().Conflicts - before
	}
	if one, two := conflicts(1), conflicts(2); one != 0 || two == 0 {
		t.Fatalf("conflicts: %d with one worker, %d with two; want none, then some", one, two)
	}
}

func TestEveryTrapNamesAFix(t *testing.T) {
	for _, tr := range Traps() {
		if len(tr.Fixes()) == 0 {
			t.Fatalf("%s names no fix", tr)
		}
	}
	if Trap("nope").Fixes() != nil {
		t.Fatal("an unknown trap names fixes")
	}
}
