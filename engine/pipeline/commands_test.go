package pipeline

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

// TestRefusedCommandsChangeNothing: every command validates its input and a
// refused one changes nothing, not even the log.
func TestRefusedCommandsChangeNothing(t *testing.T) {
	bad := DefaultSettings()
	bad.Workers = 3
	cases := []struct {
		name string
		cmd  func(w *World) error
		want error
	}{
		{"create a fourth name", func(w *World) error { return w.CreateApp("app-4") }, ErrUnknownApp},
		{"create a bad name", func(w *World) error { return w.CreateApp("App 1") }, ErrUnknownApp},
		{"create an existing App", func(w *World) error { return w.CreateApp("app-1") }, apiserver.ErrAlreadyExists},
		{"edit a missing App", func(w *World) error { return w.EditApp("app-2") }, apiserver.ErrNotFound},
		{"edit an unknown name", func(w *World) error { return w.EditApp("") }, ErrUnknownApp},
		{"delete a missing App", func(w *World) error { return w.DeleteApp("app-3") }, apiserver.ErrNotFound},
		{"delete an unknown name", func(w *World) error { return w.DeleteApp("default/app-1") }, ErrUnknownApp},
		{"remove a finalizer that is not there", func(w *World) error {
			return w.RemoveFinalizer("app-2")
		}, apiserver.ErrNotFound},
		{"three workers", func(w *World) error { return w.SetWorkers(3) }, nil},
		{"zero workers", func(w *World) error { return w.SetWorkers(0) }, nil},
		{"bad settings", func(w *World) error { return w.SetSettings(bad) }, nil},
		{"bad status write", func(w *World) error { return w.SetStatusWrite("sometimes") }, nil},
		{"bad not-ready", func(w *World) error { return w.SetNotReady("panic") }, nil},
		{"unknown trap", func(w *World) error { return w.SetTrap("loop", true) }, nil},
		{"bad queue kind", func(w *World) error { return w.SetQueueKind("fifo") }, nil},
		{"edit a missing child", func(w *World) error { return w.EditChild("app-2") }, apiserver.ErrNotFound},
		{"edit an unknown child", func(w *World) error { return w.EditChild("app-9") }, ErrUnknownApp},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := New()
			before, events := w.Snapshot(), len(w.Events())
			err := tc.cmd(w)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !reflect.DeepEqual(w.Snapshot(), before) || len(w.Events()) != events {
				t.Fatal("a refused command changed the world")
			}
		})
	}
}

func TestRemoveFinalizerWithoutOne(t *testing.T) {
	w := New()
	w.SetController(false)
	mustNil(t, w.CreateApp("app-2")) // no controller: no finalizer added
	before := w.Snapshot()
	if err := w.RemoveFinalizer("app-2"); !errors.Is(err, ErrNoFinalizer) {
		t.Fatalf("err = %v", err)
	}
	if !reflect.DeepEqual(w.Snapshot(), before) {
		t.Fatal("changed the world")
	}
	// Without a finalizer, delete removes at once.
	mustNil(t, w.DeleteApp("app-2"))
	if has(w, apiserver.KindApp, "app-2") {
		t.Fatal("App without finalizer still there after delete")
	}
}

func TestRemovingTheFinalizerOfALiveAppIsUndone(t *testing.T) {
	w := New()
	mustNil(t, w.RemoveFinalizer("app-1"))
	if app(t, w, "app-1").HasFinalizer(Finalizer) {
		t.Fatal("finalizer not removed")
	}
	// The update event passes no predicate (generation unchanged), so only
	// the next reconcile that reads the cache after it puts it back: Step's
	// resync, through the child. (A Step at once would still read the
	// finalizer from the cache.)
	w.Advance(WatchDelay)
	if !w.Quiet() {
		t.Fatal("the finalizer's removal enqueued the App through the predicate")
	}
	_, err := w.Step()
	mustNil(t, err)
	settleWithin(t, w, 5*time.Second)
	if !app(t, w, "app-1").HasFinalizer(Finalizer) {
		t.Fatal("the reconciler did not put its finalizer back")
	}
}

func TestSettingsRedeployTheController(t *testing.T) {
	w := New()
	mustNil(t, w.SetWorkers(2))
	if len(w.Workers()) != 2 || w.Metrics().Workers != 2 {
		t.Fatalf("workers %+v", w.Workers())
	}
	if n := countEvents(w, func(e Event) bool { return e.Kind == EventController && e.Verb == "restart" }); n != 2 {
		t.Fatalf("%d restart events, want stop and start", n)
	}
	if n := countEvents(w, func(e Event) bool { return e.Kind == EventSettings && e.Verb == "workers" }); n != 1 {
		t.Fatal("no settings event")
	}
	// The restart lists every App: app-1 is on a worker at once.
	if v := w.Workers()[0]; !v.Busy || v.Key != "default/app-1" {
		t.Fatalf("worker 1 %+v", v)
	}
	// The same settings again: no restart.
	events := len(w.Events())
	mustNil(t, w.SetWorkers(2))
	if len(w.Events()) != events {
		t.Fatal("unchanged settings redeployed")
	}
	// Settings while off apply at the next start.
	w.SetController(false)
	mustNil(t, w.SetPredicate(false))
	if w.ControllerOn() || w.Settings().Predicate {
		t.Fatal("settings while off")
	}
	w.SetController(true)
	w.SetController(true) // no-op
	settleWithin(t, w, 5*time.Second)
}

func TestABusyAPIServerRefusesWrites(t *testing.T) {
	w := New()
	var err error
	edits := 0
	for edits = 0; edits < 100; edits++ {
		if err = w.EditApp("app-1"); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrTooManyRequests) || edits != MaxInflight {
		t.Fatalf("after %d edits: %v; want TooManyRequests after %d", edits, err, MaxInflight)
	}
	if err := w.SetDependency(false); !errors.Is(err, ErrTooManyRequests) {
		t.Fatalf("dependency while busy: %v", err)
	}
	if len(w.InFlight()) != MaxInflight {
		t.Fatalf("%d in flight", len(w.InFlight()))
	}
	w.Advance(WatchDelay)
	mustNil(t, w.EditApp("app-1"))
	settleWithin(t, w, 30*time.Second)
	if a := app(t, w, "app-1"); a.Status.ObservedGeneration != a.Generation {
		t.Fatalf("not converged after the burst: %+v", a)
	}
	roundTrip(t, w)
}

func TestAdvanceKeepsSubMillisecondTime(t *testing.T) {
	w := New()
	mustNil(t, w.EditApp("app-1"))
	start := w.Now()
	d, ok := w.NextDue()
	if !ok || d != WatchDelay {
		t.Fatalf("NextDue() = %v, %v", d, ok)
	}
	for range 3 {
		w.Advance(400 * time.Microsecond)
	}
	if w.Now()-start != 1200*time.Microsecond {
		t.Fatalf("Now advanced %v, want 1.2ms", w.Now()-start)
	}
	d, _ = w.NextDue()
	if d != WatchDelay-1200*time.Microsecond {
		t.Fatalf("NextDue() = %v after 1.2ms", d)
	}
	w.Advance(d)
	if len(w.InFlight()) != 0 {
		t.Fatal("the event due was not delivered by advancing exactly NextDue")
	}
	w.Advance(0)
	w.Advance(-time.Hour)
	if w.Now()-start != WatchDelay {
		t.Fatalf("Now() moved by %v", w.Now()-start)
	}
}

func TestClockIsBounded(t *testing.T) {
	w := New()
	now := w.Now()
	w.Advance(100 * time.Hour)
	if w.Now()-now != MaxAdvance {
		t.Fatalf("one Advance moved %v, want at most %v", w.Now()-now, MaxAdvance)
	}
	w.now = MaxClock - time.Second
	w.Advance(time.Hour)
	if w.Now() != MaxClock {
		t.Fatalf("clock %v past MaxClock", w.Now())
	}
	roundTrip(t, w)
}

func TestResetReturnsToTheStartingState(t *testing.T) {
	w := New()
	mustNil(t, w.CreateApp("app-2"))
	mustNil(t, w.SetTrap(TrapRunaway, true))
	w.Advance(time.Minute)
	now := w.Now()
	w.Reset()
	fresh := New()
	if w.Now() < now || w.Settings() != DefaultSettings() || has(w, apiserver.KindApp, "app-2") || !ready(t, w, "app-1") {
		t.Fatal("not the starting state")
	}
	if !w.Quiet() || w.Metrics().Counters != fresh.Metrics().Counters {
		t.Fatalf("counters %+v, want %+v", w.Metrics().Counters, fresh.Metrics().Counters)
	}
	if e := w.Events(); e[0].Kind != EventReset || e[0].At != now || len(e) != len(fresh.Events())+1 {
		t.Fatal("the log does not start with the reset, then the starting state's story")
	}
}

func TestEventLogIsBounded(t *testing.T) {
	w := New()
	mustNil(t, w.SetTrap(TrapRunaway, true))
	w.Advance(10 * time.Minute)
	ev := w.Events()
	if len(ev) != EventLogSize {
		t.Fatalf("%d events, want the ring full at %d", len(ev), EventLogSize)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].Seq != ev[i-1].Seq+1 || ev[i].At < ev[i-1].At {
			t.Fatal("events out of order")
		}
	}
}

func TestViews(t *testing.T) {
	w := New()
	mustNil(t, w.SetWorkers(2))
	mustNil(t, w.CreateApp("app-2"))
	mustNil(t, w.DeleteApp("app-1"))
	if f := w.InFlight(); len(f) != 2 || f[0].Type != apiserver.Added || f[1].Type != apiserver.Modified || f[0].In != WatchDelay {
		t.Fatalf("in flight %+v", f)
	}
	if c := w.Cache(); len(c) != 3 {
		t.Fatalf("cache %+v", c)
	}
	w.Advance(WatchDelay)
	ws := w.Workers()
	if !ws[0].Busy || !ws[1].Busy || ws[1].Key != "default/app-2" || ws[1].Phase != string(phaseAct) || ws[1].DueIn != ActDelay {
		t.Fatalf("workers %+v", ws)
	}
	for _, k := range w.Queue() {
		if k.State != "processing" || k.Worker == 0 {
			t.Fatalf("queue %+v", w.Queue())
		}
	}
	// app-1's deletion arrived while it was processing: dirty, and
	// workqueue_depth counts it (Len does not).
	if k := queueKey(w, "app-1"); !k.Dirty || len(w.ReadyOrder()) != 0 {
		t.Fatalf("app-1 %+v", k)
	}
	m := w.Metrics()
	if m.ActiveWorkers != 2 || m.WorkqueueDepth != 1 {
		t.Fatalf("metrics %+v", m)
	}
	off := New()
	off.SetController(false)
	if off.Cache() != nil || off.InFlight() != nil || off.Queue() != nil || off.Workers() != nil || off.ReadyOrder() != nil {
		t.Fatal("views of a stopped controller")
	}
	if off.Metrics().ActiveWorkers != 0 {
		t.Fatal("active workers while off")
	}
}
