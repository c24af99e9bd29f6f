package pipeline

import (
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// Settings returns the controller's settings.
func (w *World) Settings() Settings { return w.settings }

// ControllerOn reports whether the controller process runs.
func (w *World) ControllerOn() bool { return w.ctrl != nil }

// Dependency reports whether the Secret every App needs exists.
func (w *World) Dependency() bool {
	_, ok := w.store.Get(apiserver.KindSecret, DependencyName)
	return ok
}

// Objects returns the API server's objects, sorted by kind then name.
func (w *World) Objects() []apiserver.Object { return w.store.List() }

// PeekSize is room for a world's usual objects (its Apps, their
// ConfigMaps and the Secret): a reader's array of this many stays on its
// stack, and a larger world's objects go to the heap.
const PeekSize = 2*MaxApps + 1

// AppendPeekObjects appends Objects to dst without the copies: each
// object's slices are the store's, so a reader reads them before it moves
// the world again (a frame's fragments, read and rendered at one moment).
// A reader passes an array of its own (of PeekSize), which stays on its
// stack.
func (w *World) AppendPeekObjects(dst []apiserver.Object) []apiserver.Object {
	return w.store.AppendPeek(dst)
}

// AppendPeekCache appends Cache to dst without the copies (as
// AppendPeekObjects); nothing while the controller is off.
func (w *World) AppendPeekCache(dst []apiserver.Object) []apiserver.Object {
	if w.ctrl == nil {
		return dst
	}
	return w.appendPeekCache(dst)
}

// ResourceVersion returns the API server's latest resourceVersion.
func (w *World) ResourceVersion() int64 { return w.store.ResourceVersion() }

// Cache returns the informer's cache, sorted by kind then name; nil while
// the controller is off.
func (w *World) Cache() []apiserver.Object {
	if w.ctrl == nil {
		return nil
	}
	return w.cached()
}

// InFlight is one watch event on its way to the informer.
type InFlight struct {
	Type   apiserver.EventType
	Object apiserver.Object
	In     time.Duration // until it arrives
}

// InFlight returns the watch events on their way, in arrival order.
func (w *World) InFlight() []InFlight {
	if w.ctrl == nil {
		return nil
	}
	out := make([]InFlight, len(w.ctrl.inflight))
	for i, d := range w.ctrl.inflight {
		out[i] = InFlight{Type: d.ev.Type, Object: d.ev.Object.DeepCopy(), In: d.at - w.now - w.frac}
	}
	return out
}

// QueueKey is one key as the workqueue holds it.
type QueueKey struct {
	Key string
	// State is ready, processing or waiting (one word for the page; the
	// flags below say all of it).
	State string
	// Ready: handed out by the next Get. Processing: on a worker. Dirty:
	// added again while processing (ready after Done). Waiting: due in DueIn.
	Ready, Processing, Dirty, Waiting bool
	DueIn                             time.Duration
	// Failures is NumRequeues: failures since the key was last Forgotten.
	Failures int
	// Priority is the priority it is queued at on the priority queue:
	// workqueue.LowPriority for the initial list's and the resyncs' adds,
	// else 0 (always 0 on the classic queue). A key on a worker carries the
	// priority it was handed out at, with which it will be requeued.
	Priority int
	// Worker is the worker processing it, 0 if none.
	Worker int
}

// Queue returns every key the workqueue knows, sorted by key; nil while the
// controller is off.
func (w *World) Queue() []QueueKey {
	c := w.ctrl
	if c == nil {
		return nil
	}
	var out []QueueKey
	for _, k := range c.queue.Keys() {
		q := QueueKey{Key: k.Key, Ready: k.Ready, Processing: k.Processing, Dirty: k.Dirty, Waiting: k.Waiting,
			DueIn: max(k.DueIn-w.frac, 0), Failures: k.Requeues, Priority: k.Priority}
		switch {
		case k.Processing:
			q.State = "processing"
		case k.Ready:
			q.State = "ready"
		case k.Waiting:
			q.State = "waiting"
		default:
			q.State = "idle" // only failures remembered
		}
		for _, r := range c.workers {
			if r != nil && r.key == k.Key {
				q.Worker = r.worker
				if !k.Dirty && !k.Waiting {
					q.Priority = r.priority
				}
			}
		}
		out = append(out, q)
	}
	return out
}

// QueueKind returns the kind of the controller's workqueue (the setting;
// the running queue is of that kind).
func (w *World) QueueKind() workqueue.Kind { return w.settings.QueueKind }

// RateLimiter is the rate limiter panel: the limiter's kind
// (workqueue.LimiterItemExponential on the priority queue,
// workqueue.LimiterMaxOf on the classic queue), on the classic queue the
// bucket's tokens (of workqueue.BucketBurst), and every failing key with its
// failures and the delay its next failure would get (RequeueIn and the
// queue's DueIn say what it waits now). While the controller is off, the
// limiter it will start with, empty.
type RateLimiter = workqueue.LimiterView

// RateLimiter returns the rate limiter panel's state.
func (w *World) RateLimiter() RateLimiter {
	if w.ctrl == nil {
		return newQueue(w.settings.QueueKind).Limiter()
	}
	return w.ctrl.queue.Limiter()
}

// ReadyOrder returns the ready keys in the order workers will take them.
func (w *World) ReadyOrder() []string {
	if w.ctrl == nil {
		return nil
	}
	return w.ctrl.queue.Ready()
}

// WorkerView is one worker, for the page.
type WorkerView struct {
	Worker int
	Busy   bool
	Key    string
	// Phase is the reconcile's next beat: act, external, read-back, report.
	Phase   string
	Started time.Duration
	DueIn   time.Duration
	// Observed is what the reconcile read when it started; Action is what
	// it has done so far.
	Observed Observed
	Action   Action
	// Priority is the queue priority the key was handed out at.
	Priority int
}

// Workers returns each worker (MaxConcurrentReconciles of them); nil while
// the controller is off.
func (w *World) Workers() []WorkerView { return w.AppendWorkers(nil) }

// AppendWorkers appends Workers to dst: a page reads them twice a frame,
// into arrays of MaxWorkers on its stack.
func (w *World) AppendWorkers(dst []WorkerView) []WorkerView {
	c := w.ctrl
	if c == nil {
		return dst
	}
	for i, r := range c.workers {
		v := WorkerView{Worker: i + 1}
		if r != nil {
			v = WorkerView{Worker: r.worker, Busy: true, Key: r.key, Phase: string(r.phase), Started: r.started,
				DueIn: max(r.due-w.now-w.frac, 0), Observed: r.obs, Action: r.action, Priority: r.priority}
		}
		dst = append(dst, v)
	}
	return dst
}

// ExternalRecord is one record of the external system.
type ExternalRecord struct {
	Name string
	UID  int64
	// Orphan: no App with that uid exists (its finalizer was removed by
	// hand, so its cleanup never ran).
	Orphan bool
}

// External returns the external system's records in name order.
func (w *World) External() []ExternalRecord {
	var out []ExternalRecord
	for _, n := range AppNames {
		uid, ok := w.external[n]
		if !ok {
			continue
		}
		a, live := w.store.Get(apiserver.KindApp, n)
		out = append(out, ExternalRecord{Name: n, UID: uid, Orphan: !live || a.UID != uid})
	}
	return out
}
