package controlplane

import (
	"errors"
	"time"

	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Seed is the seed of every session's cluster (the chapter's number). The
// engine draws pod names from it, so every visitor gets the same names: a
// class following its teacher on their own devices sees the same
// web-5846cdcf6d-r5mmv on the same node. It travels in the snapshot.
const Seed = 4

// Quizzes: the preset last set up, whose answer the page shows.
const (
	QuizNone      = ""
	QuizScheduler = cp.PresetSchedulerOutage
	QuizNode      = cp.PresetNodeOutage
)

// Errors of the demo's commands; the page says each in its language.
var (
	// errGuideOver: the guide's eleven messages are sent.
	errGuideOver = errors.New("the guided apply is over")
	// errNoBack: nothing to undo (the guide's start, or the cluster is live).
	errNoBack = errors.New("nothing to undo")
	// errNothingDue: nothing will happen by itself.
	errNothingDue = errors.New("nothing is due")
)

// Demo is chapter 004's cluster on a virtual clock: the guided apply (one
// message per press), then the live cluster, whose time runs at the
// visitor's pace.
//
// Invariant: clk.Now() == base + c.Elapsed(), and it never goes back. The
// engine owns the passing of time (its messages and timers are due at exact
// virtual instants); the clock only adds the pace — paused or not, and the
// speed — and is rebuilt after every change (sync). The demo's time is the
// engine's plus base: Back, Reset and a runtime switch during the guide
// replace the cluster with one replayed from its seed, whose time is
// earlier, and sync absorbs the difference into base, so that the page's
// clock, the times it draws and the timeline (which logs every action at
// the demo's time) only ever move forward. Every time the page shows is
// the demo's: the reading adds base to the engine's (facts.go).
//
// A new demo has no cluster of its own: it reads start, the starting state
// every demo shares, until a command would change it; then it makes its
// own, the same starting state anew. So an open tab that nobody touches
// holds no cluster at all.
type Demo struct {
	clk sim.Clock
	c   *cp.Cluster // the demo's own cluster; nil while it is still start
	// base is the demo's time at the cluster's time 0: a whole number of
	// milliseconds that only grows (see sync).
	base time.Duration
	quiz string // QuizNone, QuizScheduler or QuizNode: the preset last set up
	// reconciles counts the messages sent (each makes a component run),
	// for metrics; it never goes down, not even on Reset.
	reconciles int
	lastSeq    int // the newest message Seq counted in reconciles
	// seen is what the page's fragments read of the cluster (facts.go),
	// read again after every change.
	seen reading
}

// NewDemo returns the guide's starting state: an empty cluster, the
// chapter's kubectl apply unsent, time stopped until the guide is over.
func NewDemo() *Demo {
	d := &Demo{clk: sim.NewClock(0, false, sim.Normal)}
	d.sync()
	return d
}

// start is the guide's starting state, built once and never changed
// afterwards: any number of demos read it at once (every view of the
// engine is a read).
var start = cp.New(Seed)

// cl returns the cluster to read: the demo's own, or start.
func (d *Demo) cl() *cp.Cluster {
	if d.c == nil {
		return start
	}
	return d.c
}

// own returns the demo's own cluster, made before the first change.
func (d *Demo) own() *cp.Cluster {
	if d.c == nil {
		d.c = cp.New(Seed)
	}
	return d.c
}

// sync rebuilds the clock at the demo's time, keeping the pace, and counts
// the messages sent since the last sync.
func (d *Demo) sync() {
	d.seen.fresh = false // the fragments read the cluster again
	// The demo's clock is base and all the time given to the cluster, the
	// rest under a millisecond included: the framework sees it, and carries
	// out an action on a whole millisecond, where a replay meets it. A
	// cluster replayed from its seed starts earlier: base takes the
	// difference, rounded up to a whole millisecond (the snapshot counts
	// them), so the clock stands still or moves on by less than one.
	now := d.base + d.cl().Elapsed()
	if prev := d.clk.Now(); now < prev {
		d.base = (prev - d.cl().Elapsed() + time.Millisecond - 1).Truncate(time.Millisecond)
		now = d.base + d.cl().Elapsed()
	}
	d.clk = sim.NewClock(now, d.clk.Paused(), d.clk.Speed())
	seq := d.newestSeq()
	if seq > d.lastSeq {
		d.reconciles += seq - d.lastSeq
	}
	d.lastSeq = seq
}

// newestSeq returns the Seq of the newest message sent (delivered or in
// flight); it starts again from 0 when the guide is replayed.
func (d *Demo) newestSeq() int {
	seq := 0
	for _, m := range d.cl().Messages() {
		seq = max(seq, m.Seq)
	}
	for _, m := range d.cl().InFlight() {
		seq = max(seq, m.Seq)
	}
	return seq
}

// Live reports whether the guide is over: every message sent, time runs.
func (d *Demo) Live() bool { g := d.cl().Guide(); return g.Step == g.Total }

// Advance lets dt of the caller's time pass: scaled by the speed, none
// while paused, and none during the guide (its messages move only with
// Next).
func (d *Demo) Advance(dt time.Duration) {
	if !d.Live() {
		return
	}
	t := d.clk.Target(dt)
	d.own().Advance(t - d.clk.Now())
	d.sync()
}

// NextDue returns how much of the caller's time may pass before something
// happens by itself, and false when nothing will: during the guide, while
// paused, and on a quiet cluster — routine heartbeats are not events, so a
// converged cluster sets no timer at all.
func (d *Demo) NextDue() (time.Duration, bool) {
	if !d.Live() {
		return 0, false
	}
	return d.clk.Wait(d.cl().NextDue())
}

// SetPaused stops or resumes virtual time.
func (d *Demo) SetPaused(p bool) { d.clk.SetPaused(p) }

// SetSpeed sets the pace.
func (d *Demo) SetSpeed(sp sim.Speed) { d.clk.SetSpeed(sp) }

// Now returns the demo's virtual time: base and the engine's.
func (d *Demo) Now() time.Duration { return d.clk.Now() }

// Base returns the demo's time at the engine's time 0.
func (d *Demo) Base() time.Duration { return d.base }

// Paused reports whether virtual time is stopped by the visitor.
func (d *Demo) Paused() bool { return d.clk.Paused() }

// Speed returns the pace.
func (d *Demo) Speed() sim.Speed { return d.clk.Speed() }

// Next sends the guide's next message.
func (d *Demo) Next() (cp.Message, error) {
	if d.Live() {
		return cp.Message{}, errGuideOver
	}
	m, err := d.own().Next()
	d.sync()
	return m, err
}

// Back undoes the guide's last message. The eleventh message makes the
// cluster live, so Back works from the first to the tenth.
func (d *Demo) Back() error {
	if g := d.cl().Guide(); !g.CanBack || g.Step >= g.Total {
		return errNoBack
	}
	err := d.own().Back()
	d.sync()
	return err
}

// FinishGuide sends the guide's remaining messages at once.
func (d *Demo) FinishGuide() error {
	if d.Live() {
		return errGuideOver
	}
	d.own().FinishGuide()
	d.sync()
	return nil
}

// Step processes one thing now, whatever the pace: during the guide its
// next message, then the next message to arrive or timer to fire.
func (d *Demo) Step() error {
	if !d.Live() {
		_, err := d.Next()
		return err
	}
	if _, ok := d.own().Step(); !ok {
		return errNothingDue
	}
	d.sync()
	return nil
}

// Skip jumps to the next moment something happens by itself (never a
// routine heartbeat) and processes everything due then.
func (d *Demo) Skip() error {
	if !d.Live() {
		return cp.ErrGuide
	}
	if _, ok := d.own().SkipToNext(); !ok {
		return errNothingDue
	}
	d.sync()
	return nil
}

// SetReplicas applies the Deployment with n replicas.
func (d *Demo) SetReplicas(n int) error { return d.do(func() error { return d.own().SetReplicas(n) }) }

// KillPod deletes a pod with kubectl.
func (d *Demo) KillPod(name string) error { return d.do(func() error { return d.own().KillPod(name) }) }

// SetComponent starts or stops the scheduler or the controller-manager.
func (d *Demo) SetComponent(name string, on bool) error {
	return d.do(func() error { return d.own().SetComponent(name, on) })
}

// SetNode starts or stops a node's kubelet (and its heartbeats).
func (d *Demo) SetNode(name string, on bool) error {
	return d.do(func() error { return d.own().SetNode(name, on) })
}

// SetRuntime chooses the path of the kubelet's CRI calls (also during the
// guide, whose arrows are redrawn).
func (d *Demo) SetRuntime(r cp.Runtime) error {
	return d.do(func() error { return d.own().SetRuntime(r) })
}

// Preset sets up one of the quiz's situations from the live cluster,
// finishing the guide first if need be.
func (d *Demo) Preset(name string) error {
	var err error
	switch name {
	case QuizScheduler:
		err = d.own().PresetSchedulerOutage()
	case QuizNode:
		_, err = d.own().PresetNodeOutage()
	default:
		return errors.New("no such preset")
	}
	if err == nil {
		d.quiz = name
	}
	d.sync()
	return err
}

// do runs a command of the engine and syncs the clock; an engine command
// that fails has changed nothing.
func (d *Demo) do(f func() error) error {
	if err := f(); err != nil {
		return err
	}
	d.sync()
	return nil
}

// Reset brings the demo back to the guide's start, with the same seed and
// runtime stack, keeping the pace; the engine's time goes back to 0, the
// demo's stands where it was.
func (d *Demo) Reset() {
	d.own().Reset()
	d.quiz = QuizNone
	d.sync()
}

// Cluster returns the engine, for reading only: while the demo is still
// start, it is the one every demo shares.
func (d *Demo) Cluster() *cp.Cluster { return d.cl() }

// Quiz returns the preset last set up.
func (d *Demo) Quiz() string { return d.quiz }

// Reconciles returns how many messages have been sent: each one makes a
// component run once, as a reconcile.
func (d *Demo) Reconciles() int { return d.reconciles }
