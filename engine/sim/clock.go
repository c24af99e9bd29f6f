package sim

import (
	"fmt"
	"time"
)

// Speed scales how fast virtual time runs against the caller's time.
type Speed int

// The speeds a visitor can choose.
const (
	Half   Speed = iota // 0.5×
	Normal              // 1×
	Double              // 2×
)

// String returns the speed as the wire and the page spell it: "0.5", "1", "2".
func (s Speed) String() string {
	switch s {
	case Half:
		return "0.5"
	case Double:
		return "2"
	}
	return "1"
}

// ParseSpeed parses "0.5", "1" or "2".
func ParseSpeed(s string) (Speed, error) {
	switch s {
	case "0.5":
		return Half, nil
	case "1":
		return Normal, nil
	case "2":
		return Double, nil
	}
	return Normal, fmt.Errorf("speed %q is not one of 0.5, 1, 2", s)
}

// Scale converts a duration of the caller's time into virtual time.
func (s Speed) Scale(d time.Duration) time.Duration {
	switch s {
	case Half:
		return d / 2
	case Double:
		return d * 2
	}
	return d
}

// Unscale converts a duration of virtual time into the caller's time,
// rounding up so a timer set to it never fires early.
func (s Speed) Unscale(d time.Duration) time.Duration {
	switch s {
	case Half:
		return d * 2
	case Double:
		return (d + 1) / 2
	}
	return d
}

// Options configure a simulation. The zero value is usable.
type Options struct {
	// Cadence is how often a running controller reconciles, in virtual time.
	// Defaults to 1s.
	Cadence time.Duration
	// StartDelay is how long a created pod or member stays Pending before it
	// runs, in virtual time. Defaults to 1.5s.
	StartDelay time.Duration
	// LogSize is how many log events are kept. Defaults to 40.
	LogSize int
	// Window is how much virtual time the history keeps. Defaults to 60s.
	Window time.Duration
}

func (o Options) withDefaults() Options {
	if o.Cadence <= 0 {
		o.Cadence = time.Second
	}
	if o.StartDelay <= 0 {
		o.StartDelay = 1500 * time.Millisecond
	}
	if o.LogSize <= 0 {
		o.LogSize = 40
	}
	if o.Window <= 0 {
		o.Window = time.Minute
	}
	return o
}

// clock is the virtual clock and pace shared by both simulations.
type clock struct {
	now    time.Duration // virtual time since the simulation began
	paused bool
	speed  Speed
}

// maxClock bounds virtual time (about 31 years): a demo that reached it would
// stop, and every snapshot it writes stays restorable.
const maxClock = time.Duration(maxSnapshotNow) * time.Millisecond

// maxAdvance bounds one Advance: a session that slept longer than a day
// catches up one day, which is more than any session lives unwatched.
const maxAdvance = 24 * time.Hour

// advanceTarget returns the virtual time d of the caller's time leads to.
func (c *clock) advanceTarget(d time.Duration) time.Duration {
	return min(c.now+c.speed.Scale(min(d, maxAdvance)), maxClock)
}

// nextTick returns the first multiple of cadence strictly after now.
func nextTick(now, cadence time.Duration) time.Duration {
	return (now/cadence + 1) * cadence
}

// timeline is what both demos schedule on: the virtual clock, the things
// waiting to start (pods or members) and the controller's cadence ticks.
type timeline struct {
	clock
	cadence time.Duration
	// startAt holds, for everything not started yet and only those, when it
	// starts.
	startAt map[string]time.Duration
	// tickAt is the next cadence tick not yet considered; ticks while the
	// controller is off or would do nothing are skipped.
	tickAt time.Duration
}

func newTimeline(c clock, cadence time.Duration) timeline {
	return timeline{clock: c, cadence: cadence, startAt: map[string]time.Duration{}, tickAt: nextTick(c.now, cadence)}
}

// next returns the next thing that happens by itself: a start (name set)
// or, when ticking, a tick (name empty). At equal times starts come first, in
// name order, so the controller sees what kubelet reported.
func (tl *timeline) next(ticking bool) (at time.Duration, name string, ok bool) {
	for n, t := range tl.startAt {
		if !ok || t < at || (t == at && n < name) {
			at, name, ok = t, n, true
		}
	}
	if ticking {
		if tl.tickAt < tl.now {
			tl.tickAt = nextTick(tl.now, tl.cadence)
		}
		if !ok || tl.tickAt < at {
			return tl.tickAt, "", true
		}
	}
	return at, name, ok
}

// advance lets d of the caller's time pass (scaled by the speed, none while
// paused), calling start and tick as their times come. ticking is asked
// again before each event, since each may change the answer.
func (tl *timeline) advance(d time.Duration, ticking func() bool, start func(name string), tick func()) {
	if tl.paused || d <= 0 {
		return
	}
	target := tl.advanceTarget(d)
	for {
		at, name, ok := tl.next(ticking())
		if !ok || at > target {
			break
		}
		tl.now = at
		if name != "" {
			delete(tl.startAt, name)
			start(name)
		} else {
			tl.tickAt = at + tl.cadence
			tick()
		}
	}
	tl.now = target
	if tl.tickAt <= tl.now {
		// A tick due exactly now was skipped (idle or off): the next one is
		// the next multiple, as a demo restored at this instant would have it.
		tl.tickAt = nextTick(tl.now, tl.cadence)
	}
}

// nextDue returns how much of the caller's time may pass before something
// happens by itself, and false when nothing will.
func (tl *timeline) nextDue(ticking bool) (time.Duration, bool) {
	if tl.paused {
		return 0, false
	}
	at, _, ok := tl.next(ticking)
	if !ok {
		return 0, false
	}
	return tl.speed.Unscale(at - tl.now), true
}
