package pipeline

import (
	"time"

	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Demo is chapters 001 and 003's pipeline running over time: the engine
// (API server → informer → workqueue → workers) and the page's clock and
// pace. The engine keeps virtual time itself; the demo's clock follows it
// exactly, so that the page's clock, its countdowns and the engine agree.
//
// A new demo has no engine of its own: it shows start, the starting state
// every demo shares, until something would change it (time passing, a
// visitor's action); then it makes its own, the same starting state anew.
// So an open tab that nobody touches costs its server no world at all.
//
// Invariant: d.clk.Now() == d.World().Now() after every call.
type Demo struct {
	clk sim.Clock
	w   *engine.World // the demo's own engine; nil while it is still start

	// versions are what the page's keys read beside the engine's own
	// numbers (parts.go).
	versions
	// marks is what the timeline's event marks have read of the engine's
	// log (marks.go).
	marks markLog
	// shown is what the writes lane and the live region read of the log.
	shown shown
}

// start is the starting state, built once and never changed afterwards:
// any number of sessions read it at once (every engine view is a read).
var start = engine.New()

// NewDemo returns the starting state: default/app-1 created and reconciled
// to Ready, the controller on with predicate, status written on change, the
// dependency present and one worker. The clock shows the time that took.
func NewDemo() *Demo {
	return &Demo{clk: sim.NewClock(start.Now(), false, sim.Normal)}
}

// World returns the engine, for reading its views only: while the demo is
// still the starting state, it is the one every demo shares.
func (d *Demo) World() *engine.World {
	if d.w == nil {
		return start
	}
	return d.w
}

// own returns the demo's own engine, made before the first change.
func (d *Demo) own() *engine.World {
	if d.w == nil {
		d.w = engine.New()
	}
	return d.w
}

// Now returns the virtual time.
func (d *Demo) Now() time.Duration { return d.clk.Now() }

// Paused reports whether virtual time is stopped.
func (d *Demo) Paused() bool { return d.clk.Paused() }

// SetPaused stops or resumes virtual time.
func (d *Demo) SetPaused(p bool) { d.clk.SetPaused(p) }

// Speed returns the pace.
func (d *Demo) Speed() sim.Speed { return d.clk.Speed() }

// SetSpeed sets how fast virtual time runs.
func (d *Demo) SetSpeed(sp sim.Speed) { d.clk.SetSpeed(sp) }

// Advance lets dt of the caller's time pass: scaled by the speed, none while
// paused. The engine catches up at most engine.MaxAdvance at once (a tab
// that slept a day loses the rest), and the clock follows it.
func (d *Demo) Advance(dt time.Duration) {
	t := d.clk.Target(dt)
	if step := t - d.clk.Now(); step > 0 {
		d.own().Advance(min(step, engine.MaxAdvance))
	}
	d.follow()
}

// NextDue returns how much of the caller's time may pass before something
// happens by itself, and false when nothing will: paused, the controller
// off, or a quiet world whose only due thing is the informer's periodic
// resync ten hours away. A quiet demo sets no timer at all; if a visitor
// comes back after ten hours, the Advance before their next action runs the
// resync in its place.
func (d *Demo) NextDue() (time.Duration, bool) {
	w := d.World()
	if w.Quiet() {
		return 0, false
	}
	return d.clk.Wait(w.NextDue())
}

// Step runs the controller until one reconcile finishes, whatever the pace:
// a worker takes the next ready key (with none ready, the informer resyncs
// first, as its periodic resync does). The clock moves with the engine,
// about 400 ms for a plain reconcile.
func (d *Demo) Step() (engine.StepResult, error) {
	res, err := d.own().Step()
	d.follow()
	return res, err
}

// Reset brings the demo back to its starting state; the clock goes on, and
// the pace stays.
func (d *Demo) Reset() {
	d.epoch.Bump()
	d.own().Reset()
	d.follow()
}

// follow brings the clock to the engine's time (which never moves back).
func (d *Demo) follow() { d.clk.Set(d.World().Now()) }

// Reconciles returns how many reconciles have finished.
func (d *Demo) Reconciles() int {
	return int(min(d.World().Metrics().Reconciles(), int64(^uint(0)>>1)))
}
