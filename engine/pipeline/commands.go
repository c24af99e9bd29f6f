package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// Errors of the visitor's commands. A refused command changes nothing.
var (
	ErrUnknownApp    = errors.New("unknown App: the names are app-1, app-2 and app-3")
	ErrControllerOff = errors.New("the controller is off")
	ErrNoFinalizer   = errors.New("the App has no finalizer")
)

func validApp(name string) error {
	if !slices.Contains(AppNames[:], name) {
		return fmt.Errorf("%q: %w", name, ErrUnknownApp)
	}
	return nil
}

// CreateApp creates App default/name (name one of AppNames) with
// spec.logLevel info, as kubectl apply would. A name that exists, even one
// being deleted, is AlreadyExists; a name whose App is gone may be created
// again (a new object: a new uid).
func (w *World) CreateApp(name string) error {
	if err := validApp(name); err != nil {
		return err
	}
	if _, ok := w.store.Get(apiserver.KindApp, name); ok {
		return fmt.Errorf("App %s: %w", name, apiserver.ErrAlreadyExists)
	}
	err := w.userWrite("create", apiserver.KindApp, name, func() (apiserver.Written, error) {
		return w.store.Create(apiserver.Object{Kind: apiserver.KindApp, Name: name,
			Spec: apiserver.AppSpec{LogLevel: apiserver.LogLevels[0]}})
	})
	w.settle()
	return err
}

// EditApp changes the App's spec: spec.logLevel moves to the next of
// apiserver.LogLevels (a value the child ConfigMap holds), so its
// generation goes up.
func (w *World) EditApp(name string) error {
	cur, err := w.latest(name)
	if err != nil {
		return err
	}
	i := slices.Index(apiserver.LogLevels[:], cur.Spec.LogLevel)
	cur.Spec.LogLevel = apiserver.LogLevels[(i+1)%len(apiserver.LogLevels)]
	err = w.userWrite("update", apiserver.KindApp, name, func() (apiserver.Written, error) {
		return w.store.Update(cur)
	})
	w.settle()
	return err
}

// DeleteApp deletes the App, as kubectl delete does: with its finalizer it
// is only marked (deletionTimestamp: Terminating) until the controller's
// cleanup removes the finalizer; without one it is gone at once.
func (w *World) DeleteApp(name string) error {
	if _, err := w.latest(name); err != nil {
		return err
	}
	err := w.userWrite("delete", apiserver.KindApp, name, func() (apiserver.Written, error) {
		return w.store.Delete(apiserver.KindApp, name, w.now)
	})
	w.settle()
	return err
}

// EditChild changes the App's child ConfigMap by hand (kubectl edit):
// data.logLevel moves to the next of apiserver.LogLevels, so the child
// drifts from what the App's spec asks and gets a new resourceVersion. The
// Owns watch enqueues the owner, and its reconcile puts the data back.
func (w *World) EditChild(name string) error {
	if err := validApp(name); err != nil {
		return err
	}
	cm, ok := w.store.Get(apiserver.KindConfigMap, childName(name))
	if !ok {
		return fmt.Errorf("ConfigMap %s: %w", childName(name), apiserver.ErrNotFound)
	}
	i := slices.Index(apiserver.LogLevels[:], cm.Data.LogLevel)
	cm.Data.LogLevel = apiserver.LogLevels[(i+1)%len(apiserver.LogLevels)]
	err := w.userWrite("update", apiserver.KindConfigMap, cm.Name, func() (apiserver.Written, error) {
		return w.store.Update(cm)
	})
	w.settle()
	return err
}

// RemoveFinalizer removes the App's finalizer by hand (kubectl patch): the
// runbook's escape hatch for an App stuck Terminating. The cleanup never
// runs, so the App's external record is left behind.
func (w *World) RemoveFinalizer(name string) error {
	cur, err := w.latest(name)
	if err != nil {
		return err
	}
	if !cur.HasFinalizer(Finalizer) {
		return fmt.Errorf("%s: %w", name, ErrNoFinalizer)
	}
	err = w.userWrite("update", apiserver.KindApp, name, func() (apiserver.Written, error) {
		return w.store.Update(cur.WithoutFinalizer(Finalizer))
	})
	w.settle()
	return err
}

// userWrite is one write of the visitor's. It is refused up front while
// the watch backlog is full, so that a refused command changes nothing, not
// even a counter.
func (w *World) userWrite(verb, kind, name string, write func() (apiserver.Written, error)) error {
	if w.backlogFull() {
		return ErrTooManyRequests
	}
	_, err := w.do(userActor, verb, kind, name, write)
	return err
}

// latest reads the named App from the API server, as kubectl does.
func (w *World) latest(name string) (apiserver.Object, error) {
	if err := validApp(name); err != nil {
		return apiserver.Object{}, err
	}
	cur, ok := w.store.Get(apiserver.KindApp, name)
	if !ok {
		return apiserver.Object{}, fmt.Errorf("App %s: %w", name, apiserver.ErrNotFound)
	}
	return cur, nil
}

// SetDependency creates or deletes the Secret every App depends on. Without
// Settings.SecretWatch no handler watches it, and Apps find out on their
// next reconcile; with it, its watch event enqueues every App.
func (w *World) SetDependency(present bool) error {
	if present == w.Dependency() {
		return nil
	}
	verb := "delete"
	if present {
		verb = "create"
	}
	err := w.userWrite(verb, apiserver.KindSecret, DependencyName,
		func() (apiserver.Written, error) {
			if present {
				return w.store.Create(apiserver.Object{Kind: apiserver.KindSecret, Name: DependencyName})
			}
			return w.store.Delete(apiserver.KindSecret, DependencyName, w.now)
		})
	w.settle()
	return err
}

// SetController starts or stops the controller process. Stopping drops its
// cache, its queue (and every key's failures) and abandons the reconciles
// in progress; starting lists the API server again and enqueues every App.
func (w *World) SetController(on bool) {
	switch {
	case on && w.ctrl == nil:
		w.start("start")
	case !on && w.ctrl != nil:
		w.stop("stop")
	}
}

// SetSettings changes the controller's settings, after checking them. While
// the controller runs, a change redeploys it, as a new version of its code
// or options would be: it stops (reconciles in progress are abandoned, the
// queue and its failures are lost) and starts again, listing and
// reconciling every App under the new settings at once.
func (w *World) SetSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if s == w.settings {
		return nil
	}
	for _, f := range changedFields(w.settings, s) {
		w.logEvent(Event{Kind: EventSettings, Verb: f})
	}
	w.settings = s
	if w.ctrl != nil {
		w.stop("restart")
		w.start("restart")
	}
	return nil
}

// changedFields names the settings that differ, by their JSON names.
func changedFields(a, b Settings) []string {
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("predicate", a.Predicate != b.Predicate)
	add("statusWrite", a.StatusWrite != b.StatusWrite)
	add("notReady", a.NotReady != b.NotReady)
	add("workers", a.Workers != b.Workers)
	add("statusFrom", a.StatusFrom != b.StatusFrom)
	add("childWrite", a.ChildWrite != b.ChildWrite)
	add("afterCreate", a.AfterCreate != b.AfterCreate)
	add("slowObject", a.SlowObject != b.SlowObject)
	add("periodic", a.Periodic != b.Periodic)
	add("queueKind", a.QueueKind != b.QueueKind)
	add("secretWatch", a.SecretWatch != b.SecretWatch)
	return out
}

// SetPredicate switches GenerationChangedPredicate on the App watch.
func (w *World) SetPredicate(on bool) error {
	s := w.settings
	s.Predicate = on
	return w.SetSettings(s)
}

// SetStatusWrite chooses when status is written.
func (w *World) SetStatusWrite(v StatusWrite) error {
	s := w.settings
	s.StatusWrite = v
	return w.SetSettings(s)
}

// SetNotReady chooses how a missing dependency is returned.
func (w *World) SetNotReady(v NotReady) error {
	s := w.settings
	s.NotReady = v
	return w.SetSettings(s)
}

// SetQueueKind chooses the controller's workqueue: workqueue.Priority
// (UsePriorityQueue, the default) or workqueue.Classic.
func (w *World) SetQueueKind(k workqueue.Kind) error {
	s := w.settings
	s.QueueKind = k
	return w.SetSettings(s)
}

// SetSecretWatch adds or removes the Watches on the Secret.
func (w *World) SetSecretWatch(on bool) error {
	s := w.settings
	s.SecretWatch = on
	return w.SetSettings(s)
}

// SetWorkers sets MaxConcurrentReconciles, 1 or 2.
func (w *World) SetWorkers(n int) error {
	s := w.settings
	s.Workers = n
	return w.SetSettings(s)
}

// SetTrap puts the cause of trap t in place (on) or back to the starting
// state's setting (off); TrapStuckFinalizer stops or starts the controller.
func (w *World) SetTrap(t Trap, on bool) error {
	if t == TrapStuckFinalizer {
		w.SetController(!on)
		return nil
	}
	s, err := withTrap(t, on, w.settings)
	if err != nil {
		return err
	}
	return w.SetSettings(s)
}

// TrapOn reports whether the cause of trap t is in place.
func (w *World) TrapOn(t Trap) bool { return trapOn(t, w.settings, w.ctrl != nil) }

// StepResult is what Step did.
type StepResult struct {
	// Resynced: no key was ready and no worker busy, so the informer
	// resynced first, as its periodic resync does.
	Resynced bool
	// Reconciled is false when nothing was left to reconcile: the resync
	// enqueued nothing (GenerationChangedPredicate drops the Apps' resync)
	// and nothing else is due.
	Reconciled bool
	// Last is the reconcile that finished.
	Last Completion
	// Elapsed is the virtual time the step took.
	Elapsed time.Duration
}

// Step runs the controller until one reconcile finishes: a worker takes the
// next ready key (when none is ready and no worker is busy, the informer
// resyncs first) and virtual time passes, with everything that happens on
// the way, until a reconcile returns. The controller must be on.
func (w *World) Step() (StepResult, error) {
	c := w.ctrl
	if c == nil {
		return StepResult{}, ErrControllerOff
	}
	start := w.now
	var res StepResult
	if c.busy() == 0 && c.queue.Len() == 0 {
		w.resyncAs("step")
		res.Resynced = true
		w.settle()
	}
	n := w.counters.Reconciles()
	for w.counters.Reconciles() == n {
		at, ok := w.nextAt(false)
		if !ok {
			res.Elapsed = w.now - start
			return res, nil
		}
		w.moveTo(at)
		w.settle()
	}
	res.Reconciled, res.Last, res.Elapsed = true, w.last, w.now-start
	return res, nil
}
