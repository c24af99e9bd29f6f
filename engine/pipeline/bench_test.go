package pipeline

import "testing"

// BenchmarkWorstAdvance measures the worst Advance a session can ask for:
// MaxAdvance of a runaway loop and a stampede on three Apps and two workers.
func BenchmarkWorstAdvance(b *testing.B) {
	for range b.N {
		w := New()
		w.CreateApp("app-2")
		w.CreateApp("app-3")
		w.SetWorkers(2)
		w.SetTrap(TrapRunaway, true)
		w.SetTrap(TrapStampede, true)
		w.Advance(MaxAdvance)
	}
}

func TestAnHourOfRunawayGrowsOnlyCounters(t *testing.T) {
	w := New()
	mustNil(t, w.CreateApp("app-2"))
	mustNil(t, w.CreateApp("app-3"))
	mustNil(t, w.SetWorkers(2))
	mustNil(t, w.SetTrap(TrapRunaway, true))
	w.Advance(MaxAdvance)
	if n := w.Metrics().Reconciles(); n < 10000 {
		t.Fatalf("%d reconciles in an hour of runaway", n)
	}
	if len(w.Events()) != EventLogSize || len(w.Queue()) > MaxApps || len(w.InFlight()) > MaxInflight+1 {
		t.Fatal("a runaway day grew something besides counters")
	}
	roundTrip(t, w)
}
