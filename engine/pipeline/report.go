package pipeline

import "time"

// Action is what a reconcile did to close the gap (chapter 001's lab
// report).
type Action string

// The actions.
const (
	ActionCreate  Action = "create"  // created the child
	ActionUpdate  Action = "update"  // updated the child to the spec
	ActionNoop    Action = "noop"    // nothing to do, or could not act
	ActionCleanup Action = "cleanup" // deleted the external record and removed the finalizer
)

// ChildState is how the child looked to the reconcile (compare).
type ChildState string

// The child states.
const (
	ChildAbsent  ChildState = "absent"
	ChildDiffers ChildState = "differs"
	ChildMatches ChildState = "matches"
)

// Requeue is the requeue decision.
type Requeue string

// The requeue decisions.
const (
	RequeueNone    Requeue = "none"    // success: Forget, wait for the next event
	RequeueAfter   Requeue = "after"   // RequeueAfter: Forget, then AddAfter
	RequeueBackoff Requeue = "backoff" // error, or Requeue: true: AddRateLimited
)

// StatusOutcome is what became of the status write.
type StatusOutcome string

// The status outcomes.
const (
	StatusWritten   StatusOutcome = "written"   // a real change: new resourceVersion, new event
	StatusUnchanged StatusOutcome = "unchanged" // nothing to write, or the API server's no-op
	StatusConflict  StatusOutcome = "conflict"  // written with a stale resourceVersion
	StatusNone      StatusOutcome = "none"      // not reached (cleanup, or returned earlier)
)

// The reasons a reconcile fails, beside apiserver.Reason's.
const (
	ReasonDependencyMissing = "DependencyMissing" // the Secret is not there (NotReadyError)
	ReasonTimeout           = "Timeout"           // the external API did not answer (TrapSlowObject)
	ReasonNotFound          = "NotFound"          // the child just created is not in the cache (TrapNotVisible)
	ReasonTooManyRequests   = "TooManyRequests"   // the API server refused a write (MaxInflight)
)

// Observed is what a reconcile saw when it started, from the cache.
type Observed struct {
	ResourceVersion    int64 // of the App copy it read
	Generation         int64
	ObservedGeneration int64
	Deleting           bool
	Child              ChildState
	Dependency         bool
}

// ReportRow is chapter 001's lab report for one App: its latest reconcile.
// The row stays after the App is gone (its last row says cleanup).
type ReportRow struct {
	Name     string
	At       time.Duration // when the reconcile returned
	Worker   int
	Took     time.Duration
	Observed Observed
	Action   Action
	// Reason is why the reconcile failed; "" on success.
	Reason  string
	Requeue Requeue
	// RequeueIn is when it will be ready again (after, backoff); 0 when
	// the key was already queued to run again and the priority queue let
	// that stand.
	RequeueIn time.Duration
	Status    StatusOutcome
	// Result is the controller_runtime_reconcile_total label it counted.
	Result string
	// Reconciles counts this name's finished reconciles, gone ones included.
	Reconciles int64
}

// Report returns the lab report: one row per App name that has been
// reconciled, in name order.
func (w *World) Report() []ReportRow { return w.appendReport(nil) }

// appendReport appends Report to dst.
func (w *World) appendReport(dst []ReportRow) []ReportRow {
	for _, n := range AppNames {
		if r, ok := w.report[n]; ok {
			dst = append(dst, r)
		}
	}
	return dst
}
