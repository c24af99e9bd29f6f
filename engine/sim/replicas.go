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
	opt     Options
	clock   clock
	ctrl    *reconcile.Controller
	cluster *reconcile.Cluster
	on      bool
	// startAt holds, for every Pending pod and only those, when it runs.
	startAt map[string]time.Duration
	// tickAt is the next cadence tick not yet considered; ticks while the
	// controller is off or would do nothing are skipped.
	tickAt     time.Duration
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
	s.clock = c
	s.ctrl = reconcile.New(desired)
	s.cluster = reconcile.NewCluster()
	s.startAt = map[string]time.Duration{}
	s.on = on
	s.tickAt = nextTick(c.now, s.opt.Cadence)
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
	s.init(3, true, s.clock)
	s.logEvent(Event{Kind: EventReset})
}

// Advance lets d of the caller's time pass: scaled by the speed, and not at
// all while paused. Pods start and the controller reconciles as their times
// come, in time order; at equal times pods start first, so the controller
// sees what kubelet reported.
func (s *ReplicaDemo) Advance(d time.Duration) {
	if s.clock.paused || d <= 0 {
		return
	}
	target := s.clock.advanceTarget(d)
	for {
		at, pod, ok := s.nextEvent()
		if !ok || at > target {
			break
		}
		s.clock.now = at
		if pod != "" {
			s.start(pod)
		} else {
			s.tickAt = at + s.opt.Cadence
			s.reconcile("tick")
		}
	}
	s.clock.now = target
	if s.tickAt <= s.clock.now {
		// A tick due exactly now was skipped (idle or off): the next one is
		// the next multiple, as a demo restored at this instant would have it.
		s.tickAt = nextTick(s.clock.now, s.opt.Cadence)
	}
	s.hist.trim(s.clock.now, s.opt.Window)
}

// NextDue returns how much of the caller's time may pass before something
// changes by itself, and false when nothing will (paused, or nothing pending
// and the controller idle or off).
func (s *ReplicaDemo) NextDue() (time.Duration, bool) {
	if s.clock.paused {
		return 0, false
	}
	at, _, ok := s.nextEvent()
	if !ok {
		return 0, false
	}
	return s.clock.speed.Unscale(at - s.clock.now), true
}

// nextEvent returns the next thing that happens by itself: a pod start (pod
// set) or a reconcile tick (pod empty).
func (s *ReplicaDemo) nextEvent() (at time.Duration, pod string, ok bool) {
	for name, t := range s.startAt {
		if !ok || t < at || (t == at && name < pod) {
			at, pod, ok = t, name, true
		}
	}
	if s.on && s.wouldAct() {
		if s.tickAt < s.clock.now {
			s.tickAt = nextTick(s.clock.now, s.opt.Cadence)
		}
		if !ok || s.tickAt < at {
			return s.tickAt, "", true
		}
	}
	return at, pod, ok
}

func (s *ReplicaDemo) wouldAct() bool {
	f, c, d := s.ctrl.Would(s.cluster)
	return f+c+d > 0
}

func (s *ReplicaDemo) start(name string) {
	delete(s.startAt, name)
	if s.cluster.Start(name) {
		s.logEvent(Event{Kind: EventRunning, Name: name})
	}
	s.changed()
}

// Step runs exactly one reconcile now, whatever the controller's state and
// the pace, and returns its report.
func (s *ReplicaDemo) Step() Report { return s.reconcile("step") }

func (s *ReplicaDemo) reconcile(trigger string) Report {
	r := Report{At: s.clock.now, Trigger: trigger, Desired: s.ctrl.Desired()}
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
			s.startAt[a.Pod] = s.clock.now + s.opt.StartDelay
			s.logEvent(Event{Kind: EventCreate, Name: a.Pod, N: r.Desired, M: r.Observed})
		case "delete":
			delete(s.startAt, a.Pod)
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
		delete(s.startAt, name)
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
func (s *ReplicaDemo) SetPaused(p bool) { s.clock.paused = p }

// SetSpeed sets how fast virtual time runs.
func (s *ReplicaDemo) SetSpeed(sp Speed) {
	if sp >= Half && sp <= Double {
		s.clock.speed = sp
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
	sm := Sample{At: s.clock.now, Desired: s.ctrl.Desired()}
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
	}, s.clock.now, s.opt.Window)
}

func (s *ReplicaDemo) logEvent(e Event) {
	e.At = s.clock.now
	s.log.add(e)
}

// Now returns the virtual time since the demo began.
func (s *ReplicaDemo) Now() time.Duration { return s.clock.now }

// Desired returns the declared replica count.
func (s *ReplicaDemo) Desired() int { return s.ctrl.Desired() }

// Controller reports whether the controller is on.
func (s *ReplicaDemo) Controller() bool { return s.on }

// Paused reports whether virtual time is stopped.
func (s *ReplicaDemo) Paused() bool { return s.clock.paused }

// Speed returns the pace.
func (s *ReplicaDemo) Speed() Speed { return s.clock.speed }

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
		if t, ok := s.startAt[p.Name]; ok {
			out[i].StartsIn = t - s.clock.now
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
