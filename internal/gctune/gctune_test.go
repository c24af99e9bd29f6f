package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestPolicy: GOGC follows the actions of each second, a tick at a time:
// up to Busy while busy, kept within Budget as the live heap grows, and
// back to Quiet only after Calm quiet seconds.
func TestPolicy(t *testing.T) {
	type step struct {
		actions int64  // in the second before the tick
		live    uint64 // the live heap at the tick
		want    int    // GOGC after it
	}
	const mb = 1 << 20
	cfg := Config{Quiet: 50, Busy: 1000, BusyRate: 100, Calm: 3, Budget: 550 * mb}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"idle stays quiet", []step{{0, 40 * mb, 50}, {99, 40 * mb, 50}, {0, 40 * mb, 50}}},
		{"busy rises to Busy", []step{{100, 40 * mb, 1000}, {2000, 50 * mb, 1000}}},
		{"the budget bounds it", []step{{2000, 100 * mb, 450}, {2000, 200 * mb, 175}, {2000, 400 * mb, 50}, {2000, 600 * mb, 50}}},
		{"calm after three quiet seconds", []step{{2000, 50 * mb, 1000}, {10, 50 * mb, 1000}, {10, 50 * mb, 1000}, {10, 50 * mb, 50}, {10, 50 * mb, 50}}},
		{"a busy second starts the calm again", []step{{2000, 50 * mb, 1000}, {10, 50 * mb, 1000}, {10, 50 * mb, 1000},
			{500, 50 * mb, 1000}, {10, 50 * mb, 1000}, {10, 50 * mb, 1000}, {10, 50 * mb, 50}}},
		{"while calming, the budget still bounds it", []step{{2000, 50 * mb, 1000}, {0, 275 * mb, 100}}},
		{"no live heap read yet: quiet", []step{{2000, 0, 50}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n int64
			var live uint64
			var set []int
			c := cfg
			c.Actions = func() int64 { return n }
			tu := newTuner(c, func(p int) int { set = append(set, p); return 0 }, func() uint64 { return live })
			if len(set) != 1 || set[0] != c.Quiet {
				t.Fatalf("started with %v, want [%d]", set, c.Quiet)
			}
			for i, s := range tc.steps {
				n += s.actions
				live = s.live
				tu.tick()
				if got := set[len(set)-1]; got != s.want {
					t.Fatalf("tick %d (%d actions, %d MB live): GOGC %d, want %d", i, s.actions, s.live/mb, got, s.want)
				}
			}
		})
	}
}

// TestSetsOnlyChanges: a GOGC already set is not set again.
func TestSetsOnlyChanges(t *testing.T) {
	var n int64
	calls := 0
	tu := newTuner(Config{Quiet: 50, Busy: 1000, BusyRate: 100, Calm: 3, Budget: 1 << 30, Actions: func() int64 { return n }},
		func(int) int { calls++; return 0 }, func() uint64 { return 10 << 20 })
	for range 5 {
		n += 1000
		tu.tick()
	}
	if calls != 2 {
		t.Fatalf("%d calls of SetGCPercent, want 2 (quiet, then busy)", calls)
	}
}

// TestLiveHeapAndBudget: the runtime's live heap is read, and a memory
// limit makes the budget.
func TestLiveHeapAndBudget(t *testing.T) {
	runtime.GC()
	if liveHeap() == 0 {
		t.Fatal("no live heap read after a collection")
	}
	if got := Budget(123); got != 123 {
		t.Fatalf("Budget without a limit = %d", got)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1000 << 20))
	if got, want := Budget(123), uint64(700<<20); got != want {
		t.Fatalf("Budget with a 1000 MiB limit = %d, want %d", got, want)
	}
}
