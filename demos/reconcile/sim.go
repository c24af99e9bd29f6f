package reconcile

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// MaxDesired is the largest replica count a visitor may declare.
const MaxDesired = 10

// Event kinds of this demo, beside sim's shared ones.
const (
	EventDesired   = "desired"   // desired changed from M to N
	EventKill      = "kill"      // Name was killed (Failed)
	EventCreate    = "create"    // the controller created Name (desired N, alive M)
	EventDelete    = "delete"    // the controller deleted Name
	EventRunning   = "running"   // kubelet started Name
	EventConverged = "converged" // desired N pods all Running
	EventNoop      = "noop"      // a step found no difference (desired N, observed M)
)

// Report is what one reconcile saw and did, in the chapter's terms: desired
// N, observed M (alive pods, Failed not counted) → these actions.
type Report struct {
	At       time.Duration
	Trigger  string // "tick" (the running controller) or "step" (a single step)
	Desired  int
	Observed int // alive pods before the reconcile
	Failed   int // Failed pods before the reconcile
	Actions  []chapter.Action
}

// PodView is a pod as the page shows it.
type PodView struct {
	Name  string
	Phase chapter.Phase
	// StartsIn is the virtual time left before a Pending pod runs; 0 otherwise.
	StartsIn time.Duration
}

// Sample is the demo's state at one moment: what was declared and what was
// observed. The history holds one per change.
type Sample struct {
	At                       time.Duration
	Desired                  int
	Running, Pending, Failed int
}

// Demo is chapter 000's reconcile loop running over time: a controller that
// keeps desired pods, a cluster whose pods start after a delay, a switch
// for the controller and a single-step button.
type Demo struct {
	opt        sim.Options
	sim.Loop   // timeline (startAt holds the Pending pods), controller switch, log
	ctrl       *chapter.Controller
	cluster    *chapter.Cluster
	last       *Report
	reconciles int
	converged  bool
	hist       sim.History[Sample]
	// marks are the notable events the timeline marks (marks.go): kept
	// across a reset, and in the snapshot.
	marks sim.Log

	// What the page's fragments read, as keys: epoch grows with every
	// fresh start of the state (a reset), ver with every change of desired
	// or observed state, lastV with every reconcile report.
	epoch, ver, lastV demo.Version
}

// NewDemo returns a demo with an empty cluster, desired pods declared and
// the controller on or off. desired is clamped to [0, MaxDesired].
func NewDemo(opt sim.Options, desired int, controllerOn bool) *Demo {
	d := &Demo{opt: opt.WithDefaults(), marks: sim.NewLog(maxMarks)}
	d.init(clampDesired(desired), controllerOn, sim.NewClock(0, false, sim.Normal))
	return d
}

func (d *Demo) init(desired int, on bool, c sim.Clock) {
	d.epoch.Bump()
	d.Loop = sim.NewLoop(c, d.opt, on)
	d.ctrl = chapter.New(desired)
	d.cluster = chapter.NewCluster()
	d.last = nil
	d.converged = d.ctrl.Converged(d.cluster)
	d.hist = sim.NewHistory(func(x Sample) time.Duration { return x.At }, func(a, b Sample) bool {
		return a.Desired == b.Desired && a.Running == b.Running && a.Pending == b.Pending && a.Failed == b.Failed
	})
	d.changed()
}

func clampDesired(n int) int { return max(0, min(n, MaxDesired)) }

// Reset brings the demo back to its first state (3 replicas declared, the
// controller on, an empty cluster), keeping the pace and the clock.
func (d *Demo) Reset() {
	d.init(3, true, d.Clock)
	d.Note(sim.Event{Kind: sim.EventReset})
}

// Advance lets dt of the caller's time pass: scaled by the speed, and not at
// all while paused. Pods start and the controller reconciles as their times
// come, in time order; at equal times pods start first, so the controller
// sees what kubelet reported.
func (d *Demo) Advance(dt time.Duration) {
	d.Timeline.Advance(dt, d.ticking, d.start, func() { d.reconcile("tick") })
	d.hist.Trim(d.Now(), d.opt.Window)
}

// NextDue returns how much of the caller's time may pass before something
// changes by itself, and false when nothing will (paused, or nothing pending
// and the controller idle or off).
func (d *Demo) NextDue() (time.Duration, bool) { return d.Timeline.NextDue(d.ticking()) }

// ticking reports whether the next cadence tick would reconcile: the
// controller is on and the cluster differs from what is declared.
func (d *Demo) ticking() bool { return d.Controller() && d.wouldAct() }

func (d *Demo) wouldAct() bool {
	f, c, x := d.ctrl.Would(d.cluster)
	return f+c+x > 0
}

func (d *Demo) start(name string) {
	if d.cluster.Start(name) {
		d.Note(sim.Event{Kind: EventRunning, Name: name})
	}
	d.changed()
}

// Step runs exactly one reconcile now, whatever the controller's state and
// the pace, and returns its report.
func (d *Demo) Step() Report { return d.reconcile("step") }

func (d *Demo) reconcile(trigger string) Report {
	r := Report{At: d.Now(), Trigger: trigger, Desired: d.ctrl.Desired()}
	for _, p := range d.cluster.Pods() {
		if p.Phase == chapter.Failed {
			r.Failed++
		} else {
			r.Observed++
		}
	}
	r.Actions = d.ctrl.Reconcile(d.cluster)
	d.reconciles++
	creates := 0
	for _, a := range r.Actions {
		switch a.Kind {
		case "create":
			creates++
			d.StartAfter(a.Pod, d.opt.StartDelay)
			d.Note(sim.Event{Kind: EventCreate, Name: a.Pod, N: r.Desired, M: r.Observed})
		case "delete":
			d.Cancel(a.Pod)
			d.Note(sim.Event{Kind: EventDelete, Name: a.Pod, N: r.Desired, M: r.Observed})
		}
	}
	if len(r.Actions) == 0 {
		d.Note(sim.Event{Kind: EventNoop, N: r.Desired, M: r.Observed})
	}
	// The Failed pods were not counted alive, so the creates make them
	// again (self-healing); creates beyond them follow a higher desired.
	if n := min(r.Failed, creates); n > 0 {
		d.mark(sim.Event{Kind: MarkReplaced, N: n})
	}
	d.last = &r
	d.lastV.Bump()
	d.changed()
	return r
}

// SetDesired declares n replicas. n must be in [0, MaxDesired].
func (d *Demo) SetDesired(n int) error {
	if n < 0 || n > MaxDesired {
		return fmt.Errorf("replicas %d out of range [0, %d]", n, MaxDesired)
	}
	if old := d.ctrl.Desired(); old != n {
		d.ctrl.SetDesired(n)
		d.Note(sim.Event{Kind: EventDesired, N: n, M: old})
		d.changed()
	}
	return nil
}

// Kill makes the named pod Failed, as a node failure or crash would. The pod
// must exist and not be Failed already.
func (d *Demo) Kill(name string) error {
	for _, p := range d.cluster.Pods() {
		if p.Name != name {
			continue
		}
		if p.Phase == chapter.Failed {
			return fmt.Errorf("pod %s is already Failed", name)
		}
		d.cluster.Fail(name)
		d.Cancel(name)
		d.Note(sim.Event{Kind: EventKill, Name: name})
		d.changed()
		return nil
	}
	return fmt.Errorf("no pod named %q", name)
}

// changed records a history sample and notes convergence after any change
// to desired or observed state.
func (d *Demo) changed() {
	d.ver.Bump()
	c := d.ctrl.Converged(d.cluster)
	if c && !d.converged {
		e := sim.Event{Kind: EventConverged, N: d.ctrl.Desired()}
		d.Note(e)
		d.mark(e)
	}
	d.converged = c
	s := Sample{At: d.Now(), Desired: d.ctrl.Desired()}
	for _, p := range d.cluster.Pods() {
		switch p.Phase {
		case chapter.Running:
			s.Running++
		case chapter.Pending:
			s.Pending++
		case chapter.Failed:
			s.Failed++
		}
	}
	d.hist.Record(s, d.Now(), d.opt.Window)
}

// Desired returns the declared replica count.
func (d *Demo) Desired() int { return d.ctrl.Desired() }

// Converged reports whether observed matches desired with every pod Running.
func (d *Demo) Converged() bool { return d.ctrl.Converged(d.cluster) }

// Diff returns what the next reconcile would do: Failed pods to delete, pods
// to create, excess pods to delete. All zero means 一致.
func (d *Demo) Diff() (deleteFailed, create, deleteExcess int) { return d.ctrl.Would(d.cluster) }

// Pods returns the pods sorted by name.
func (d *Demo) Pods() []PodView {
	pods := d.cluster.Pods()
	out := make([]PodView, len(pods))
	for i, p := range pods {
		out[i] = PodView{Name: p.Name, Phase: p.Phase}
		if t, ok := d.StartsIn(p.Name); ok {
			out[i].StartsIn = t
		}
	}
	return out
}

// Last returns the last reconcile's report, and false before the first.
func (d *Demo) Last() (Report, bool) {
	if d.last == nil {
		return Report{}, false
	}
	return *d.last, true
}

// Reconciles returns how many reconciles have run.
func (d *Demo) Reconciles() int { return d.reconciles }

// Events returns the log, oldest first.
func (d *Demo) Events() []sim.Event { return d.Log.List() }

// History returns the samples of the last window, oldest first.
func (d *Demo) History() []Sample { return d.hist.List() }

// Window returns how much virtual time History covers.
func (d *Demo) Window() time.Duration { return d.opt.Window }
