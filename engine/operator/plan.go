package operator

// Plan reports, without changing r or w, which difference the next Reconcile
// would fill: the Action it would return, with Kind "wait" when it would
// return noop because members are still starting and "degraded" when it would
// return noop because the backup is missing. It follows Reconcile's order
// exactly: restore, then members, then readiness, then leader.
func Plan(r *Resource, w *World) Action {
	if r.Spec.RestoreFrom != "" && !r.Status.Restored {
		if !w.backups[r.Spec.RestoreFrom] {
			return Action{Kind: "degraded", Target: r.Spec.RestoreFrom}
		}
		return Action{Kind: "restore", Target: r.Spec.RestoreFrom}
	}
	ready := w.readyMembers()
	if len(w.members) < r.Spec.Members {
		return Action{Kind: "create", Target: r.Spec.Name + "-" + itoa(w.seq+1)}
	}
	if len(ready) < r.Spec.Members {
		return Action{Kind: "wait"}
	}
	if m, ok := w.members[r.Status.Leader]; r.Status.Leader == "" || !ok || !m.Ready {
		return Action{Kind: "elect", Target: ready[0].Name}
	}
	return Action{Kind: "noop"}
}
