package sim

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/operator"
)

// The operator demo's fixed declaration, as chapter 002 writes it.
const (
	OperatorName    = "db"
	OperatorBackup  = "backup-07-28"
	OperatorMembers = 3
	// MinMembers is the smallest member count a visitor may declare: the
	// chapter's Reconcile elects ready[0], which needs at least one member.
	MinMembers = 1
	// MaxMembers is the largest member count a visitor may declare.
	MaxMembers = operator.MaxMembers
	// maxOperatorLog bounds the chapter's Operator.Log, which grows by one
	// line per move.
	maxOperatorLog = 40
)

// OpReport is what one reconcile of the operator demo did: the plan it
// followed (which difference it filled) and the chapter's Action.
type OpReport struct {
	At      time.Duration
	Trigger string // "tick" or "step"
	// Plan is the difference the reconcile filled, as operator.Plan names it:
	// restore, create, wait, elect, degraded or noop.
	Plan   operator.Action
	Action operator.Action
	Phase  operator.Phase // Status.Phase after the reconcile
}

// MemberView is a member as the page shows it.
type MemberView struct {
	Name     string
	Ready    bool
	Leader   bool
	StartsIn time.Duration // virtual time left before it is ready; 0 once ready
}

// OperatorDemo is chapter 002's Operator running over time: a Spec written by
// the visitor, a Status written back by the controller one move per
// reconcile, members that start after a delay, and conditions beside the
// chapter's Status.
type OperatorDemo struct {
	opt        Options
	tl         timeline // startAt holds the members not ready yet
	res        operator.Resource
	world      *operator.World
	op         *operator.Operator
	on         bool
	conds      []operator.Condition
	last       *OpReport
	reconciles int
	log        eventLog
	hist       history[PhaseSample]
}

// NewOperatorDemo returns the chapter's starting point: {db, 3 members,
// backup-07-28} declared, the backup present, no members, the controller on
// or off.
func NewOperatorDemo(opt Options, controllerOn bool) *OperatorDemo {
	s := &OperatorDemo{opt: opt.withDefaults()}
	s.init(OperatorMembers, true, controllerOn, clock{speed: Normal})
	return s
}

func (s *OperatorDemo) init(members int, backup, on bool, c clock) {
	s.tl = newTimeline(c, s.opt.Cadence)
	s.res = operator.Resource{Spec: operator.Spec{Name: OperatorName, Members: members, RestoreFrom: OperatorBackup}}
	s.world = operator.NewWorld()
	s.world.SetBackup(OperatorBackup, backup)
	s.op = operator.New()
	s.on = on
	s.conds = operator.InitialConditions(c.now)
	s.last = nil
	s.log = eventLog{size: s.opt.LogSize}
	s.hist = history[PhaseSample]{at: func(x PhaseSample) time.Duration { return x.At }}
	if on {
		s.logEvent(Event{Kind: EventWatchStart})
	}
	s.changed()
}

// Reset recreates the resource from its Spec: the Status, the members and
// the log start again; the Spec, the backup switch, the controller switch
// and the pace stay.
func (s *OperatorDemo) Reset() {
	s.init(s.res.Spec.Members, s.world.HasBackup(OperatorBackup), s.on, s.tl.clock)
	s.logEvent(Event{Kind: EventReset})
}

// Advance lets d of the caller's time pass, as ReplicaDemo.Advance does: one
// move per cadence tick while the controller is on and a move would change
// something; members become ready StartDelay after their creation.
func (s *OperatorDemo) Advance(d time.Duration) {
	s.tl.advance(d, s.ticking, s.start, func() { s.reconcile("tick") })
	s.hist.trim(s.tl.now, s.opt.Window)
}

// NextDue is ReplicaDemo.NextDue for the operator demo.
func (s *OperatorDemo) NextDue() (time.Duration, bool) { return s.tl.nextDue(s.ticking()) }

func (s *OperatorDemo) ticking() bool { return s.on && s.wouldChange() }

func (s *OperatorDemo) start(member string) {
	if s.world.Start(member) {
		s.logEvent(Event{Kind: EventMemberReady, Name: member})
	}
	s.changed()
}

// wouldChange reports whether the next Reconcile would make a move or write
// a different Status. A running controller skips the ticks where it would
// not, so a Ready or Degraded resource costs nothing.
func (s *OperatorDemo) wouldChange() bool {
	st := s.res.Status
	ready := 0
	for _, m := range s.world.Members() {
		if m.Ready {
			ready++
		}
	}
	switch operator.Plan(&s.res, s.world).Kind {
	case "degraded":
		return st.Phase != operator.Degraded
	case "wait":
		return st.Phase != operator.Creating || st.Members != ready
	case "noop":
		return st.Phase != operator.Ready || st.Members != ready
	}
	return true
}

// Step runs exactly one Reconcile now, whatever the controller's state and
// the pace, and returns its report.
func (s *OperatorDemo) Step() OpReport { return s.reconcile("step") }

func (s *OperatorDemo) reconcile(trigger string) OpReport {
	plan := operator.Plan(&s.res, s.world)
	before := s.res.Status
	act := s.op.Reconcile(&s.res, s.world)
	if n := len(s.op.Log); n > maxOperatorLog {
		s.op.Log = append(s.op.Log[:0], s.op.Log[n-maxOperatorLog:]...)
	}
	s.reconciles++
	r := OpReport{At: s.tl.now, Trigger: trigger, Plan: plan, Action: act, Phase: s.res.Status.Phase}
	switch act.Kind {
	case "restore":
		s.logEvent(Event{Kind: EventOpRestore, Name: act.Target})
	case "create":
		s.tl.startAt[act.Target] = s.tl.now + s.opt.StartDelay
		s.logEvent(Event{Kind: EventOpCreate, Name: act.Target, N: len(s.world.Members()), M: s.res.Spec.Members})
	case "elect":
		if before.Leader != "" {
			s.logEvent(Event{Kind: EventOpLeaderLost, Name: before.Leader})
		}
		s.logEvent(Event{Kind: EventOpElect, Name: act.Target})
	default:
		switch plan.Kind {
		case "degraded":
			s.logEvent(Event{Kind: EventOpNoBackup, Name: plan.Target})
		case "wait":
			s.logEvent(Event{Kind: EventOpWait, N: s.res.Status.Members, M: s.res.Spec.Members})
		default:
			if before.Phase != operator.Ready {
				s.logEvent(Event{Kind: EventOpReady, N: s.res.Spec.Members})
			} else {
				s.logEvent(Event{Kind: EventOpNoop})
			}
		}
	}
	s.conds = operator.UpdateConditions(s.conds, &s.res, s.tl.now)
	s.last = &r
	s.changed()
	return r
}

// SetMembers declares n members, n in [MinMembers, MaxMembers]. It changes
// the Spec only: the Status follows when the controller reconciles.
func (s *OperatorDemo) SetMembers(n int) error {
	if n < MinMembers || n > MaxMembers {
		return fmt.Errorf("members %d out of range [%d, %d]", n, MinMembers, MaxMembers)
	}
	if old := s.res.Spec.Members; old != n {
		s.res.Spec.Members = n
		s.logEvent(Event{Kind: EventSpecMembers, N: n, M: old})
	}
	return nil
}

// SetBackup makes the declared backup present or missing.
func (s *OperatorDemo) SetBackup(present bool) {
	if s.world.HasBackup(OperatorBackup) == present {
		return
	}
	s.world.SetBackup(OperatorBackup, present)
	n := 0
	if present {
		n = 1
	}
	s.logEvent(Event{Kind: EventBackup, Name: OperatorBackup, N: n})
}

// Kill removes the named member, ready or not, leader or not.
func (s *OperatorDemo) Kill(name string) error {
	for _, m := range s.world.Members() {
		if m.Name == name {
			s.world.Kill(name)
			delete(s.tl.startAt, name)
			s.logEvent(Event{Kind: EventKillMember, Name: name})
			return nil
		}
	}
	return fmt.Errorf("no member named %q", name)
}

// SetController switches the controller on or off.
func (s *OperatorDemo) SetController(on bool) {
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
func (s *OperatorDemo) SetPaused(p bool) { s.tl.paused = p }

// SetSpeed sets how fast virtual time runs.
func (s *OperatorDemo) SetSpeed(sp Speed) {
	if sp >= Half && sp <= Double {
		s.tl.speed = sp
	}
}

func (s *OperatorDemo) changed() {
	s.hist.record(PhaseSample{At: s.tl.now, Phase: s.res.Status.Phase.String()},
		func(a, b PhaseSample) bool { return a.Phase == b.Phase }, s.tl.now, s.opt.Window)
}

func (s *OperatorDemo) logEvent(e Event) {
	e.At = s.tl.now
	s.log.add(e)
}

// Now returns the virtual time since the demo began.
func (s *OperatorDemo) Now() time.Duration { return s.tl.now }

// Resource returns a copy of the resource: Spec and Status.
func (s *OperatorDemo) Resource() operator.Resource { return s.res }

// Backup reports whether the declared backup is present.
func (s *OperatorDemo) Backup() bool { return s.world.HasBackup(OperatorBackup) }

// Controller reports whether the controller is on.
func (s *OperatorDemo) Controller() bool { return s.on }

// Paused reports whether virtual time is stopped.
func (s *OperatorDemo) Paused() bool { return s.tl.paused }

// Speed returns the pace.
func (s *OperatorDemo) Speed() Speed { return s.tl.speed }

// Members returns the members sorted by name, the leader marked.
func (s *OperatorDemo) Members() []MemberView {
	ms := s.world.Members()
	out := make([]MemberView, len(ms))
	for i, m := range ms {
		out[i] = MemberView{Name: m.Name, Ready: m.Ready, Leader: m.Name == s.res.Status.Leader}
		if t, ok := s.tl.startAt[m.Name]; ok {
			out[i].StartsIn = t - s.tl.now
		}
	}
	return out
}

// Next returns the difference the next reconcile will fill (operator.Plan).
func (s *OperatorDemo) Next() operator.Action { return operator.Plan(&s.res, s.world) }

// Conditions returns the conditions written beside the Status.
func (s *OperatorDemo) Conditions() []operator.Condition {
	return append([]operator.Condition(nil), s.conds...)
}

// Last returns the last reconcile's report, and false before the first.
func (s *OperatorDemo) Last() (OpReport, bool) {
	if s.last == nil {
		return OpReport{}, false
	}
	return *s.last, true
}

// Reconciles returns how many reconciles have run.
func (s *OperatorDemo) Reconciles() int { return s.reconciles }

// ChapterLog returns the chapter's Operator.Log (its newest lines).
func (s *OperatorDemo) ChapterLog() []string { return append([]string(nil), s.op.Log...) }

// Events returns the log, oldest first.
func (s *OperatorDemo) Events() []Event { return s.log.list() }

// History returns the phase changes of the last window, oldest first.
func (s *OperatorDemo) History() []PhaseSample { return s.hist.list() }

// Window returns how much virtual time History covers.
func (s *OperatorDemo) Window() time.Duration { return s.opt.Window }

// LastChange returns when Status.Phase last changed.
func (s *OperatorDemo) LastChange() time.Duration { return s.hist.last() }

// EventSeq returns the number of the newest log event, as ReplicaDemo's.
func (s *OperatorDemo) EventSeq() int { return s.log.seq }
