package pipeline

import (
	"errors"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// controller is the controller process while it runs: the informer (cache
// and the watch events on their way to it), the workqueue, and the workers.
// Stopping the process loses all of it; starting it again lists the API
// server afresh. The truth is re-read, not remembered.
type controller struct {
	// cache is the informer's copy of the API server. Applying inflight to
	// it, in order, gives exactly the store.
	cache    map[ref]apiserver.Object
	inflight []delivery
	// nextResync is when the periodic resync is due.
	nextResync time.Duration
	queue      *workqueue.Queue
	// queueAt is the world time the queue's clock was last brought to.
	queueAt time.Duration
	// workers holds each worker's reconcile in progress, nil when idle. A
	// key is in at most one of them, and it is the queue's processing set.
	workers []*run
}

func (c *controller) busy() int {
	n := 0
	for _, r := range c.workers {
		if r != nil {
			n++
		}
	}
	return n
}

// start starts the controller process: the informer lists every object
// (its cache is synced before any worker runs, as WaitForCacheSync
// ensures), hands each to the handlers as an add, and the workers start.
func (w *World) start(verb string) {
	c := &controller{
		cache:      map[ref]apiserver.Object{},
		nextResync: w.now + ResyncPeriod,
		queue:      newQueue(w.settings.QueueKind),
		queueAt:    w.now,
		workers:    make([]*run, w.settings.Workers),
	}
	w.store.TakeEvents() // what happened before the list is in the list
	w.ctrl = c
	w.logEvent(Event{Kind: EventController, Verb: verb})
	objs := w.store.List()
	for _, o := range objs {
		c.cache[refOf(o)] = o
	}
	for _, o := range objs {
		w.onAdd(o, "list")
	}
	w.settle()
}

// newQueue makes the controller's queue: controller-runtime's priority
// queue unless UsePriorityQueue is off.
func newQueue(k workqueue.Kind) *workqueue.Queue {
	if k == workqueue.Classic {
		return workqueue.New()
	}
	return workqueue.NewPriority()
}

// stop stops the controller process; reconciles in progress are abandoned
// where they are (their remaining beats never run).
func (w *World) stop(verb string) {
	c := w.ctrl
	w.counters.QueueRetries = min(w.counters.QueueRetries+c.queue.Retries(), MaxCounter)
	w.counters.QueueAdds = min(w.counters.QueueAdds+c.queue.Adds(), MaxCounter)
	w.ctrl = nil
	w.logEvent(Event{Kind: EventController, Verb: verb, N: c.busy()})
}

// syncQueue brings the queue's clock to now; the keys whose wait is over
// become ready, in the order of their ready times.
func (w *World) syncQueue() {
	c := w.ctrl
	d := w.now - c.queueAt
	if d <= 0 {
		return
	}
	if next, ok := c.queue.NextReady(); ok && next <= d {
		for _, k := range c.queue.Waiting() {
			if k.DueIn > d {
				break
			}
			w.logEvent(Event{Kind: EventReady, Key: k.Key})
		}
	}
	c.queue.Advance(d)
	c.queueAt = w.now
}

// actor is who writes to the API server.
type actor struct {
	who    string // user, worker, gc
	worker int
}

var (
	userActor = actor{who: "user"}
	gcActor   = actor{who: "gc"}
)

// ErrTooManyRequests is the API server refusing a write while MaxInflight
// watch events are on their way.
var ErrTooManyRequests = errors.New("too many requests: the API server is behind on its watchers, try again")

// do sends one write to the API server: it is refused while the watch
// backlog is full (the garbage collector excepted), logged, counted, and
// its watch events start on their way. An App's removal is followed by the
// garbage collector deleting what it owns.
func (w *World) do(a actor, verb, kind, name string, write func() (apiserver.Written, error)) (apiserver.Written, error) {
	ev := Event{Kind: EventWrite, Actor: a.who, Worker: a.worker, Verb: verb, Res: kind, Name: name}
	if a != gcActor && w.backlogFull() {
		inc(&w.counters.TooManyRequests)
		ev.Outcome, ev.Reason = "error", ReasonTooManyRequests
		w.logEvent(ev)
		return apiserver.Written{}, ErrTooManyRequests
	}
	wr, err := write()
	switch {
	case err != nil:
		ev.Outcome, ev.Reason = "error", apiserver.Reason(err)
		switch ev.Reason {
		case "Conflict":
			inc(&w.counters.Conflicts)
		case "AlreadyExists":
			inc(&w.counters.AlreadyExists)
		case "NotFound":
			inc(&w.counters.NotFound)
		}
	case !wr.Changed:
		ev.Outcome, ev.RV = "noop", wr.Object.ResourceVersion
		inc(&w.counters.NoopWrites)
	case wr.Removed:
		ev.Outcome, ev.RV = "removed", wr.Object.ResourceVersion
		inc(&w.counters.Writes)
	default:
		ev.Outcome, ev.RV = "ok", wr.Object.ResourceVersion
		inc(&w.counters.Writes)
	}
	w.logEvent(ev)
	w.pump()
	if err == nil && wr.Removed && kind == apiserver.KindApp {
		w.collectGarbage(wr.Object)
	}
	return wr, err
}

func (w *World) backlogFull() bool { return w.ctrl != nil && len(w.ctrl.inflight) >= MaxInflight }

// collectGarbage deletes what the removed App owned. The real garbage
// collector works from its own informers, a moment later; here it acts at
// once, so that no ConfigMap ever outlives its owner.
func (w *World) collectGarbage(owner apiserver.Object) {
	for _, o := range w.store.List() {
		if o.Owner.Kind == apiserver.KindApp && o.Owner.UID == owner.UID {
			w.do(gcActor, "delete", o.Kind, o.Name, func() (apiserver.Written, error) {
				return w.store.Delete(o.Kind, o.Name, w.now)
			})
		}
	}
}

// Result is what a reconcile returns beside its error, as controller-
// runtime's reconcile.Result:
//
//   - an error: the Result is ignored and the key is requeued rate-limited
//     (exponential backoff; its failures count up);
//   - RequeueAfter > 0: the key's failures are Forgotten and it is added
//     again after RequeueAfter;
//   - Requeue (deprecated, still handled): requeued rate-limited, as an
//     error is, but counted under the requeue label, not as an error;
//   - the zero Result: success, the key is Forgotten and waits for the next
//     event.
type Result struct {
	RequeueAfter time.Duration
	Requeue      bool
}

// startReconcile is processNextWorkItem: idle worker i takes the next ready
// key and the reconcile begins.
func (w *World) startReconcile(i int) {
	c := w.ctrl
	key, priority, ok := c.queue.GetWithPriority()
	if !ok {
		return
	}
	r := &run{key: key, name: nameOf(key), worker: i + 1, started: w.now, priority: priority}
	c.workers[i] = r
	w.logEvent(Event{Kind: EventGet, Worker: r.worker, Key: key, Priority: priority})
	w.observe(r)
}

// finish is reconcileHandler's switch over the outcomes, then Done: the one
// place where what a reconcile returned becomes queue operations. The key
// is requeued at the priority it was handed out at.
func (w *World) finish(r *run, res Result, err error) {
	q := w.ctrl.queue
	row := ReportRow{Name: r.name, At: w.now, Worker: r.worker, Took: w.now - r.started, Observed: r.obs,
		Action: r.action, Status: r.status, Reason: reasonOf(err)}
	requeued := func(verb Requeue, n int) {
		s := q.State(r.key)
		row.Requeue, row.RequeueIn = verb, s.DueIn
		ev := Event{Kind: EventRequeue, Key: r.key, Verb: string(verb), Delay: s.DueIn, N: n, Priority: r.priority}
		if !s.Waiting {
			ev.Outcome = "ready"
		}
		w.logEvent(ev)
	}
	switch {
	case err != nil:
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: r.priority}, r.key)
		inc(&w.counters.ReconcileError)
		row.Result = "error"
		requeued(RequeueBackoff, q.NumRequeues(r.key))
	case res.RequeueAfter > 0:
		q.Forget(r.key)
		q.AddWithOpts(workqueue.AddOpts{After: res.RequeueAfter, Priority: r.priority}, r.key)
		inc(&w.counters.ReconcileRequeueAfter)
		row.Result = "requeue_after"
		requeued(RequeueAfter, 0)
	case res.Requeue:
		q.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: r.priority}, r.key)
		inc(&w.counters.ReconcileRequeue)
		row.Result = "requeue"
		requeued(RequeueBackoff, q.NumRequeues(r.key))
	default:
		q.Forget(r.key)
		inc(&w.counters.ReconcileSuccess)
		row.Result, row.Requeue = "success", RequeueNone
	}
	verb := string(r.action)
	if !r.found {
		verb = "gone"
	}
	w.logEvent(Event{Kind: EventReconcile, Worker: r.worker, Key: r.key, Verb: verb, Outcome: row.Result, Reason: row.Reason})
	q.Done(r.key)
	done := Event{Kind: EventDone, Worker: r.worker, Key: r.key}
	if q.State(r.key).Ready {
		done.Outcome = "ready"
	}
	w.logEvent(done)
	w.ctrl.workers[r.worker-1] = nil
	w.last = Completion{Key: r.key, Worker: r.worker, Result: row.Result, Reason: row.Reason, Took: row.Took}
	prev, had := w.report[r.name]
	switch {
	case r.found:
		row.Reconciles = min(prev.Reconciles+1, MaxCounter)
		w.report[r.name] = row
	case had:
		// A reconcile of a gone App leaves the row as its last real
		// reconcile wrote it (cleanup), and only counts.
		prev.Reconciles = min(prev.Reconciles+1, MaxCounter)
		w.report[r.name] = prev
	}
}

// reconcileError is a failure the reconciler returns with a reason of its
// own (not one of the API server's).
type reconcileError struct{ reason string }

func (e reconcileError) Error() string { return e.reason }

func reasonOf(err error) string {
	var re reconcileError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return re.reason
	case errors.Is(err, ErrTooManyRequests):
		return ReasonTooManyRequests
	}
	return apiserver.Reason(err)
}

func nameOf(key string) string { return key[len(apiserver.Namespace)+1:] }
