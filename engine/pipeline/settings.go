package pipeline

import (
	"errors"
	"fmt"

	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// StatusWrite is when the reconciler writes status.
type StatusWrite string

const (
	// StatusOnChange writes status only when its content changes (the fix
	// of the runaway reconcile: 値が変わったときにだけstatusを書く).
	StatusOnChange StatusWrite = "on-change"
	// StatusAlways writes status on every reconcile, with a
	// lastReconcileTime, so that every write is a real change: a new
	// resourceVersion and a new watch event each time.
	StatusAlways StatusWrite = "always"
)

// NotReady is how the reconciler reports a missing dependency.
type NotReady string

const (
	// NotReadyRequeueAfter returns Result{RequeueAfter: NotReadyRequeue}: no
	// failure, a steady rhythm (少しあとでもう一度見よう).
	NotReadyRequeueAfter NotReady = "requeue-after"
	// NotReadyError returns an error: exponential backoff, failures climb.
	NotReadyError NotReady = "error"
	// NotReadyRequeueTrue returns Result{Requeue: true}: deprecated in
	// controller-runtime, still handled: rate limited like an error (the
	// key's failures climb, so does its backoff), yet counted as a requeue,
	// not an error, and logged as none.
	NotReadyRequeueTrue NotReady = "requeue-true"
)

// StatusFrom is which copy of the App the status write starts from.
type StatusFrom string

const (
	// StatusFromLatest reads the App again from the API server right before
	// Status().Update (fix of the status conflict: 最新のオブジェクトを読み直す).
	StatusFromLatest StatusFrom = "latest"
	// StatusFromCache updates status on the copy read from the cache at
	// the start of the reconcile: a stale copy carries a stale
	// resourceVersion, and the write is a Conflict.
	StatusFromCache StatusFrom = "cache"
	// StatusFromApply applies status server-side: no resourceVersion, no
	// conflict (サーバーサイドapply).
	StatusFromApply StatusFrom = "apply"
)

// ChildWrite is how the reconciler ensures the child ConfigMap.
type ChildWrite string

const (
	// ChildGetThenBranch reads the child from the cache, then creates,
	// updates or leaves it (get 後に分岐).
	ChildGetThenBranch ChildWrite = "get-then-branch"
	// ChildBlind creates the child on every reconcile without looking:
	// AlreadyExists from the second reconcile on (非冪等な create).
	ChildBlind ChildWrite = "blind"
	// ChildApply applies the child server-side: created, updated or left,
	// never AlreadyExists.
	ChildApply ChildWrite = "apply"
)

// AfterCreate is what the reconciler does right after creating the child.
type AfterCreate string

const (
	// AfterCreateTrust does nothing: the next reconcile will see the child
	// (待たない。次のreconcileで自然に見えるのに任せる).
	AfterCreateTrust AfterCreate = "trust"
	// AfterCreateReadBack Gets the child from the cache at once and fails
	// with NotFound, since the cache has not received the create yet.
	AfterCreateReadBack AfterCreate = "read-back"
	// AfterCreateSleep sleeps SleepAfterCreate, holding its worker, then
	// reads the child back: the most common wrong answer.
	AfterCreateSleep AfterCreate = "sleep"
)

// Periodic is the RequeueAfter a successful reconcile returns, for a
// periodic check of the external system.
type Periodic string

const (
	// PeriodicNone returns a zero Result: reconcile again on the next event.
	PeriodicNone Periodic = "none"
	// PeriodicShort requeues after PeriodicShortAfter: every reconcile calls
	// the external API, so calls pile up (外部 API 暴走).
	PeriodicShort Periodic = "short"
	// PeriodicLong requeues after PeriodicLongAfter (RequeueAfter で間隔調整).
	PeriodicLong Periodic = "long"
)

// Settings is the controller's code and options. Changing them while the
// controller runs redeploys it: see SetSettings.
type Settings struct {
	// Predicate adds GenerationChangedPredicate to the App watch (For):
	// App updates that leave metadata.generation alone are dropped.
	Predicate   bool        `json:"predicate"`
	StatusWrite StatusWrite `json:"statusWrite"`
	NotReady    NotReady    `json:"notReady"`
	// Workers is MaxConcurrentReconciles: 1 or 2.
	Workers     int         `json:"workers"`
	StatusFrom  StatusFrom  `json:"statusFrom"`
	ChildWrite  ChildWrite  `json:"childWrite"`
	AfterCreate AfterCreate `json:"afterCreate"`
	// SlowObject makes SlowApp's external API hang for SlowCall, then time
	// out: its reconcile holds a worker that long and fails.
	SlowObject bool     `json:"slowObject"`
	Periodic   Periodic `json:"periodic"`
	// QueueKind is the controller's workqueue: workqueue.Priority,
	// controller-runtime's default since v0.23 (UsePriorityQueue), or
	// workqueue.Classic, client-go's queue (UsePriorityQueue=false).
	QueueKind workqueue.Kind `json:"queueKind"`
	// SecretWatch adds Watches(&Secret{}, EnqueueRequestsFromMapFunc(...)):
	// an event on the Secret enqueues every App that uses it (all of them).
	// Without it the Secret is only read from the cache, and an App waiting
	// for it finds out on its next reconcile.
	SecretWatch bool `json:"secretWatch,omitempty"`
}

// DefaultSettings returns the starting state's settings: the chapters'
// fixes everywhere, one worker.
func DefaultSettings() Settings {
	return Settings{
		Predicate:   true,
		StatusWrite: StatusOnChange,
		NotReady:    NotReadyRequeueAfter,
		Workers:     1,
		StatusFrom:  StatusFromLatest,
		ChildWrite:  ChildGetThenBranch,
		AfterCreate: AfterCreateTrust,
		Periodic:    PeriodicNone,
		QueueKind:   workqueue.Priority,
	}
}

// Validate returns an error naming the first field out of range.
func (s Settings) Validate() error {
	oneOf := func(name string, v string, allowed ...string) error {
		for _, a := range allowed {
			if v == a {
				return nil
			}
		}
		return fmt.Errorf("%s %q is not one of %v", name, v, allowed)
	}
	return errors.Join(
		oneOf("statusWrite", string(s.StatusWrite), string(StatusOnChange), string(StatusAlways)),
		oneOf("notReady", string(s.NotReady), string(NotReadyRequeueAfter), string(NotReadyError), string(NotReadyRequeueTrue)),
		oneOf("statusFrom", string(s.StatusFrom), string(StatusFromLatest), string(StatusFromCache), string(StatusFromApply)),
		oneOf("childWrite", string(s.ChildWrite), string(ChildGetThenBranch), string(ChildBlind), string(ChildApply)),
		oneOf("afterCreate", string(s.AfterCreate), string(AfterCreateTrust), string(AfterCreateReadBack), string(AfterCreateSleep)),
		oneOf("periodic", string(s.Periodic), string(PeriodicNone), string(PeriodicShort), string(PeriodicLong)),
		oneOf("queueKind", string(s.QueueKind), string(workqueue.Priority), string(workqueue.Classic)),
		workersInRange(s.Workers),
	)
}

func workersInRange(n int) error {
	if n < 1 || n > MaxWorkers {
		return fmt.Errorf("workers %d out of range [1, %d]", n, MaxWorkers)
	}
	return nil
}

// Trap is one trap of the chapters: a bug a controller author meets, which
// the traps panel switches on to show its symptom.
type Trap string

// The traps, in the order of chapter 003's よくあるバグ table, then chapter
// 001's finalizer trap.
const (
	// TrapRunaway: status always + predicate off; reconciles climb without
	// end. Fix: Predicate, or StatusOnChange.
	TrapRunaway Trap = "runaway"
	// TrapConflict: status from the cache's copy; a reconcile that starts
	// before its own last status write reached the cache writes with a
	// stale resourceVersion. Fix: StatusFromLatest or StatusFromApply.
	TrapConflict Trap = "conflict"
	// TrapAlreadyExists: create without checking. Fix: ChildGetThenBranch
	// or ChildApply.
	TrapAlreadyExists Trap = "already-exists"
	// TrapNotVisible: read the child back right after creating it. Fix:
	// AfterCreateTrust (do not wait; the next reconcile sees it).
	TrapNotVisible Trap = "not-visible"
	// TrapSlowObject: SlowApp's reconcile hangs for SlowCall and fails; with
	// one worker every other key waits behind it. Fix: Workers 2
	// (MaxConcurrentReconciles; safe, one key is never on two workers).
	TrapSlowObject Trap = "slow-object"
	// TrapStampede: requeue every PeriodicShortAfter, one external call each
	// time. Fix: PeriodicLong.
	TrapStampede Trap = "stampede"
	// TrapStuckFinalizer: the controller is off, so a deleted App stays
	// Terminating. Fix: remove the finalizer by hand (RemoveFinalizer), or
	// start the controller again.
	TrapStuckFinalizer Trap = "stuck-finalizer"
)

// Traps returns every trap in panel order.
func Traps() []Trap {
	return []Trap{TrapRunaway, TrapConflict, TrapAlreadyExists, TrapNotVisible, TrapSlowObject, TrapStampede, TrapStuckFinalizer}
}

// trapOn reports whether the cause of t is in place under s (with the
// controller on or off).
func trapOn(t Trap, s Settings, controllerOn bool) bool {
	switch t {
	case TrapRunaway:
		return s.StatusWrite == StatusAlways && !s.Predicate
	case TrapConflict:
		return s.StatusFrom == StatusFromCache
	case TrapAlreadyExists:
		return s.ChildWrite == ChildBlind
	case TrapNotVisible:
		return s.AfterCreate == AfterCreateReadBack
	case TrapSlowObject:
		return s.SlowObject
	case TrapStampede:
		return s.Periodic == PeriodicShort
	case TrapStuckFinalizer:
		return !controllerOn
	}
	return false
}

// withTrap returns s with the cause of t put in place (on) or replaced by
// the starting state's setting (off). The fixes other than "off" (a second
// worker, server-side apply, a longer RequeueAfter, …) are settings of
// their own.
func withTrap(t Trap, on bool, s Settings) (Settings, error) {
	d := DefaultSettings()
	switch t {
	case TrapRunaway:
		if on {
			s.StatusWrite, s.Predicate = StatusAlways, false
		} else {
			s.StatusWrite, s.Predicate = d.StatusWrite, d.Predicate
		}
	case TrapConflict:
		s.StatusFrom = pick(on, StatusFromCache, d.StatusFrom)
	case TrapAlreadyExists:
		s.ChildWrite = pick(on, ChildBlind, d.ChildWrite)
	case TrapNotVisible:
		s.AfterCreate = pick(on, AfterCreateReadBack, d.AfterCreate)
	case TrapSlowObject:
		s.SlowObject = on
	case TrapStampede:
		s.Periodic = pick(on, PeriodicShort, d.Periodic)
	default:
		return s, fmt.Errorf("unknown trap %q", t)
	}
	return s, nil
}

func pick[T any](on bool, a, b T) T {
	if on {
		return a
	}
	return b
}

// Fixes names the controls that fix trap t, by the JSON names of Settings'
// fields (and "removeFinalizer", "controller" for TrapStuckFinalizer), so
// the page can point at them.
func (t Trap) Fixes() []string {
	switch t {
	case TrapRunaway:
		return []string{"predicate", "statusWrite"}
	case TrapConflict:
		return []string{"statusFrom"}
	case TrapAlreadyExists:
		return []string{"childWrite"}
	case TrapNotVisible:
		return []string{"afterCreate"}
	case TrapSlowObject:
		return []string{"workers"}
	case TrapStampede:
		return []string{"periodic"}
	case TrapStuckFinalizer:
		return []string{"removeFinalizer", "controller"}
	}
	return nil
}
