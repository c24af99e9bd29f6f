// Package gctune sets the collector's GOGC by how busy the server is.
//
// A quiet server keeps a low GOGC: almost all of its heap is long-lived
// session state, and the headroom a high GOGC leaves would be most of an
// idle tab's memory. A busy one allocates for every frame, and at a low
// GOGC it collects twice a second, each time marking the whole heap for
// about 60 ms while every goroutine that allocates helps (2,000 pipeline
// sessions acting once a second, on two cores): the slowest actions were
// those that met a collection, 40–80 ms at p99 where the rest took 1 ms.
// With no collection at all that p99 was 5–8 ms.
//
// So while visitors act, GOGC rises to Busy, as far as Budget allows: the
// heap's goal (the live heap times 1+GOGC/100) stays within Budget. Once
// the actions stay under BusyRate for Calm seconds, GOGC returns to Quiet.
package gctune

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Config is the policy.
type Config struct {
	Quiet, Busy int          // GOGC while quiet, and at most while busy
	BusyRate    int64        // actions a second that make the server busy
	Calm        int          // quiet seconds in a row before GOGC returns to Quiet
	Budget      uint64       // the heap goal a busy server may reach, in bytes
	Actions     func() int64 // actions accepted so far
}

// Budget returns the heap a busy server may grow to: 70% of the memory
// limit (GOMEMLIMIT) when one is set, else def.
func Budget(def uint64) uint64 {
	if lim := debug.SetMemoryLimit(-1); lim != math.MaxInt64 {
		return uint64(float64(lim) * 0.7)
	}
	return def
}

// tuner is Config's state, a tick a second.
type tuner struct {
	Config
	set  func(int) int // debug.SetGCPercent
	live func() uint64 // the live heap at the last collection
	last int64         // Actions at the last tick
	calm int           // quiet ticks in a row
	cur  int           // the GOGC set
}

// Run applies the policy once a second until ctx ends, then sets Quiet.
func Run(ctx context.Context, c Config) {
	t := newTuner(c, debug.SetGCPercent, liveHeap)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			t.apply(t.Quiet)
			return
		case <-tick.C:
			t.tick()
		}
	}
}

func newTuner(c Config, set func(int) int, live func() uint64) *tuner {
	t := &tuner{Config: c, set: set, live: live, last: c.Actions(), cur: -1}
	t.apply(c.Quiet)
	return t
}

// tick reads the actions of the last second and sets GOGC.
func (t *tuner) tick() {
	n := t.Actions()
	rate := n - t.last
	t.last = n
	if rate >= t.BusyRate {
		t.calm = 0
		t.apply(t.busy())
		return
	}
	if t.cur == t.Quiet {
		return
	}
	if t.calm++; t.calm >= t.Calm {
		t.apply(t.Quiet)
		return
	}
	t.apply(t.busy()) // the live heap may have grown: stay within Budget
}

// busy returns the GOGC whose heap goal stays within Budget, in
// [Quiet, Busy].
func (t *tuner) busy() int {
	live := t.live()
	if live == 0 {
		return t.Quiet
	}
	p := 100 * (float64(t.Budget) - float64(live)) / float64(live)
	return int(min(max(p, float64(t.Quiet)), float64(t.Busy)))
}

func (t *tuner) apply(p int) {
	if p != t.cur {
		t.set(p)
		t.cur = p
	}
}

// liveHeap reads the live heap the last collection marked.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
