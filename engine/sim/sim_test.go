package sim

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestSpeedScaleAndUnscale(t *testing.T) {
	for _, tc := range []struct {
		s             Speed
		in, scaled    time.Duration
		virtual, wait time.Duration
	}{
		{Half, time.Second, 500 * ms, time.Second, 2 * time.Second},
		{Normal, time.Second, time.Second, time.Second, time.Second},
		{Double, time.Second, 2 * time.Second, time.Second, 500 * ms},
		{Double, time.Second, 2 * time.Second, 3, 2}, // rounds up: a timer never fires early
	} {
		if got := tc.s.Scale(tc.in); got != tc.scaled {
			t.Errorf("%v.Scale(%v) = %v, want %v", tc.s, tc.in, got, tc.scaled)
		}
		if got := tc.s.Unscale(tc.virtual); got != tc.wait {
			t.Errorf("%v.Unscale(%v) = %v, want %v", tc.s, tc.virtual, got, tc.wait)
		}
		if back, err := ParseSpeed(tc.s.String()); err != nil || back != tc.s {
			t.Errorf("ParseSpeed(%q) = %v, %v", tc.s.String(), back, err)
		}
	}
	for _, bad := range []string{"", "0", "3", "0.50", "1.0", "fast", "2x"} {
		if _, err := ParseSpeed(bad); err == nil {
			t.Errorf("ParseSpeed(%q) succeeded", bad)
		}
	}
}

func TestClockTarget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		clock Clock
		d     time.Duration
		want  time.Duration
	}{
		{"normal", NewClock(time.Second, false, Normal), time.Second, 2 * time.Second},
		{"half", NewClock(time.Second, false, Half), time.Second, 1500 * ms},
		{"double", NewClock(time.Second, false, Double), time.Second, 3 * time.Second},
		{"paused", NewClock(time.Second, true, Double), time.Second, time.Second},
		{"negative", NewClock(time.Second, false, Normal), -time.Second, time.Second},
		{"a day at most", NewClock(0, false, Normal), 72 * time.Hour, 24 * time.Hour},
		{"bounded", NewClock(MaxClock-time.Second, false, Double), time.Hour, MaxClock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.clock.Target(tc.d); got != tc.want {
				t.Fatalf("Target(%v) = %v, want %v", tc.d, got, tc.want)
			}
		})
	}
}

func TestClockSetNeverMovesBack(t *testing.T) {
	c := NewClock(5*time.Second, false, Normal)
	c.Set(time.Second)
	if c.Now() != 5*time.Second {
		t.Fatalf("Set moved the clock back to %v", c.Now())
	}
	c.Set(time.Duration(math.MaxInt64))
	if c.Now() != MaxClock {
		t.Fatalf("Set passed MaxClock: %v", c.Now())
	}
	if got := NewClock(-time.Second, false, Normal); got.Now() != 0 {
		t.Fatalf("NewClock(-1s) = %v", got.Now())
	}
}

func TestClockSetSpeedIgnoresNonSpeeds(t *testing.T) {
	c := NewClock(0, false, Normal)
	c.SetSpeed(Double)
	for _, bad := range []Speed{-1, 3, 100} {
		c.SetSpeed(bad)
		if c.Speed() != Double {
			t.Fatalf("SetSpeed(%d) changed the speed to %v", bad, c.Speed())
		}
	}
}

func TestClockWait(t *testing.T) {
	c := NewClock(0, false, Double)
	if d, ok := c.Wait(time.Second, true); !ok || d != 500*ms {
		t.Fatalf("Wait(1s) at 2× = %v, %v", d, ok)
	}
	if _, ok := c.Wait(time.Second, false); ok {
		t.Fatal("Wait with nothing waiting reported a wait")
	}
	c.SetPaused(true)
	if _, ok := c.Wait(time.Second, true); ok {
		t.Fatal("a paused clock reported a wait")
	}
}

// TestTimelineOrder: starts and ticks come in time order; at equal times
// starts come first, in name order, then the tick.
func TestTimelineOrder(t *testing.T) {
	tl := NewTimeline(NewClock(0, false, Normal), time.Second)
	tl.StartAfter("b", time.Second)
	tl.StartAfter("a", time.Second)
	tl.StartAfter("c", 500*ms)
	var got []string
	tl.Advance(1500*ms, func() bool { return true },
		func(name string) { got = append(got, name+"@"+tl.Now().String()) },
		func() { got = append(got, "tick@"+tl.Now().String()) })
	want := []string{"c@500ms", "a@1s", "b@1s", "tick@1s"}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if tl.Now() != 1500*ms {
		t.Fatalf("now %v", tl.Now())
	}
	if _, ok := tl.StartsIn("a"); ok {
		t.Fatal("a started but is still waiting")
	}
}

// TestTimelineSkipsIdleTicks: while not ticking, no tick fires and NextDue
// reports nothing; once ticking, the next tick is the next multiple of the
// cadence.
func TestTimelineSkipsIdleTicks(t *testing.T) {
	tl := NewTimeline(NewClock(0, false, Normal), time.Second)
	ticking := false
	ticks := 0
	tl.Advance(3500*ms, func() bool { return ticking }, func(string) {}, func() { ticks++ })
	if ticks != 0 {
		t.Fatalf("%d ticks while idle", ticks)
	}
	if _, ok := tl.NextDue(false); ok {
		t.Fatal("an idle timeline reported something due")
	}
	ticking = true
	if d, ok := tl.NextDue(true); !ok || d != 500*ms {
		t.Fatalf("NextDue = %v, %v; want the tick at 4s, 500ms away", d, ok)
	}
	tl.SetPaused(true)
	if _, ok := tl.NextDue(true); ok {
		t.Fatal("a paused timeline reported something due")
	}
	tl.Advance(time.Hour, func() bool { return ticking }, func(string) {}, func() { ticks++ })
	if ticks != 0 || tl.Now() != 3500*ms {
		t.Fatalf("paused: %d ticks, now %v", ticks, tl.Now())
	}
}

func TestTimelineCancel(t *testing.T) {
	tl := NewTimeline(NewClock(0, false, Normal), time.Second)
	tl.StartAfter("a", time.Second)
	if in, ok := tl.StartsIn("a"); !ok || in != time.Second {
		t.Fatalf("StartsIn = %v, %v", in, ok)
	}
	tl.Cancel("a")
	started := 0
	tl.Advance(2*time.Second, func() bool { return false }, func(string) { started++ }, func() {})
	if started != 0 {
		t.Fatal("a cancelled start happened")
	}
}

func TestLogIsBounded(t *testing.T) {
	l := NewLog(3)
	for i := 1; i <= 5; i++ {
		l.Add(time.Duration(i)*time.Second, Event{Kind: "k", N: i})
	}
	got := l.List()
	if len(got) != 3 || got[0].N != 3 || got[2].N != 5 || got[2].Seq != 5 || got[2].At != 5*time.Second {
		t.Fatalf("log %+v", got)
	}
	if l.Seq() != 5 {
		t.Fatalf("Seq %d", l.Seq())
	}
	got[0].N = 99
	if l.List()[0].N != 3 {
		t.Fatal("List returned the log's own slice")
	}
	if newest := l.Newest(2); len(newest) != 2 || newest[0].N != 4 || newest[1].N != 5 {
		t.Fatalf("Newest(2) %+v", newest)
	}
	if all := l.Newest(10); len(all) != 3 || all[0].N != 3 {
		t.Fatalf("Newest(10) %+v", all)
	}
	l.Newest(1)[0].N = 99
	if l.List()[2].N != 5 {
		t.Fatal("Newest returned the log's own slice")
	}
	var zero Log
	zero.Add(0, Event{Kind: "k"})
	if len(zero.List()) != 0 || zero.Seq() != 1 {
		t.Fatal("the zero log keeps events")
	}
}

func TestHistory(t *testing.T) {
	h := NewHistory(func(x [2]int) time.Duration { return time.Duration(x[0]) * time.Second },
		func(a, b [2]int) bool { return a[1] == b[1] })
	h.Record([2]int{0, 1}, 0, time.Minute)
	h.Record([2]int{1, 1}, time.Second, time.Minute) // equal: not recorded
	h.Record([2]int{2, 2}, 2*time.Second, time.Minute)
	if got := h.List(); len(got) != 2 || h.Last() != 2*time.Second {
		t.Fatalf("history %v, last %v", got, h.Last())
	}
	h.Record([2]int{100, 3}, 100*time.Second, time.Minute)
	h.Trim(100*time.Second, time.Minute)
	// The sample at 2 s still gives the value at the window's edge (40 s).
	if got := h.List(); len(got) != 2 || got[0][0] != 2 {
		t.Fatalf("trimmed history %v", got)
	}
	for i := 0; i < 3*MaxSamples; i++ {
		h.Record([2]int{200, i + 10}, 200*time.Second, time.Hour)
	}
	if n := len(h.List()); n != MaxSamples || h.Len() != MaxSamples {
		t.Fatalf("%d samples (Len %d), want the bound %d", n, h.Len(), MaxSamples)
	}
	list := h.List()
	for i, x := range h.All() {
		if x != list[i] {
			t.Fatalf("All yields %v at %d, List holds %v", x, i, list[i])
		}
	}
	h.Reset()
	if len(h.List()) != 0 || h.Last() != 0 {
		t.Fatal("Reset kept samples")
	}
}

func TestEnvelope(t *testing.T) {
	c := NewClock(1234*ms, true, Half)
	env := c.Envelope("reconcile")
	if env != (Envelope{V: SnapshotVersion, Kind: "reconcile", Now: 1234, Paused: true, Speed: "0.5"}) {
		t.Fatalf("envelope %+v", env)
	}
	back, err := env.Clock("reconcile")
	if err != nil || back != c {
		t.Fatalf("Clock() = %+v, %v", back, err)
	}
	noKind := env
	noKind.Kind = ""
	if _, err := noKind.Clock("reconcile"); err != nil {
		t.Fatalf("a snapshot without a kind (first release) is refused: %v", err)
	}
	for name, bad := range map[string]Envelope{
		"version":    {V: 2, Speed: "1"},
		"no version": {Speed: "1"},
		"kind":       {V: 1, Kind: "operator", Speed: "1"},
		"negative":   {V: 1, Now: -1, Speed: "1"},
		"too late":   {V: 1, Now: MaxSnapshotNow + 1, Speed: "1"},
		"speed":      {V: 1, Speed: "3"},
		"no speed":   {V: 1},
	} {
		if _, err := bad.Clock("reconcile"); err == nil {
			t.Errorf("%s: accepted %+v", name, bad)
		}
	}
}

func TestLoopSwitchLogsOnlyChanges(t *testing.T) {
	l := NewLoop(NewClock(0, false, Normal), Options{}, true)
	l.SetController(true)
	l.SetController(false)
	l.SetController(false)
	evs := l.Log.List()
	if len(evs) != 2 || evs[0].Kind != EventWatchStart || evs[1].Kind != EventWatchStop || l.Controller() {
		t.Fatalf("log %+v, on %v", evs, l.Controller())
	}
	if off := NewLoop(NewClock(0, false, Normal), Options{}, false); len(off.Log.List()) != 0 {
		t.Fatal("a loop that starts off logged a switch")
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.WithDefaults()
	if o.Cadence != time.Second || o.StartDelay != 1500*ms || o.LogSize != 40 || o.Window != time.Minute {
		t.Fatalf("defaults %+v", o)
	}
	set := Options{Cadence: 2 * time.Second, StartDelay: ms, LogSize: 3, Window: time.Hour}
	if set.WithDefaults() != set {
		t.Fatal("WithDefaults changed set options")
	}
}
