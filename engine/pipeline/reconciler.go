package pipeline

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

// The reconciler of the App kind, in chapter 001's four beats: observe,
// compare and act, report status and decide requeue. It receives only a key;
// what happened to the object is never asked.
//
// A reconcile takes virtual time on its worker, so that "processing" can be
// seen and a second worker matters. When each beat happens is fixed, and the
// traps come from these moments, not from any "if trap then fail":
//
//	t0                  observe: Get the App, its child and the Secret from the cache
//	t0+ActDelay         act: finalizer, external call, child write (to the API server)
//	 (+SleepAfterCreate  read the child back, AfterCreateSleep only)
//	 (+SlowCall          the hung external call times out, TrapSlowObject only)
//	…+ReportDelay       report: status write, then return the Result
//
// A beat that fails returns at once (the worker is free from then on).

// phase is the next beat of a reconcile in progress.
type phase string

const (
	phaseAct      phase = "act"
	phaseExternal phase = "external"  // an external call hangs; it times out at due
	phaseReadBack phase = "read-back" // sleeping; reads the child back at due
	phaseReport   phase = "report"
)

// run is one reconcile in progress on one worker.
type run struct {
	key     string // namespace/name: all the reconcile is given
	name    string
	worker  int // 1-based
	started time.Duration
	// priority is the queue priority the key was handed out at; the key is
	// requeued at it.
	priority int
	phase    phase
	due      time.Duration // when the next beat happens

	// What observe read from the cache. obj is the reconcile's own copy of
	// the App: its writes update it, as client.Update fills in the object
	// it is given.
	found      bool
	obs        Observed
	obj        apiserver.Object
	child      apiserver.Object
	hasChild   bool
	dependency bool

	action Action
	status StatusOutcome
}

// childName is the name of an App's child ConfigMap.
func childName(app string) string { return app + ChildSuffix }

// desiredChild builds the child the App's spec asks for: a pure function of
// the App, as sample-controller's builders are.
func desiredChild(app apiserver.Object) apiserver.Object {
	return apiserver.Object{Kind: apiserver.KindConfigMap, Name: childName(app.Name),
		Data:  apiserver.ConfigData{LogLevel: app.Spec.LogLevel},
		Owner: apiserver.OwnerRef{Kind: apiserver.KindApp, Name: app.Name, UID: app.UID}}
}

// compareChild is the diff: is the child there, and as the spec says?
func compareChild(app, child apiserver.Object, has bool) ChildState {
	want := desiredChild(app)
	switch {
	case !has:
		return ChildAbsent
	case child.Data != want.Data || child.Owner != want.Owner:
		return ChildDiffers
	}
	return ChildMatches
}

// observe is the first beat (観測): read what is, from the cache. An App
// that is not there is gone; there is nothing left to do (what it owned is
// the garbage collector's).
func (w *World) observe(r *run) {
	r.action, r.status = ActionNoop, StatusNone
	obj, ok := w.fromCache(apiserver.KindApp, r.name)
	if !ok {
		w.finish(r, Result{}, nil)
		return
	}
	r.found, r.obj = true, obj
	r.child, r.hasChild = w.fromCache(apiserver.KindConfigMap, childName(r.name))
	_, r.dependency = w.fromCache(apiserver.KindSecret, DependencyName)
	r.obs = Observed{ResourceVersion: obj.ResourceVersion, Generation: obj.Generation,
		ObservedGeneration: obj.Status.ObservedGeneration, Deleting: obj.Deleting(),
		Child: compareChild(obj, r.child, r.hasChild), Dependency: r.dependency}
	r.phase, r.due = phaseAct, w.now+ActDelay
}

// beat runs the reconcile's next beat, due now.
func (w *World) beat(r *run) {
	switch r.phase {
	case phaseAct:
		w.act(r)
	case phaseExternal:
		w.logEvent(Event{Kind: EventExternal, Worker: r.worker, Verb: externalVerb(r), Name: r.name, Outcome: "timeout"})
		w.finish(r, Result{}, reconcileError{ReasonTimeout})
	case phaseReadBack:
		if _, ok := w.fromCache(apiserver.KindConfigMap, childName(r.name)); !ok {
			w.finish(r, Result{}, reconcileError{ReasonNotFound})
			return
		}
		w.toReport(r)
	case phaseReport:
		w.reportStatus(r)
	}
}

// act is the second and third beats (比較・行動): close the gap
// idempotently. An App being deleted takes the cleanup path instead.
func (w *World) act(r *run) {
	if r.obj.Deleting() {
		w.cleanup(r)
		return
	}
	// The finalizer first: from now on, deleting the App waits for cleanup.
	if !r.obj.HasFinalizer(Finalizer) {
		wr, err := w.workerWrite(r, "update", apiserver.KindApp, r.name, func() (apiserver.Written, error) {
			return w.store.Update(r.obj.WithFinalizer(Finalizer))
		})
		if err != nil {
			w.finish(r, Result{}, err)
			return
		}
		r.obj = wr.Object
	}
	// Not ready is not a failure: nothing more to do now, and report
	// decides how to look again.
	if !r.dependency {
		w.toReport(r)
		return
	}
	if w.slow(r) {
		w.hang(r)
		return
	}
	w.callExternal(r)
	if err := w.ensureChild(r); err != nil {
		w.finish(r, Result{}, err)
		return
	}
	if r.action == ActionCreate {
		switch w.settings.AfterCreate {
		case AfterCreateReadBack:
			// Reads come from the cache, writes went to the API server:
			// right after Create, the cache still says "none".
			if _, ok := w.fromCache(apiserver.KindConfigMap, childName(r.name)); !ok {
				w.finish(r, Result{}, reconcileError{ReasonNotFound})
				return
			}
		case AfterCreateSleep:
			r.phase, r.due = phaseReadBack, w.now+SleepAfterCreate
			return
		}
	}
	w.toReport(r)
}

// ensureChild makes the child what the spec says: 「作成する」ではなく、
// 「望ましい姿で存在するか確認し、そうでなければ合わせる」. When it already
// matches, nothing is written and its resourceVersion stays.
func (w *World) ensureChild(r *run) error {
	want := desiredChild(r.obj)
	write := func(verb string, f func() (apiserver.Written, error)) (apiserver.Written, error) {
		return w.workerWrite(r, verb, apiserver.KindConfigMap, want.Name, f)
	}
	switch w.settings.ChildWrite {
	case ChildBlind:
		// The trap: create without looking. It works once.
		r.action = ActionCreate
		_, err := write("create", func() (apiserver.Written, error) { return w.store.Create(want) })
		return err
	case ChildApply:
		wr, err := write("apply", func() (apiserver.Written, error) { return w.store.Apply(want) })
		switch {
		case err != nil:
		case !wr.Changed:
			r.action = ActionNoop
		case wr.Object.UID == wr.Object.ResourceVersion:
			r.action = ActionCreate
		default:
			r.action = ActionUpdate
		}
		return err
	}
	switch r.obs.Child {
	case ChildAbsent:
		r.action = ActionCreate
		_, err := write("create", func() (apiserver.Written, error) { return w.store.Create(want) })
		return err
	case ChildDiffers:
		r.action = ActionUpdate
		upd := r.child.DeepCopy()
		upd.Data, upd.Owner = want.Data, want.Owner
		_, err := write("update", func() (apiserver.Written, error) { return w.store.Update(upd) })
		return err
	}
	r.action = ActionNoop
	return nil
}

// cleanup is the deletion path: 削除=削除時刻が刻まれて、reconcileがもう一度
// 呼ばれる。その1回が後片付けの最後のチャンス. Delete the external record
// (idempotently: deleting what is already gone is success, or the finalizer
// would never come off), then remove the finalizer; the API server removes
// the App, and the garbage collector its child.
func (w *World) cleanup(r *run) {
	if !r.obj.HasFinalizer(Finalizer) {
		w.finish(r, Result{}, nil)
		return
	}
	r.action = ActionCleanup
	if w.slow(r) {
		w.hang(r)
		return
	}
	w.callExternal(r)
	_, err := w.workerWrite(r, "update", apiserver.KindApp, r.name, func() (apiserver.Written, error) {
		return w.store.Update(r.obj.WithoutFinalizer(Finalizer))
	})
	w.finish(r, Result{}, err)
}

func (w *World) toReport(r *run) { r.phase, r.due = phaseReport, w.now+ReportDelay }

// reportStatus is the fourth beat (報告と再キューの判断): write what was observed to
// status, then decide when to look again.
func (w *World) reportStatus(r *run) {
	if err := w.writeStatus(r); err != nil {
		w.finish(r, Result{}, err)
		return
	}
	switch {
	case !r.dependency && w.settings.NotReady == NotReadyError:
		w.finish(r, Result{}, reconcileError{ReasonDependencyMissing})
	case !r.dependency && w.settings.NotReady == NotReadyRequeueTrue:
		w.finish(r, Result{Requeue: true}, nil)
	case !r.dependency:
		w.finish(r, Result{RequeueAfter: NotReadyRequeue}, nil)
	case w.settings.Periodic == PeriodicShort:
		w.finish(r, Result{RequeueAfter: PeriodicShortAfter}, nil)
	case w.settings.Periodic == PeriodicLong:
		w.finish(r, Result{RequeueAfter: PeriodicLongAfter}, nil)
	default:
		w.finish(r, Result{}, nil)
	}
}

// desiredStatus is the status the reconcile observed, over base (the copy it
// writes on). The Ready condition's lastTransitionTime moves only when its
// status does.
func (w *World) desiredStatus(r *run, base apiserver.Object) apiserver.AppStatus {
	ready := apiserver.Condition{Type: "Ready", Status: "True", Reason: "Reconciled", LastTransitionTime: w.now}
	if !r.dependency {
		ready.Status, ready.Reason = "False", ReasonDependencyMissing
	}
	if prev, ok := base.ReadyCondition(); ok && prev.Status == ready.Status {
		ready.LastTransitionTime = prev.LastTransitionTime
	}
	st := apiserver.AppStatus{ObservedGeneration: r.obj.Generation, Conditions: []apiserver.Condition{ready}}
	if w.settings.StatusWrite == StatusAlways {
		st.LastReconcileTime = apiserver.Timestamp{Set: true, At: w.now}
	}
	return st
}

// writeStatus writes status through the status subresource, from the copy
// StatusFrom says.
func (w *World) writeStatus(r *run) error {
	base := r.obj
	if w.settings.StatusFrom == StatusFromLatest {
		// The API reader: straight from the API server, not the cache.
		latest, ok := w.store.Get(apiserver.KindApp, r.name)
		if !ok {
			return fmt.Errorf("read %s again: %w", r.key, apiserver.ErrNotFound)
		}
		base = latest
	}
	st := w.desiredStatus(r, base)
	if w.settings.StatusWrite == StatusOnChange && w.settings.StatusFrom != StatusFromApply && st.Equal(base.Status) {
		r.status = StatusUnchanged
		return nil
	}
	var wr apiserver.Written
	var err error
	if w.settings.StatusFrom == StatusFromApply {
		wr, err = w.workerWrite(r, "apply-status", apiserver.KindApp, r.name, func() (apiserver.Written, error) {
			return w.store.ApplyStatus(apiserver.KindApp, r.name, st)
		})
	} else {
		o := base.DeepCopy()
		o.Status = st
		wr, err = w.workerWrite(r, "update-status", apiserver.KindApp, r.name, func() (apiserver.Written, error) {
			return w.store.UpdateStatus(o)
		})
	}
	switch {
	case apiserver.Reason(err) == "Conflict":
		r.status = StatusConflict
	case err != nil:
	case wr.Changed:
		r.status = StatusWritten
	default:
		r.status = StatusUnchanged
	}
	return err
}

func (w *World) workerWrite(r *run, verb, kind, name string, f func() (apiserver.Written, error)) (apiserver.Written, error) {
	return w.do(actor{who: "worker", worker: r.worker}, verb, kind, name, f)
}

// The external system: one record per App, made by its reconcile and
// deleted by its cleanup. Kubernetes does not know it exists; only the
// finalizer guarantees it is cleaned up.

func (w *World) slow(r *run) bool { return w.settings.SlowObject && r.name == SlowApp }

func externalVerb(r *run) string {
	if r.obj.Deleting() {
		return "delete"
	}
	return "ensure"
}

// hang starts an external call that will not answer: the reconcile holds its
// worker until the call times out.
func (w *World) hang(r *run) {
	inc(&w.counters.ExternalCalls)
	w.logEvent(Event{Kind: EventExternal, Worker: r.worker, Verb: externalVerb(r), Name: r.name, Outcome: "calling"})
	r.phase, r.due = phaseExternal, w.now+SlowCall
}

// callExternal ensures the App's record exists, or deletes it.
func (w *World) callExternal(r *run) {
	inc(&w.counters.ExternalCalls)
	verb, outcome := externalVerb(r), ""
	uid, ok := w.external[r.name]
	switch {
	case verb == "delete" && ok:
		delete(w.external, r.name)
		outcome = "deleted"
	case verb == "delete":
		outcome = "absent"
	case ok && uid == r.obj.UID:
		outcome = "exists"
	default:
		w.external[r.name] = r.obj.UID
		outcome = "created"
	}
	w.logEvent(Event{Kind: EventExternal, Worker: r.worker, Verb: verb, Name: r.name, Outcome: outcome})
}
