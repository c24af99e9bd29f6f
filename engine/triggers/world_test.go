package triggers

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

func TestRefusedOperationsChangeNothing(t *testing.T) {
	tests := []struct {
		name string
		prep func(w *World)
		op   func(w *World) error
	}{
		{"desired below 0", nil, func(w *World) error { return w.SetDesired(-1) }},
		{"desired above MaxDesired", nil, func(w *World) error { return w.SetDesired(MaxDesired + 1) }},
		{"kill an unknown pod", nil, func(w *World) error { return w.Kill("pod-9") }},
		{"kill a name that is no pod", nil, func(w *World) error { return w.Kill("") }},
		{"kill a pod Failed on both sides", func(w *World) { w.Kill("pod-1") }, func(w *World) error { return w.Kill("pod-1") }},
		{"restart while restarting", func(w *World) { w.Restart() }, func(w *World) error { return w.Restart() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New()
			if tt.prep != nil {
				tt.prep(w)
			}
			before := w.Snapshot()
			if err := tt.op(w); err == nil {
				t.Fatal("accepted")
			}
			if !equalJSON(w.Snapshot(), before) {
				t.Fatal("a refused operation changed the world")
			}
		})
	}
}

func TestSameDesiredEmitsNothing(t *testing.T) {
	w := New()
	if err := w.SetDesired(StartDesired); err != nil {
		t.Fatal(err)
	}
	if len(w.View(Level).Stream) != 0 || w.Mattered().Row != RowNone {
		t.Fatal("declaring the current count emitted an event or taught a lesson")
	}
}

// Once the sides diverge, a name may be alive on one side only: the kill
// lands there and leaves the other side alone.
func TestKillLandsWhereThePodIsAlive(t *testing.T) {
	w := New()
	w.DuplicateNext()
	mustKill(t, w, "pod-2")
	w.Advance(5 * time.Second) // level: pod-4; edge: pod-4 and pod-5
	if _, ok := phaseOf(w.View(Level), "pod-5"); ok {
		t.Fatal("level side has pod-5")
	}
	level := w.Snapshot().Level
	mustKill(t, w, "pod-5")
	if ph, _ := phaseOf(w.View(Edge), "pod-5"); ph != reconcile.Failed {
		t.Fatalf("edge pod-5 is %v", ph)
	}
	if !equalJSON(w.Snapshot().Level, level) {
		t.Fatal("a kill of an edge-only pod touched the level side")
	}
	w.SetDrop(true)
	mustKill(t, w, "pod-4") // alive on both sides
	for _, s := range []Side{Level, Edge} {
		if ph, _ := phaseOf(w.View(s), "pod-4"); ph != reconcile.Failed {
			t.Fatalf("%v pod-4 is %v", s, ph)
		}
	}
	// pod-2 is Failed on the edge side and deleted on the level side.
	if err := w.Kill("pod-2"); err == nil {
		t.Fatal("killed a pod alive nowhere")
	}
}

func TestKillPendingPodStopsItsStart(t *testing.T) {
	w := New()
	mustKill(t, w, "pod-1")
	w.Advance(DeliveryDelay) // both sides create pod-4
	mustKill(t, w, "pod-4")
	w.SetDrop(true)
	w.Advance(StartDelay)
	for _, s := range []Side{Level, Edge} {
		for _, p := range w.View(s).Pods {
			if p.Name == "pod-4" && p.Phase != reconcile.Failed {
				t.Fatalf("%v: a killed Pending pod became %v", s, p.Phase)
			}
		}
	}
}

func TestNextDue(t *testing.T) {
	tests := []struct {
		name string
		act  func(w *World)
		want time.Duration
		ok   bool
	}{
		{"converged and quiet", func(w *World) {}, 0, false},
		{"an event in flight", func(w *World) { w.Kill("pod-1") }, DeliveryDelay, true},
		{"dropped: the level resync", func(w *World) { w.SetDrop(true); w.Kill("pod-1") }, Resync, true},
		{"dropped, later: the next multiple of Resync", func(w *World) {
			w.Advance(1300 * ms1)
			w.SetDrop(true)
			w.Kill("pod-1")
		}, 700 * ms1, true},
		{"restarting: the controllers come back", func(w *World) { w.Restart() }, RestartTime, true},
		{"a pod starting", func(w *World) { w.SetDrop(true); w.Kill("pod-1"); w.Step() }, StartDelay, true},
		{"a held swap event sets no timer", func(w *World) {
			w.SwapNext()
			w.SetDrop(true)
			w.SetDesired(4) // the level side will resync
			w.Advance(5 * time.Second)
		}, 0, false},
		{"dropped on the edge only: nothing will happen", func(w *World) {
			w.SetDrop(true)
			w.Kill("pod-1")
			w.Advance(5 * time.Second)
		}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New()
			tt.act(w)
			d, ok := w.NextDue()
			if d != tt.want || ok != tt.ok {
				t.Fatalf("NextDue() = %v, %v; want %v, %v", d, ok, tt.want, tt.ok)
			}
		})
	}
}

// The level controller resyncs on multiples of Resync, and only while a
// recount would change something.
func TestLevelResyncsOnlyWhileItWouldAct(t *testing.T) {
	w := New()
	w.SetDrop(true)
	w.Advance(2500 * ms1)
	mustKill(t, w, "pod-3")
	w.Advance(10 * time.Second)
	var resyncs []time.Duration
	for _, e := range w.View(Level).Log {
		if e.Trigger == TriggerResync {
			resyncs = append(resyncs, e.At)
		}
	}
	if !slices.Equal(resyncs, []time.Duration{3 * time.Second}) {
		t.Fatalf("resyncs at %v, want only at 3s", resyncs)
	}
	if e := w.View(Level).Log[0]; e.Desired != 3 || e.Alive != 2 || e.Failed != 1 ||
		!slices.Equal(e.Actions(), []Action{{ActDelete, 3}, {ActCreate, 4}}) {
		t.Fatalf("resync entry %+v", e)
	}
}

// All level events due at one instant are answered by one recount.
func TestLevelAnswersSimultaneousEventsWithOneRecount(t *testing.T) {
	w := New()
	mustKill(t, w, "pod-1", "pod-2", "pod-3")
	w.Advance(DeliveryDelay)
	log := w.View(Level).Log
	if len(log) != 1 || log[0].Trigger != TriggerEvent || log[0].Events != 3 || len(log[0].Actions()) != 6 {
		t.Fatalf("level log %+v", log)
	}
	if got := len(w.View(Edge).Log); got != 3 {
		t.Fatalf("the edge side handled %d events, want each of the 3", got)
	}
}

func TestStep(t *testing.T) {
	t.Run("level recounts once, edge handles its next event", func(t *testing.T) {
		w := New()
		mustKill(t, w, "pod-1", "pod-2")
		r := w.Step()
		if r.Level == nil || r.Level.Trigger != TriggerStep || len(r.Level.Actions()) != 4 {
			t.Fatalf("level step %+v", r.Level)
		}
		if r.Edge == nil || r.Edge.Heard.Pod.String() != "pod-1" || r.Edge.Trigger != TriggerStep || len(r.Edge.Actions()) != 2 {
			t.Fatalf("edge step %+v", r.Edge)
		}
		if w.Now() != 0 {
			t.Fatal("a step moved time")
		}
		ev := w.View(Edge).Stream[0]
		if ev.Delivered != 1 || ev.DeliveredAt != 0 || ev.InFlight != 0 {
			t.Fatalf("the stepped event %+v", ev)
		}
		if ev := w.View(Level).Stream[0]; ev.Delivered != 0 || ev.InFlight != 1 {
			t.Fatalf("a level step delivered its event: %+v", ev)
		}
		r = w.Step()
		if r.Edge == nil || r.Edge.Heard.Pod.String() != "pod-2" || len(r.Level.Actions()) != 0 {
			t.Fatalf("second step %+v %+v", r.Level, r.Edge)
		}
	})
	t.Run("an event the edge side only notes is handled but not logged", func(t *testing.T) {
		w := New()
		mustKill(t, w, "pod-1")
		w.Advance(DeliveryDelay) // edge: delete pod-1, create pod-4; both events in flight
		logged := len(w.View(Edge).Log)
		r := w.Step()
		if r.Edge == nil || r.Edge.Heard.Kind != PodDeleted || r.Edge.Seq != 0 || len(r.Edge.Actions()) != 0 {
			t.Fatalf("edge step %+v", r.Edge)
		}
		if n := len(w.View(Edge).Log); n != logged {
			t.Fatalf("edge log grew from %d to %d", logged, n)
		}
		r = w.Step() // created pod-4: already known
		if got := w.View(Edge).Known; !slices.Equal(got, []string{"pod-2", "pod-3", "pod-4"}) {
			t.Fatalf("the edge controller knows %v", got)
		}
	})
	t.Run("a quiet edge side has nothing to handle", func(t *testing.T) {
		w := New()
		r := w.Step()
		if r.Edge != nil || r.Level == nil || len(r.Level.Actions()) != 0 {
			t.Fatalf("step %+v", r)
		}
	})
	t.Run("nothing runs while restarting", func(t *testing.T) {
		w := New()
		w.Restart()
		if r := w.Step(); r.Level != nil || r.Edge != nil {
			t.Fatalf("step while down %+v", r)
		}
	})
	t.Run("a held swap event is not handed out", func(t *testing.T) {
		w := New()
		w.SwapNext()
		mustKill(t, w, "pod-1")
		if r := w.Step(); r.Edge != nil {
			t.Fatalf("edge handled a held event: %+v", r.Edge)
		}
	})
}

func TestLessons(t *testing.T) {
	tests := []struct {
		name string
		act  func(w *World)
		want Lesson
	}{
		{"desired: 人が書くもの", func(w *World) { w.SetDesired(4) }, Lesson{RowWrites, ReasonDesired, 0}},
		{"kill: 障害回復", func(w *World) { w.Kill("pod-1") }, Lesson{RowRecovery, ReasonKill, 0}},
		{"kill, dropped: 取りこぼし", func(w *World) { w.SetDrop(true); w.Kill("pod-1") }, Lesson{RowMissed, ReasonBlip, 0}},
		{"desired, dropped: 取りこぼし", func(w *World) { w.SetDrop(true); w.SetDesired(1) }, Lesson{RowMissed, ReasonBlip, 0}},
		{"a dropped running event does not matter", func(w *World) {
			w.Kill("pod-1")
			w.Advance(time.Second)
			w.SetDrop(true)
			w.Advance(time.Second)
		}, Lesson{RowRecovery, ReasonKill, 0}},
		{"kill while down: 取りこぼし", func(w *World) { w.Restart(); w.Advance(ms1); w.Kill("pod-1") }, Lesson{RowMissed, ReasonDown, ms1}},
		{"restart: 障害回復", func(w *World) { w.Restart() }, Lesson{RowRecovery, ReasonRestart, 0}},
		{"back up: 障害回復", func(w *World) { w.Restart(); w.Advance(time.Minute) }, Lesson{RowRecovery, ReasonRestart, RestartTime}},
		{"duplicate heard twice: 反応の起点", func(w *World) { w.DuplicateNext(); w.Kill("pod-1"); w.Advance(time.Second) },
			Lesson{RowTrigger, ReasonDuplicate, DeliveryDelay + DuplicateGap}},
		{"duplicate heard once so far", func(w *World) { w.DuplicateNext(); w.Kill("pod-1"); w.Advance(DeliveryDelay) },
			Lesson{RowRecovery, ReasonKill, 0}},
		{"swap: 反応の起点", func(w *World) { w.SwapNext(); w.SetDesired(5); w.SetDesired(4); w.Advance(DeliveryDelay) },
			Lesson{RowTrigger, ReasonSwap, DeliveryDelay}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New()
			tt.act(w)
			if got := w.Mattered(); got != tt.want {
				t.Fatalf("Mattered() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// An edge controller flooded with duplicates stops at the quota.
func TestEdgeStopsAtTheQuota(t *testing.T) {
	w := New()
	mustDesired(t, w, MaxDesired)
	w.Advance(5 * time.Second)
	for range 3 * MaxPods {
		w.DuplicateNext()
		v := w.View(Edge)
		for _, p := range v.Pods {
			if p.Phase != reconcile.Failed {
				mustKill(t, w, p.Name)
				break
			}
		}
		w.Advance(5 * time.Second)
	}
	v := w.View(Edge)
	if len(v.Pods) != MaxPods {
		t.Fatalf("edge holds %d pods, want the quota %d", len(v.Pods), MaxPods)
	}
	refused := false
	for _, e := range v.Log {
		for _, a := range e.Actions() {
			refused = refused || a.Kind == ActCreateRefused
		}
	}
	if !refused {
		t.Fatal("no create was refused")
	}
	if lv := w.View(Level); !lv.Converged || len(lv.Pods) != MaxDesired {
		t.Fatalf("level side %+v", lv)
	}
}

func TestViewsAreCopies(t *testing.T) {
	w := New()
	mustKill(t, w, "pod-1")
	w.Advance(time.Second)
	v := w.View(Level)
	v.Log[0].Actions()[0].Pod = 999
	v.Pods[0].Name = "changed"
	if w.View(Level).Log[0].Actions()[0].Pod == 999 || w.View(Level).Pods[0].Name == "changed" {
		t.Fatal("a view shares memory with the world")
	}
	if v := w.View(Side(7)); v.Side != Level {
		t.Fatalf("an unknown side is shown as %v", v.Side)
	}
	if Level.String() != "level" || Edge.String() != "edge" {
		t.Fatal("side names")
	}
}

func TestLogIsBounded(t *testing.T) {
	w := New()
	for range 3 * LogSize {
		w.Step()
	}
	v := w.View(Level)
	if len(v.Log) != LogSize || v.Log[LogSize-1].Seq != 3*LogSize {
		t.Fatalf("log of %d entries, last %d", len(v.Log), v.Log[len(v.Log)-1].Seq)
	}
}

func TestAdvanceIsBoundedAndNeverGoesBack(t *testing.T) {
	w := New()
	w.Advance(-time.Second)
	w.Advance(0)
	if w.Now() != 0 {
		t.Fatal("time moved on a non-positive Advance")
	}
	w.Advance(100 * 24 * time.Hour)
	if w.Now() != maxAdvance {
		t.Fatalf("one Advance moved %v, want at most %v", w.Now(), maxAdvance)
	}
	w.now = maxClock - time.Second
	w.Advance(time.Hour)
	if w.Now() != maxClock {
		t.Fatalf("the clock passed its bound: %v", w.Now())
	}
	if _, err := Restore(w.Snapshot()); err != nil {
		t.Fatalf("a world at the end of time does not restore: %v", err)
	}
	mustKill(t, w, "pod-1") // its event would arrive after the end of time
	quiet(t, w)
}

// View's log is the side's as it was: the world logging on (past LogSize,
// where the oldest entries move down in place) leaves it as it was read.
// Peek's shares the world's entries, for a reader done before the world
// moves, and reads the same as View's until then.
func TestViewKeepsItsLog(t *testing.T) {
	w := New()
	for n := 0; len(w.View(Level).Log) < LogSize; n++ {
		if n > 100 {
			t.Fatal("the level side's log never filled")
		}
		mustKill(t, w, w.View(Level).Pods[0].Name)
		w.Advance(5 * time.Second)
	}
	view, peek := w.View(Level), w.Peek(Level)
	if !reflect.DeepEqual(view.Log, peek.Log) {
		t.Fatal("View and Peek read different logs")
	}
	kept := cloneLog(view.Log)
	mustKill(t, w, w.View(Level).Pods[0].Name)
	w.Advance(5 * time.Second)
	if !reflect.DeepEqual(view.Log, kept) {
		t.Fatal("View's log changed as the world logged on")
	}
	if reflect.DeepEqual(w.View(Level).Log, kept) {
		t.Fatal("the world logged nothing: the test shows nothing")
	}
}
