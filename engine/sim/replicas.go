package sim

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// MaxDesired is the largest replica count a visitor may declare.
const MaxDesired = 10

// Report is what one reconcile of the reconcile demo saw and did, in the
// chapter's terms: desired N, observed M (alive pods, Failed not counted) →
// these actions.
type Report struct {
	At       time.Duration
	Trigger  string // "tick" (the running controller) or "step" (a single step)
	Desired  int
	Observed int // alive pods before the reconcile
	Failed   int // Failed pods before the reconcile
	Actions  []reconcile.Action
}

// PodView is a pod as the page shows it.
type PodView struct {
	Name  string
	Phase reconcile.Phase
	// StartsIn is the virtual time left before a Pending pod runs; 0 otherwise.
	StartsIn time.Duration
}

// ReplicaDemo is chapter 000's reconcile loop running over time: a
// controller that keeps desired pods, a cluster whose pods start after a
// delay, a switch for the controller and a single-step button.
type ReplicaDemo struct {
	opt        Options
	tl         timeline // startAt holds the Pending pods
	ctrl       *reconcile.Controller
	cluster    *reconcile.Cluster
	on         bool
	last       *Report
	reconciles int
	converged  bool
	log        eventLog
	hist       history[Sample]
}

// NewReplicaDemo returns a demo with an empty cluster, desired pods declared
// and the controller on or off. desired is clamped to [0, MaxDesired].
func NewReplicaDemo(opt Options, desired int, controllerOn bool) *ReplicaDemo {
	s := &ReplicaDemo{opt: opt.withDefaults()}
	s.init(clampDesired(desired), controllerOn, clock{speed: Normal})
	return s
}

func (s *ReplicaDemo) init(desired int, on bool, c clock) {
	s.tl = newTimeline(c, s.opt.Cadence)
	s.ctrl = reconcile.New(desired)
	s.cluster = reconcile.NewCluster()
	s.on = on
	s.last = nil
	s.converged = s.ctrl.Converged(s.cluster)
	s.log = eventLog{size: s.opt.LogSize}
	s.hist = history[Sample]{at: func(x Sample) time.Duration { return x.At }}
	if on {
		s.logEvent(Event{Kind: EventWatchStart})
	}
	s.changed()
}

func clampDesired(n int) int { return max(0, min(n, MaxDesired)) }

// Reset brings the demo back to its first state (3 replicas declared, the
// controller on, an empty cluster), keeping the pace and the clock.
func (s *ReplicaDemo) Reset() {
	s.init(3, true, s.tl.clock)
	s.logEvent(Event{Kind: EventReset})
}

// Advance lets d of the caller's time pass: scaled by the speed, and not at
// all while paused. Pods start and the controller reconciles as their times
// come, in time order; at equal times pods start first, so the controller
// sees what kubelet reported.
func (s *ReplicaDemo) Advance(d time.Duration) {
	s.tl.advance(d, s.ticking, s.start, func() { s.reconcile("tick") })
	s.hist.trim(s.tl.now, s.opt.Window)
}

// NextDue returns how much of the caller's time may pass before something
// changes by itself, and false when nothing will (paused, or nothing pending
// and the controller idle or off).
func (s *ReplicaDemo) NextDue() (time.Duration, bool) { return s.tl.nextDue(s.ticking()) }

// ticking reports whether the next cadence tick would reconcile: the
// controller is on and the cluster differs from what is declared.
func (s *ReplicaDemo) ticking() bool { return s.on && s.wouldAct() }

func (s *ReplicaDemo) wouldAct() bool {
	f, c, d := s.ctrl.Would(s.cluster)
	return f+c+d > 0
}

func (s *ReplicaDemo) start(name string) {
	if s.cluster.Start(name) {
		s.logEvent(Event{Kind: EventRunning, Name: name})
	}
	s.changed()
}

// Step runs exactly one reconcile now, whatever the controller's state and
// the pace, and returns its report.
func (s *ReplicaDemo) Step() Report { return s.reconcile("step") }

func (s *ReplicaDemo) reconcile(trigger string) Report {
	r := Report{At: s.tl.now, Trigger: trigger, Desired: s.ctrl.Desired()}
	for _, p := range s.cluster.Pods() {
		if p.Phase == reconcile.Failed {
			r.Failed++
		} else {
			r.Observed++
		}
	}
	r.Actions = s.ctrl.Reconcile(s.cluster)
	s.reconciles++
	for _, a := range r.Actions {
		switch a.Kind {
		case "create":
			s.tl.startAt[a.Pod] = s.tl.now + s.opt.StartDelay
			s.logEvent(Event{Kind: EventCreate, Name: a.Pod, N: r.Desired, M: r.Observed})
		case "delete":
			delete(s.tl.startAt, a.Pod)
			s.logEvent(Event{Kind: EventDelete, Name: a.Pod, N: r.Desired, M: r.Observed})
		}
	}
	if len(r.Actions) == 0 {
		s.logEvent(Event{Kind: EventNoop, N: r.Desired, M: r.Observed})
	}
	s.last = &r
	s.changed()
	return r
}

// SetDesired declares n replicas. n must be in [0, MaxDesired].
func (s *ReplicaDemo) SetDesired(n int) error {
	if n < 0 || n > MaxDesired {
		return fmt.Errorf("replicas %d out of range [0, %d]", n, MaxDesired)
	}
	if old := s.ctrl.Desired(); old != n {
		s.ctrl.SetDesired(n)
		s.logEvent(Event{Kind: EventDesired, N: n, M: old})
		s.changed()
	}
	return nil
}

// Kill makes the named pod Failed, as a node failure or crash would. The pod
// must exist and not be Failed already.
func (s *ReplicaDemo) Kill(name string) error {
	for _, p := range s.cluster.Pods() {
		if p.Name != name {
			continue
		}
		if p.Phase == reconcile.Failed {
			return fmt.Errorf("pod %s is already Failed", name)
		}
		s.cluster.Fail(name)
		delete(s.tl.startAt, name)
		s.logEvent(Event{Kind: EventKill, Name: name})
		s.changed()
		return nil
	}
	return fmt.Errorf("no pod named %q", name)
}

// SetController switches the controller on or off.
func (s *ReplicaDemo) SetController(on bool) {
	if s.on == on {
		return
	}
	s.on = on
	if on {
		s.logEvent(Event{Kind: EventWatchStart})
	} else {
		s.logEvent(Event{Kind: EventWatchStop})
	}
}

// SetPaused stops or resumes virtual time.
func (s *ReplicaDemo) SetPaused(p bool) { s.tl.paused = p }

// SetSpeed sets how fast virtual time runs.
func (s *ReplicaDemo) SetSpeed(sp Speed) {
	if sp >= Half && sp <= Double {
		s.tl.speed = sp
	}
}

// changed records a history sample and notes convergence after any change
// to desired or observed state.
func (s *ReplicaDemo) changed() {
	c := s.ctrl.Converged(s.cluster)
	if c && !s.converged {
		s.logEvent(Event{Kind: EventConverged, N: s.ctrl.Desired()})
	}
	s.converged = c
	sm := Sample{At: s.tl.now, Desired: s.ctrl.Desired()}
	for _, p := range s.cluster.Pods() {
		switch p.Phase {
		case reconcile.Running:
			sm.Running++
		case reconcile.Pending:
			sm.Pending++
		case reconcile.Failed:
			sm.Failed++
		}
	}
	s.hist.record(sm, func(a, b Sample) bool {
		return a.Desired == b.Desired && a.Running == b.Running && a.Pending == b.Pending && a.Failed == b.Failed
	}, s.tl.now, s.opt.Window)
}

func (s *ReplicaDemo) logEvent(e Event) {
	e.At = s.tl.now
	s.log.add(e)
}

// Now returns the virtual time since the demo began.
func (s *ReplicaDemo) Now() time.Duration { return s.tl.now }

// Desired returns the declared replica count.
func (s *ReplicaDemo) Desired() int { return s.ctrl.Desired() }

// Controller reports whether the controller is on.
func (s *ReplicaDemo) Controller() bool { return s.on }

// Paused reports whether virtual time is stopped.
func (s *ReplicaDemo) Paused() bool { return s.tl.paused }

// Speed returns the pace.
func (s *ReplicaDemo) Speed() Speed { return s.tl.speed }

// Converged reports whether observed matches desired with every pod Running.
func (s *ReplicaDemo) Converged() bool { return s.ctrl.Converged(s.cluster) }

// Diff returns what the next reconcile would do: Failed pods to delete, pods
// to create, excess pods to delete. All zero means 一致.
func (s *ReplicaDemo) Diff() (deleteFailed, create, deleteExcess int) {
	return s.ctrl.Would(s.cluster)
}

// Pods returns the pods sorted by name.
func (s *ReplicaDemo) Pods() []PodView {
	pods := s.cluster.Pods()
	out := make([]PodView, len(pods))
	for i, p := range pods {
		out[i] = PodView{Name: p.Name, Phase: p.Phase}
		if t, ok := s.tl.startAt[p.Name]; ok {
			out[i].StartsIn = t - s.tl.now
		}
	}
	return out
}

// Last returns the last reconcile's report, and false before the first.
func (s *ReplicaDemo) Last() (Report, bool) {
	if s.last == nil {
		return Report{}, false
	}
	return *s.last, true
}

// Reconciles returns how many reconciles have run.
func (s *ReplicaDemo) Reconciles() int { return s.reconciles }

// Events returns the log, oldest first.
func (s *ReplicaDemo) Events() []Event { return s.log.list() }

// History returns the samples of the last window, oldest first.
func (s *ReplicaDemo) History() []Sample { return s.hist.list() }

// Window returns how much virtual time History covers.
func (s *ReplicaDemo) Window() time.Duration { return s.opt.Window }

// LastChange returns when desired or observed state last changed.
func (s *ReplicaDemo) LastChange() time.Duration { return s.hist.last() }

// EventSeq returns the number of the newest log event: it grows with every
// change that is logged, which is every change but pace and pause.
func (s *ReplicaDemo) EventSeq() int { return s.log.seq }
