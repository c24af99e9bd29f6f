package operator

import (
	"errors"
	"fmt"
	"time"

	chapter "github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Snapshot is the demo as the page keeps it. Times are virtual
// milliseconds.
type Snapshot struct {
	sim.Envelope
	Members    int              `json:"members"` // Spec.Members
	Backup     bool             `json:"backup"`
	Controller bool             `json:"controller"`
	Status     StatusState      `json:"status"`
	Seq        int              `json:"seq"`
	World      []MemberState    `json:"world"`
	Conditions []ConditionState `json:"conditions"`
	// Marks are the timeline's notable events, oldest first (marks.go):
	// the log is not kept, they are.
	Marks []MarkState `json:"marks,omitempty"`
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
func (d *Demo) Snapshot() Snapshot {
	st := d.res.Status
	snap := Snapshot{Envelope: d.Envelope(Name), Members: d.res.Spec.Members, Backup: d.Backup(),
		Controller: d.Controller(),
		Status:     StatusState{Phase: st.Phase.String(), Members: st.Members, Leader: st.Leader, Restored: st.Restored},
		Seq:        d.world.Seq(), Marks: d.markStates()}
	for _, m := range d.Members() {
		snap.World = append(snap.World, MemberState{Name: m.Name, Ready: m.Ready, StartsIn: m.StartsIn.Milliseconds()})
	}
	for _, c := range d.conds {
		snap.Conditions = append(snap.Conditions, ConditionState{Type: c.Type, Status: string(c.Status),
			Reason: c.Reason, Since: c.LastTransitionTime.Milliseconds()})
	}
	return snap
}

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound. It returns an error, and no demo, for any snapshot this package
// could not have written.
func RestoreDemo(opt sim.Options, snap Snapshot) (*Demo, error) {
	opt = opt.WithDefaults()
	clock, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	if snap.Members < MinMembers || snap.Members > MaxMembers {
		return nil, fmt.Errorf("snapshot members %d out of range [%d, %d]", snap.Members, MinMembers, MaxMembers)
	}
	phase, err := parsePhase(snap.Status.Phase)
	if err != nil {
		return nil, err
	}
	if snap.Status.Members < 0 || snap.Status.Members > 4*MaxMembers {
		return nil, fmt.Errorf("snapshot status members %d out of range", snap.Status.Members)
	}
	members := make([]chapter.Member, len(snap.World))
	startsIn := map[string]time.Duration{}
	for i, m := range snap.World {
		members[i] = chapter.Member{Name: m.Name, Ready: m.Ready}
		in := time.Duration(m.StartsIn) * time.Millisecond
		switch {
		case !m.Ready:
			if in < 0 || in > opt.StartDelay {
				return nil, fmt.Errorf("snapshot member %q starts in %dms, out of range", m.Name, m.StartsIn)
			}
			startsIn[m.Name] = in
		case in != 0:
			return nil, fmt.Errorf("snapshot member %q is ready but has a start time", m.Name)
		}
	}
	var backups []string
	if snap.Backup {
		backups = []string{BackupName}
	}
	w, err := chapter.RestoreWorld(ResourceName, members, snap.Seq, backups)
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
	marks, err := restoreMarks(snap.Marks, snap.Now)
	if err != nil {
		return nil, err
	}
	d := &Demo{opt: opt, marks: marks}
	d.init(snap.Members, snap.Backup, snap.Controller, clock)
	d.Log = sim.NewLog(opt.LogSize)
	d.world = w
	for name, in := range startsIn {
		d.StartAfter(name, in)
	}
	d.res.Status = chapter.Status{Phase: phase, Members: snap.Status.Members, Leader: snap.Status.Leader, Restored: snap.Status.Restored}
	d.conds = conds
	d.hist.Reset()
	d.changed()
	d.Note(sim.Event{Kind: sim.EventRestored})
	return d, nil
}

func validMemberName(name string, seq int) bool {
	_, err := chapter.RestoreWorld(ResourceName, []chapter.Member{{Name: name}}, seq, nil)
	return err == nil
}

func parsePhase(s string) (chapter.Phase, error) {
	for p := chapter.Pending; p <= chapter.Degraded; p++ {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("snapshot: unknown phase %q", s)
}

func restoreConditions(cs []ConditionState, now int64) ([]chapter.Condition, error) {
	want := []string{chapter.TypeReady, chapter.TypeProgressing, chapter.TypeDegraded}
	if len(cs) != len(want) {
		return nil, errors.New("snapshot: conditions must be Ready, Progressing, Degraded")
	}
	out := make([]chapter.Condition, len(cs))
	for i, c := range cs {
		if c.Type != want[i] {
			return nil, fmt.Errorf("snapshot: condition %d is %q, want %q", i, c.Type, want[i])
		}
		st := chapter.ConditionStatus(c.Status)
		if st != chapter.ConditionTrue && st != chapter.ConditionFalse && st != chapter.ConditionUnknown {
			return nil, fmt.Errorf("snapshot: condition %s has status %q", c.Type, c.Status)
		}
		if len(c.Reason) == 0 || len(c.Reason) > 32 || !isWord(c.Reason) {
			return nil, fmt.Errorf("snapshot: condition %s has a bad reason", c.Type)
		}
		if c.Since < 0 || c.Since > now {
			return nil, fmt.Errorf("snapshot: condition %s changed at %d, after %d", c.Type, c.Since, now)
		}
		out[i] = chapter.Condition{Type: c.Type, Status: st, Reason: c.Reason,
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
