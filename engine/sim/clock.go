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
