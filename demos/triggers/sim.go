package triggers

import (
	"errors"
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
)

// Notes the demo adds to both controllers' logs, beside the engine's
// entries (sim's shared kinds, so the shared catalog says them).
const (
	NoteReset    = sim.EventReset    // the visitor went back to the starting state
	NoteRestored = sim.EventRestored // the demo was rebuilt from the page's snapshot
)

// Demo is chapter 000 ③ running over time: the engine's two mirrored
// clusters (edge- and level-triggered) on the demo's virtual clock, with its
// pace (pause, speed) and the notes of a reset or restore.
//
// Invariant: the clock and the engine's own clock read the same time. The
// engine owns time (it bounds one Advance and the whole clock); the clock
// follows it, and adds the pace.
type Demo struct {
	sim.Clock
	w *engine.World
	// reconciles counts the level controller's Reconcile calls for the
	// server's metrics: it never goes down, across resets and restores.
	reconciles int
	// seen is the Seq of the last level log entry counted in reconciles.
	seen int
	// note is the reset or restore shown at the head of both logs; nil when
	// the demo began with New.
	note *sim.Event

	// What the page's fragments read, as keys (keys.go): epoch grows with
	// every new world (a reset), ver with every change of the world (an
	// accepted action, an Advance in which something was due); the frame
	// holds the keys read at ver.
	epoch, ver demo.Version
	fr         frame
}

// newDemo returns a demo of world w on clock c, with the note at the head
// of its logs.
func newDemo(c sim.Clock, w *engine.World, note *sim.Event) *Demo {
	d := &Demo{Clock: c, w: w, note: note}
	d.renewed()
	return d
}

// NewDemo returns the starting state: desired 3 on both sides, both
// converged, the streams healthy, at virtual time 0, running at 1×.
func NewDemo() *Demo { return newDemo(sim.NewClock(0, false, sim.Normal), engine.New(), nil) }

// changed records a change of the world: every fragment's key is read
// again before the next frame.
func (d *Demo) changed() { d.ver.Bump() }

// renewed records a new world, whose counters (log entries, events) start
// again.
func (d *Demo) renewed() {
	d.epoch.Bump()
	d.changed()
}

// Advance lets dt of the caller's time pass: scaled by the speed, and not
// at all while paused. Everything due meanwhile happens, in time order.
// Time alone changes nothing the page shows (its countdowns run on the
// page's clock), so only an Advance in which something is due changes the
// world.
func (d *Demo) Advance(dt time.Duration) {
	if t := d.Target(dt); t > d.w.Now() {
		due, ok := d.w.NextDue()
		happens := ok && due <= t-d.w.Now()
		d.w.Advance(t - d.w.Now())
		if happens {
			d.changed()
			d.count()
		}
	}
	d.Set(d.w.Now())
}

// NextDue returns how much of the caller's time may pass before something
// happens by itself (a pod starts, an event arrives, the controllers come
// back, the level controller resyncs a difference), and false when nothing
// will: paused, or quiet (both sides converged, or the edge side stuck
// with nothing left to hear).
func (d *Demo) NextDue() (time.Duration, bool) { return d.Wait(d.w.NextDue()) }

// ErrRestarting refuses what the controllers cannot do while they are down.
var ErrRestarting = errors.New("the controllers are restarting")

// Step runs both controllers once now, without moving time: the level
// controller one Reconcile, the edge controller its next event in flight
// (nothing when none is: a dropped event is never in flight). While the
// controllers are restarting it does nothing and says so.
func (d *Demo) Step() (engine.StepResult, error) {
	if down, _ := d.w.Restarting(); down {
		return engine.StepResult{}, ErrRestarting
	}
	r := d.w.Step()
	d.changed()
	d.count()
	return r, nil
}

// Kill kills the named pod on each side where it is alive.
func (d *Demo) Kill(name string) error { return d.changes(d.w.Kill(name)) }

// SetDesired declares n pods on both sides; n must be in [0, MaxDesired].
func (d *Demo) SetDesired(n int) error { return d.changes(d.w.SetDesired(n)) }

// SetDrop turns the network blip on or off: every event emitted while it is
// on is dropped, on both streams.
func (d *Demo) SetDrop(on bool) {
	d.w.SetDrop(on)
	d.changed()
}

// DuplicateNext arms both streams to deliver their next event twice.
func (d *Demo) DuplicateNext() {
	d.w.DuplicateNext()
	d.changed()
}

// SwapNext arms both streams to deliver their next two events in the
// opposite order.
func (d *Demo) SwapNext() {
	d.w.SwapNext()
	d.changed()
}

// changes records a change of the world unless err says the engine refused
// it (and changed nothing), and returns err.
func (d *Demo) changes(err error) error {
	if err == nil {
		d.changed()
	}
	return err
}

// Restart restarts both controllers (ErrRestarting while they are down).
func (d *Demo) Restart() error {
	if err := d.w.Restart(); err != nil {
		return fmt.Errorf("%w: %v", ErrRestarting, err)
	}
	d.changed()
	d.count()
	return nil
}

// Reset goes back to the starting state, keeping the pace and the clock
// (to the millisecond: the engine starts a world at a snapshot's time).
func (d *Demo) Reset() {
	now := d.Now().Truncate(time.Millisecond)
	snap := engine.New().Snapshot()
	snap.Now = now.Milliseconds()
	w, err := engine.Restore(snap)
	if err != nil {
		panic("triggers: a new world at a valid time does not restore: " + err.Error()) // a bug, not input
	}
	d.w = w
	d.Clock = sim.NewClock(now, d.Paused(), d.Speed())
	d.seen = 0
	d.note = &sim.Event{Kind: NoteReset, At: now}
	d.renewed()
}

// count adds the level controller's new Reconcile calls to reconciles. It
// runs after every change that may reconcile, so that no entry leaves the
// log uncounted; the side it reads is the one the next frame renders from.
func (d *Demo) count() {
	level, _ := d.side(levelSide)
	for _, e := range level.Log {
		if e.Seq <= d.seen {
			continue
		}
		d.seen = e.Seq
		if e.Trigger != engine.TriggerRestart {
			d.reconciles++
		}
	}
}

// Reconciles returns how many times the level controller has reconciled.
func (d *Demo) Reconciles() int { return d.reconciles }

// Note returns the reset or restore shown at the head of both logs.
func (d *Demo) Note() (sim.Event, bool) {
	if d.note == nil {
		return sim.Event{}, false
	}
	return *d.note, true
}
