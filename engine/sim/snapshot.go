package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// SnapshotVersion is the version of the snapshots this package writes and
// reads. A snapshot of another version is refused.
const SnapshotVersion = 1

// maxSnapshotNow bounds a snapshot's virtual clock in milliseconds: about 31
// years, which the clock never passes (maxClock), far less than overflows a
// time.Duration.
const maxSnapshotNow = int64(1e12)

// ReplicaSnapshot is the reconcile demo as the page keeps it: what was
// declared and what was observed. Times are virtual milliseconds.
type ReplicaSnapshot struct {
	V          int        `json:"v"`
	Now        int64      `json:"now"`
	Desired    int        `json:"desired"`
	Controller bool       `json:"controller"`
	Paused     bool       `json:"paused"`
	Speed      string     `json:"speed"`
	Seq        int        `json:"seq"`
	Pods       []PodState `json:"pods"`
}

// PodState is one pod in a snapshot. StartsIn is set for Pending pods only.
type PodState struct {
	Name     string `json:"name"`
	Phase    string `json:"phase"`
	StartsIn int64  `json:"startsIn,omitempty"`
}

// Snapshot returns the demo's snapshot.
func (s *ReplicaDemo) Snapshot() ReplicaSnapshot {
	snap := ReplicaSnapshot{V: SnapshotVersion, Now: s.tl.now.Milliseconds(), Desired: s.ctrl.Desired(),
		Controller: s.on, Paused: s.tl.paused, Speed: s.tl.speed.String(), Seq: s.cluster.Seq()}
	for _, p := range s.Pods() {
		snap.Pods = append(snap.Pods, PodState{Name: p.Name, Phase: p.Phase.String(), StartsIn: p.StartsIn.Milliseconds()})
	}
	return snap
}

// RestoreReplicaDemo rebuilds a demo from a snapshot after checking every
// field and bound. It returns an error, and no demo, for any snapshot this
// package could not have written.
func RestoreReplicaDemo(opt Options, snap ReplicaSnapshot) (*ReplicaDemo, error) {
	opt = opt.withDefaults()
	if snap.V != SnapshotVersion {
		return nil, fmt.Errorf("snapshot version %d, want %d", snap.V, SnapshotVersion)
	}
	if snap.Now < 0 || snap.Now > maxSnapshotNow {
		return nil, fmt.Errorf("snapshot time %d out of range", snap.Now)
	}
	if snap.Desired < 0 || snap.Desired > MaxDesired {
		return nil, fmt.Errorf("snapshot desired %d out of range [0, %d]", snap.Desired, MaxDesired)
	}
	speed, err := ParseSpeed(snap.Speed)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if len(snap.Pods) > reconcile.MaxPods {
		return nil, fmt.Errorf("snapshot has %d pods, at most %d", len(snap.Pods), reconcile.MaxPods)
	}
	now := time.Duration(snap.Now) * time.Millisecond
	pods := make([]reconcile.Pod, len(snap.Pods))
	startAt := map[string]time.Duration{}
	for i, p := range snap.Pods {
		phase, err := parsePodPhase(p.Phase)
		if err != nil {
			return nil, err
		}
		pods[i] = reconcile.Pod{Name: p.Name, Phase: phase}
		switch {
		case phase == reconcile.Pending:
			d := time.Duration(p.StartsIn) * time.Millisecond
			if d < 0 || d > opt.StartDelay {
				return nil, fmt.Errorf("snapshot pod %q starts in %dms, out of range", p.Name, p.StartsIn)
			}
			startAt[p.Name] = now + d
		case p.StartsIn != 0:
			return nil, fmt.Errorf("snapshot pod %q is %s but has a start time", p.Name, p.Phase)
		}
	}
	cl, err := reconcile.Restore(pods, snap.Seq)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	s := &ReplicaDemo{opt: opt}
	s.init(snap.Desired, snap.Controller, clock{now: now, paused: snap.Paused, speed: speed})
	s.log = eventLog{size: opt.LogSize}
	s.cluster = cl
	s.tl.startAt = startAt
	s.converged = s.ctrl.Converged(cl)
	s.hist = history[Sample]{at: s.hist.at}
	s.changed()
	s.logEvent(Event{Kind: EventRestored})
	return s, nil
}

func parsePodPhase(s string) (reconcile.Phase, error) {
	for _, p := range []reconcile.Phase{reconcile.Pending, reconcile.Running, reconcile.Failed} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("snapshot: unknown pod phase %q", s)
}

// OperatorSnapshot is the operator demo as the page keeps it. Times are
// virtual milliseconds.
type OperatorSnapshot struct {
	V          int              `json:"v"`
	Now        int64            `json:"now"`
	Members    int              `json:"members"` // Spec.Members
	Backup     bool             `json:"backup"`
	Controller bool             `json:"controller"`
	Paused     bool             `json:"paused"`
	Speed      string           `json:"speed"`
	Status     StatusState      `json:"status"`
	Seq        int              `json:"seq"`
	World      []MemberState    `json:"world"`
	Conditions []ConditionState `json:"conditions"`
}

// StatusState is the chapter's Status in a snapshot.
type StatusState struct {
	Phase    string `json:"phase"`
	Members  int    `json:"members"`
	Leader   string `json:"leader"`
	Restored bool   `json:"restored"`
}

// MemberState is one member in a snapshot. StartsIn is set for members not
// ready yet.
type MemberState struct {
	Name     string `json:"name"`
	Ready    bool   `json:"ready"`
	StartsIn int64  `json:"startsIn,omitempty"`
}

// ConditionState is one condition in a snapshot; its message is derived
// again on the next reconcile.
type ConditionState struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	Since  int64  `json:"since"`
}

// Snapshot returns the demo's snapshot.
func (s *OperatorDemo) Snapshot() OperatorSnapshot {
	st := s.res.Status
	snap := OperatorSnapshot{V: SnapshotVersion, Now: s.tl.now.Milliseconds(), Members: s.res.Spec.Members,
		Backup: s.Backup(), Controller: s.on, Paused: s.tl.paused, Speed: s.tl.speed.String(),
		Status: StatusState{Phase: st.Phase.String(), Members: st.Members, Leader: st.Leader, Restored: st.Restored},
		Seq:    s.world.Seq()}
	for _, m := range s.Members() {
		snap.World = append(snap.World, MemberState{Name: m.Name, Ready: m.Ready, StartsIn: m.StartsIn.Milliseconds()})
	}
	for _, c := range s.conds {
		snap.Conditions = append(snap.Conditions, ConditionState{Type: c.Type, Status: string(c.Status),
			Reason: c.Reason, Since: c.LastTransitionTime.Milliseconds()})
	}
	return snap
}

// RestoreOperatorDemo rebuilds a demo from a snapshot after checking every
// field and bound, as RestoreReplicaDemo does.
func RestoreOperatorDemo(opt Options, snap OperatorSnapshot) (*OperatorDemo, error) {
	opt = opt.withDefaults()
	if snap.V != SnapshotVersion {
		return nil, fmt.Errorf("snapshot version %d, want %d", snap.V, SnapshotVersion)
	}
	if snap.Now < 0 || snap.Now > maxSnapshotNow {
		return nil, fmt.Errorf("snapshot time %d out of range", snap.Now)
	}
	if snap.Members < MinMembers || snap.Members > MaxMembers {
		return nil, fmt.Errorf("snapshot members %d out of range [%d, %d]", snap.Members, MinMembers, MaxMembers)
	}
	speed, err := ParseSpeed(snap.Speed)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	phase, err := parseOpPhase(snap.Status.Phase)
	if err != nil {
		return nil, err
	}
	if snap.Status.Members < 0 || snap.Status.Members > 4*MaxMembers {
		return nil, fmt.Errorf("snapshot status members %d out of range", snap.Status.Members)
	}
	now := time.Duration(snap.Now) * time.Millisecond
	members := make([]operator.Member, len(snap.World))
	startAt := map[string]time.Duration{}
	for i, m := range snap.World {
		members[i] = operator.Member{Name: m.Name, Ready: m.Ready}
		d := time.Duration(m.StartsIn) * time.Millisecond
		switch {
		case !m.Ready:
			if d < 0 || d > opt.StartDelay {
				return nil, fmt.Errorf("snapshot member %q starts in %dms, out of range", m.Name, m.StartsIn)
			}
			startAt[m.Name] = now + d
		case d != 0:
			return nil, fmt.Errorf("snapshot member %q is ready but has a start time", m.Name)
		}
	}
	var backups []string
	if snap.Backup {
		backups = []string{OperatorBackup}
	}
	w, err := operator.RestoreWorld(OperatorName, members, snap.Seq, backups)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if l := snap.Status.Leader; l != "" && !validMemberName(l, snap.Seq) {
		return nil, fmt.Errorf("snapshot leader %q is not a member name", l)
	}
	conds, err := restoreConditions(snap.Conditions, snap.Now)
	if err != nil {
		return nil, err
	}
	s := &OperatorDemo{opt: opt}
	s.init(snap.Members, snap.Backup, snap.Controller, clock{now: now, paused: snap.Paused, speed: speed})
	s.log = eventLog{size: opt.LogSize}
	s.world = w
	s.tl.startAt = startAt
	s.res.Status = operator.Status{Phase: phase, Members: snap.Status.Members, Leader: snap.Status.Leader, Restored: snap.Status.Restored}
	s.conds = conds
	s.hist = history[PhaseSample]{at: s.hist.at}
	s.changed()
	s.logEvent(Event{Kind: EventRestored})
	return s, nil
}

func validMemberName(name string, seq int) bool {
	_, err := operator.RestoreWorld(OperatorName, []operator.Member{{Name: name}}, seq, nil)
	return err == nil
}

func parseOpPhase(s string) (operator.Phase, error) {
	for p := operator.Pending; p <= operator.Degraded; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("snapshot: unknown phase %q", s)
}

func restoreConditions(cs []ConditionState, now int64) ([]operator.Condition, error) {
	want := []string{operator.TypeReady, operator.TypeProgressing, operator.TypeDegraded}
	if len(cs) != len(want) {
		return nil, errors.New("snapshot: conditions must be Ready, Progressing, Degraded")
	}
	out := make([]operator.Condition, len(cs))
	for i, c := range cs {
		if c.Type != want[i] {
			return nil, fmt.Errorf("snapshot: condition %d is %q, want %q", i, c.Type, want[i])
		}
		st := operator.ConditionStatus(c.Status)
		if st != operator.ConditionTrue && st != operator.ConditionFalse && st != operator.ConditionUnknown {
			return nil, fmt.Errorf("snapshot: condition %s has status %q", c.Type, c.Status)
		}
		if len(c.Reason) == 0 || len(c.Reason) > 32 || !isWord(c.Reason) {
			return nil, fmt.Errorf("snapshot: condition %s has a bad reason", c.Type)
		}
		if c.Since < 0 || c.Since > now {
			return nil, fmt.Errorf("snapshot: condition %s changed at %d, after %d", c.Type, c.Since, now)
		}
		out[i] = operator.Condition{Type: c.Type, Status: st, Reason: c.Reason,
			LastTransitionTime: time.Duration(c.Since) * time.Millisecond}
	}
	return out, nil
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
