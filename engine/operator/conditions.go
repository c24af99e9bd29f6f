package operator

import "time"

// ConditionStatus is the status of a condition, as metav1.ConditionStatus.
type ConditionStatus string

// The three values of a condition's status.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// The condition types the operator writes beside the chapter's Status.
const (
	TypeReady       = "Ready"
	TypeProgressing = "Progressing"
	TypeDegraded    = "Degraded"
)

// Condition follows metav1.Condition: Type names the aspect, Status says
// whether it holds, Reason is a CamelCase word a program can match on,
// Message is for people, and LastTransitionTime is when Status last changed
// (virtual time since the demo began), not when the condition was last
// written.
type Condition struct {
	Type               string
	Status             ConditionStatus
	Reason             string
	Message            string
	LastTransitionTime time.Duration
}

// InitialConditions returns the conditions of a resource no reconcile has
// seen yet: every type Unknown, as a controller that has not looked yet
// cannot say.
func InitialConditions(now time.Duration) []Condition {
	var out []Condition
	for _, t := range []string{TypeReady, TypeProgressing, TypeDegraded} {
		out = append(out, Condition{Type: t, Status: ConditionUnknown, Reason: "NotReconciled",
			Message: "no reconcile has observed the resource yet", LastTransitionTime: now})
	}
	return out
}

// UpdateConditions returns conds with each type set from r's Status as a
// reconcile just left it. As meta.SetStatusCondition does, a condition keeps
// its LastTransitionTime unless its Status changes; reason and message are
// always refreshed. conds is not modified.
func UpdateConditions(conds []Condition, r *Resource, now time.Duration) []Condition {
	ready, progressing, degraded := deriveConditions(r)
	out := make([]Condition, 0, 3)
	for _, c := range []Condition{ready, progressing, degraded} {
		c.LastTransitionTime = now
		for _, old := range conds {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		out = append(out, c)
	}
	return out
}

func deriveConditions(r *Resource) (ready, progressing, degraded Condition) {
	ready = Condition{Type: TypeReady, Status: ConditionFalse}
	progressing = Condition{Type: TypeProgressing, Status: ConditionFalse}
	degraded = Condition{Type: TypeDegraded, Status: ConditionFalse, Reason: "AsDeclared",
		Message: "nothing blocks the reconcile"}
	switch r.Status.Phase {
	case Ready:
		ready.Reason, ready.Message = "AllMembersReady", "every declared member is ready and a leader is elected"
		ready.Status = ConditionTrue
		progressing.Reason, progressing.Message = "ReconcileComplete", "no difference is left to fill"
	case Degraded:
		ready.Reason, ready.Message = "BackupNotFound", "backup "+r.Spec.RestoreFrom+" was not found"
		progressing.Reason, progressing.Message = "BackupNotFound", "the reconcile stopped before creating members"
		degraded.Status = ConditionTrue
		degraded.Reason, degraded.Message = "BackupNotFound", "backup "+r.Spec.RestoreFrom+" was not found; no member was created"
	case Restoring:
		ready.Reason, ready.Message = "Restoring", "restored from "+r.Spec.RestoreFrom
		progressing.Status = ConditionTrue
		progressing.Reason, progressing.Message = "Restored", "restored from "+r.Spec.RestoreFrom
	case Creating:
		ready.Reason, ready.Message = "MembersNotReady", itoa(r.Status.Members)+"/"+itoa(r.Spec.Members)+" members ready"
		progressing.Status = ConditionTrue
		progressing.Reason, progressing.Message = "Creating", itoa(r.Status.Members)+"/"+itoa(r.Spec.Members)+" members ready"
		if r.Status.Leader != "" {
			progressing.Reason, progressing.Message = "LeaderElected", r.Status.Leader+" is the leader"
		}
	default: // Pending: never reconciled
		return InitialConditions(0)[0], InitialConditions(0)[1], InitialConditions(0)[2]
	}
	return ready, progressing, degraded
}
