package operator

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// The demo's fixed declaration, as chapter 002 writes it.
const (
	ResourceName = "db"
	BackupName   = "backup-07-28"
	StartMembers = 3
	// MinMembers is the smallest member count a visitor may declare: the
	// chapter's Reconcile elects ready[0], which needs at least one member.
	MinMembers = 1
	// MaxMembers is the largest member count a visitor may declare.
	MaxMembers = chapter.MaxMembers
	// maxChapterLog bounds the chapter's Operator.Log, which grows by one
	// line per move.
	maxChapterLog = 40
)

// Event kinds of this demo, beside sim's shared ones.
const (
	EventSpecMembers  = "spec-members"   // Spec.Members changed from M to N
	EventBackup       = "backup"         // backup Name became present (N=1) or missing (N=0)
	EventKillMember   = "kill-member"    // member Name was killed
	EventMemberReady  = "member-ready"   // member Name became ready
	EventOpRestore    = "op-restore"     // restored from Name
	EventOpCreate     = "op-create"      // created member Name
	EventOpElect      = "op-elect"       // elected Name
	EventOpLeaderLost = "op-leader-lost" // leader Name was gone
	EventOpNoBackup   = "op-no-backup"   // backup Name not found: Degraded
	EventOpWait       = "op-wait"        // waiting for N/M members to be ready
	EventOpNoop       = "op-noop"        // no difference left
	EventOpReady      = "op-ready"       // phase became Ready
)

// Report is what one reconcile did: the plan it followed (which difference
// it filled) and the chapter's Action.
type Report struct {
	At      time.Duration
	Trigger string // "tick" or "step"
	// Plan is the difference the reconcile filled, as chapter.Plan names it:
	// restore, create, wait, elect, degraded or noop.
	Plan   chapter.Action
	Action chapter.Action
	Phase  chapter.Phase // Status.Phase after the reconcile
}

// MemberView is a member as the page shows it.
type MemberView struct {
	Name     string
	Ready    bool
	Leader   bool
	StartsIn time.Duration // virtual time left before it is ready; 0 once ready
}

// PhaseSample is Status.Phase from At on.
type PhaseSample struct {
	At    time.Duration
	Phase string
}

// Demo is chapter 002's Operator running over time: a Spec written by the
// visitor, a Status written back by the controller one move per reconcile,
// members that start after a delay, and conditions beside the chapter's
// Status.
type Demo struct {
	opt        sim.Options
	sim.Loop   // timeline (startAt holds the members not ready yet), switch, log
	res        chapter.Resource
	world      *chapter.World
	op         *chapter.Operator
	conds      []chapter.Condition
	last       *Report
	reconciles int
	hist       sim.History[PhaseSample]
	// marks are the notable events the timeline marks (marks.go): kept
	// across a reset, and in the snapshot.
	marks sim.Log

	// What the page's fragments read, as keys: epoch grows with every
	// fresh start of the state (a reset), ver with every change of the
	// Status, the members or the conditions, lastV with every reconcile.
	epoch, ver, lastV demo.Version
}

// NewDemo returns the chapter's starting point: {db, 3 members,
// backup-07-28} declared, the backup present, no members, the controller on
// or off.
func NewDemo(opt sim.Options, controllerOn bool) *Demo {
	d := &Demo{opt: opt.WithDefaults(), marks: sim.NewLog(maxMarks)}
	d.init(StartMembers, true, controllerOn, sim.NewClock(0, false, sim.Normal))
	return d
}

func (d *Demo) init(members int, backup, on bool, c sim.Clock) {
	d.epoch.Bump()
	d.Loop = sim.NewLoop(c, d.opt, on)
	d.res = chapter.Resource{Spec: chapter.Spec{Name: ResourceName, Members: members, RestoreFrom: BackupName}}
	d.world = chapter.NewWorld()
	d.world.SetBackup(BackupName, backup)
	d.op = chapter.New()
	d.conds = chapter.InitialConditions(c.Now())
	d.last = nil
	d.hist = sim.NewHistory(func(x PhaseSample) time.Duration { return x.At },
		func(a, b PhaseSample) bool { return a.Phase == b.Phase })
	d.changed()
}

// Reset recreates the resource from its Spec: the Status, the members and
// the log start again; the Spec, the backup switch, the controller switch
// and the pace stay.
func (d *Demo) Reset() {
	d.init(d.res.Spec.Members, d.world.HasBackup(BackupName), d.Controller(), d.Clock)
	d.Note(sim.Event{Kind: sim.EventReset})
}

// Advance lets dt of the caller's time pass, as the reconcile demo's
// Advance does: one move per cadence tick while the controller is on and a
// move would change something; members become ready StartDelay after their
// creation.
func (d *Demo) Advance(dt time.Duration) {
	d.Timeline.Advance(dt, d.ticking, d.start, func() { d.reconcile("tick") })
	d.hist.Trim(d.Now(), d.opt.Window)
}

// NextDue returns how much of the caller's time may pass before something
// changes by itself, and false when nothing will.
func (d *Demo) NextDue() (time.Duration, bool) { return d.Timeline.NextDue(d.ticking()) }

func (d *Demo) ticking() bool { return d.Controller() && d.wouldChange() }

func (d *Demo) start(member string) {
	if d.world.Start(member) {
		d.Note(sim.Event{Kind: EventMemberReady, Name: member})
	}
	d.changed()
}

// wouldChange reports whether the next Reconcile would make a move or write
// a different Status. A running controller skips the ticks where it would
// not, so a Ready or Degraded resource costs nothing.
func (d *Demo) wouldChange() bool {
	st := d.res.Status
	ready := 0
	for _, m := range d.world.Members() {
		if m.Ready {
			ready++
		}
	}
	switch chapter.Plan(&d.res, d.world).Kind {
	case "degraded":
		return st.Phase != chapter.Degraded
	case "wait":
		return st.Phase != chapter.Creating || st.Members != ready
	case "noop":
		return st.Phase != chapter.Ready || st.Members != ready
	}
	return true
}

// Step runs exactly one Reconcile now, whatever the controller's state and
// the pace, and returns its report.
func (d *Demo) Step() Report { return d.reconcile("step") }

func (d *Demo) reconcile(trigger string) Report {
	plan := chapter.Plan(&d.res, d.world)
	before := d.res.Status
	act := d.op.Reconcile(&d.res, d.world)
	if n := len(d.op.Log); n > maxChapterLog {
		d.op.Log = append(d.op.Log[:0], d.op.Log[n-maxChapterLog:]...)
	}
	d.reconciles++
	r := Report{At: d.Now(), Trigger: trigger, Plan: plan, Action: act, Phase: d.res.Status.Phase}
	switch act.Kind {
	case "restore":
		d.Note(sim.Event{Kind: EventOpRestore, Name: act.Target})
	case "create":
		d.StartAfter(act.Target, d.opt.StartDelay)
		d.Note(sim.Event{Kind: EventOpCreate, Name: act.Target, N: len(d.world.Members()), M: d.res.Spec.Members})
	case "elect":
		if before.Leader != "" {
			e := sim.Event{Kind: EventOpLeaderLost, Name: before.Leader}
			d.Note(e)
			d.mark(e)
		}
		d.Note(sim.Event{Kind: EventOpElect, Name: act.Target})
	default:
		switch plan.Kind {
		case "degraded":
			e := sim.Event{Kind: EventOpNoBackup, Name: plan.Target}
			d.Note(e)
			if before.Phase != chapter.Degraded {
				d.mark(e) // a step while Degraded finds it again: no news
			}
		case "wait":
			d.Note(sim.Event{Kind: EventOpWait, N: d.res.Status.Members, M: d.res.Spec.Members})
		default:
			if before.Phase != chapter.Ready {
				d.Note(sim.Event{Kind: EventOpReady, N: d.res.Spec.Members})
				d.mark(sim.Event{Kind: EventOpReady})
			} else {
				d.Note(sim.Event{Kind: EventOpNoop})
			}
		}
	}
	d.conds = chapter.UpdateConditions(d.conds, &d.res, d.Now())
	d.last = &r
	d.lastV.Bump()
	d.changed()
	return r
}

// SetMembers declares n members, n in [MinMembers, MaxMembers]. It changes
// the Spec only: the Status follows when the controller reconciles.
func (d *Demo) SetMembers(n int) error {
	if n < MinMembers || n > MaxMembers {
		return fmt.Errorf("members %d out of range [%d, %d]", n, MinMembers, MaxMembers)
	}
	if old := d.res.Spec.Members; old != n {
		d.res.Spec.Members = n
		d.Note(sim.Event{Kind: EventSpecMembers, N: n, M: old})
	}
	return nil
}

// SetBackup makes the declared backup present or missing.
func (d *Demo) SetBackup(present bool) {
	if d.world.HasBackup(BackupName) == present {
		return
	}
	d.world.SetBackup(BackupName, present)
	n := 0
	if present {
		n = 1
	}
	d.Note(sim.Event{Kind: EventBackup, Name: BackupName, N: n})
}

// Kill removes the named member, ready or not, leader or not.
func (d *Demo) Kill(name string) error {
	for _, m := range d.world.Members() {
		if m.Name == name {
			d.world.Kill(name)
			d.Cancel(name)
			d.ver.Bump()
			d.Note(sim.Event{Kind: EventKillMember, Name: name})
			return nil
		}
	}
	return fmt.Errorf("no member named %q", name)
}

func (d *Demo) changed() {
	d.ver.Bump()
	d.hist.Record(PhaseSample{At: d.Now(), Phase: d.res.Status.Phase.String()}, d.Now(), d.opt.Window)
}

// Resource returns a copy of the resource: Spec and Status.
func (d *Demo) Resource() chapter.Resource { return d.res }

// Backup reports whether the declared backup is present.
func (d *Demo) Backup() bool { return d.world.HasBackup(BackupName) }

// Members returns the members sorted by name, the leader marked.
func (d *Demo) Members() []MemberView {
	ms := d.world.Members()
	out := make([]MemberView, len(ms))
	for i, m := range ms {
		out[i] = MemberView{Name: m.Name, Ready: m.Ready, Leader: m.Name == d.res.Status.Leader}
		if t, ok := d.StartsIn(m.Name); ok {
			out[i].StartsIn = t
		}
	}
	return out
}

// Next returns the difference the next reconcile will fill (chapter.Plan).
func (d *Demo) Next() chapter.Action { return chapter.Plan(&d.res, d.world) }

// Conditions returns the conditions written beside the Status.
func (d *Demo) Conditions() []chapter.Condition { return append([]chapter.Condition(nil), d.conds...) }

// Last returns the last reconcile's report, and false before the first.
func (d *Demo) Last() (Report, bool) {
	if d.last == nil {
		return Report{}, false
	}
	return *d.last, true
}

// Reconciles returns how many reconciles have run.
func (d *Demo) Reconciles() int { return d.reconciles }

// ChapterLog returns the chapter's Operator.Log (its newest lines).
func (d *Demo) ChapterLog() []string { return append([]string(nil), d.op.Log...) }

// Events returns the log, oldest first.
func (d *Demo) Events() []sim.Event { return d.Log.List() }

// History returns the phase changes of the last window, oldest first.
func (d *Demo) History() []PhaseSample { return d.hist.List() }

// Window returns how much virtual time History covers.
func (d *Demo) Window() time.Duration { return d.opt.Window }
