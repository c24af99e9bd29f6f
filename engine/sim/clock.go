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

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
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

// Clock is a demo's virtual clock and pace: the virtual time since the demo
// began, whether it is paused, and how fast it runs against the caller's
// time. Every demo has exactly one.
type Clock struct {
	now    time.Duration
	paused bool
	speed  Speed
}

// NewClock returns a clock at now, paused or not, at speed.
func NewClock(now time.Duration, paused bool, speed Speed) Clock {
	return Clock{now: min(max(now, 0), MaxClock), paused: paused, speed: speed}
}

// MaxClock bounds virtual time (about 31 years): a demo that reached it would
// stop, and every snapshot it writes stays restorable.
const MaxClock = time.Duration(MaxSnapshotNow) * time.Millisecond

// maxAdvance bounds one Advance: a session that slept longer than a day
// catches up one day, which is more than any session lives unwatched.
const maxAdvance = 24 * time.Hour

// Now returns the virtual time since the demo began.
func (c *Clock) Now() time.Duration { return c.now }

// Paused reports whether virtual time is stopped.
func (c *Clock) Paused() bool { return c.paused }

// SetPaused stops or resumes virtual time.
func (c *Clock) SetPaused(p bool) { c.paused = p }

// Speed returns the pace.
func (c *Clock) Speed() Speed { return c.speed }

// SetSpeed sets how fast virtual time runs; anything but Half, Normal and
// Double is ignored.
func (c *Clock) SetSpeed(sp Speed) {
	if sp >= Half && sp <= Double {
		c.speed = sp
	}
}

// Target returns the virtual time that d of the caller's time leads to:
// scaled by the speed, bounded, and now itself while paused or for d ≤ 0.
func (c *Clock) Target(d time.Duration) time.Duration {
	if c.paused || d <= 0 {
		return c.now
	}
	return min(c.now+c.speed.Scale(min(d, maxAdvance)), MaxClock)
}

// Set moves the clock to virtual time t; the clock never moves back.
func (c *Clock) Set(t time.Duration) { c.now = min(max(c.now, t), MaxClock) }

// Wait converts a virtual wait into the caller's time: how long the caller
// may sleep before it comes. It reports false while paused or when ok is
// false (nothing waits).
func (c *Clock) Wait(virtual time.Duration, ok bool) (time.Duration, bool) {
	if c.paused || !ok {
		return 0, false
	}
	return c.speed.Unscale(max(virtual, 0)), true
}

// nextTick returns the first multiple of cadence strictly after now.
func nextTick(now, cadence time.Duration) time.Duration {
	return (now/cadence + 1) * cadence
}

// Timeline is what the loop demos schedule on: the virtual clock, the things
// waiting to start (pods or members) and the controller's cadence ticks.
type Timeline struct {
	Clock
	cadence time.Duration
	// starts holds, for everything not started yet and only those, when it
	// starts; a slice, not a map: a demo waits for a handful at most, and a
	// map's buckets outlive its entries in every idle session.
	starts []waiting
	// tickAt is the next cadence tick not yet considered; ticks while the
	// controller is off or would do nothing are skipped.
	tickAt time.Duration
}

// NewTimeline returns a timeline on clock c whose ticks fall on multiples of
// cadence, with nothing waiting to start.
func NewTimeline(c Clock, cadence time.Duration) Timeline {
	return Timeline{Clock: c, cadence: cadence, tickAt: nextTick(c.now, cadence)}
}

// waiting is something waiting to start: its name and when.
type waiting struct {
	name string
	at   time.Duration
}

// StartAfter schedules name to start d of virtual time from now.
func (tl *Timeline) StartAfter(name string, d time.Duration) {
	tl.Cancel(name)
	tl.starts = append(tl.starts, waiting{name, tl.now + d})
}

// Cancel forgets name's start, if one is scheduled.
func (tl *Timeline) Cancel(name string) {
	for i, st := range tl.starts {
		if st.name == name {
			tl.starts = append(tl.starts[:i], tl.starts[i+1:]...)
			if len(tl.starts) == 0 {
				tl.starts = nil
			}
			return
		}
	}
}

// StartsIn returns how much virtual time is left before name starts, and
// false when name is not waiting to start.
func (tl *Timeline) StartsIn(name string) (time.Duration, bool) {
	for _, st := range tl.starts {
		if st.name == name {
			return st.at - tl.now, true
		}
	}
	return 0, false
}

// next returns the next thing that happens by itself: a start (name set)
// or, when ticking, a tick (name empty). At equal times starts come first, in
// name order, so the controller sees what kubelet reported.
func (tl *Timeline) next(ticking bool) (at time.Duration, name string, ok bool) {
	for _, st := range tl.starts {
		if !ok || st.at < at || (st.at == at && st.name < name) {
			at, name, ok = st.at, st.name, true
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

// Advance lets d of the caller's time pass (scaled by the speed, none while
// paused), calling start and tick as their times come. ticking is asked
// again before each event, since each may change the answer.
func (tl *Timeline) Advance(d time.Duration, ticking func() bool, start func(name string), tick func()) {
	if tl.paused || d <= 0 {
		return
	}
	target := tl.Target(d)
	for {
		at, name, ok := tl.next(ticking())
		if !ok || at > target {
			break
		}
		tl.now = at
		if name != "" {
			tl.Cancel(name)
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

// NextDue returns how much of the caller's time may pass before something
// happens by itself, and false when nothing will.
func (tl *Timeline) NextDue(ticking bool) (time.Duration, bool) {
	if tl.paused {
		return 0, false
	}
	at, _, ok := tl.next(ticking)
	return tl.Wait(at-tl.now, ok)
}
