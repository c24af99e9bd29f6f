package pipeline

import "time"

// Event is one line of the page's log, structured so the page can say it in
// any language. Which fields are set depends on Kind (see the constants).
type Event struct {
	Seq  int64         // increases by one per event, for stable keys
	At   time.Duration // virtual time
	Kind string
	// Actor wrote (EventWrite): "user", "worker" or "gc".
	Actor string
	// Worker is the 1-based worker concerned, 0 for none.
	Worker int
	Verb   string
	// Res and Name are the object concerned: its kind and name.
	Res  string
	Name string
	// Key is the workqueue key concerned ("default/app-1").
	Key     string
	Outcome string
	// Reason names an error (apiserver.Reason, or one of the Reason
	// constants).
	Reason string
	RV     int64
	Delay  time.Duration
	N      int
}

// Event kinds.
const (
	// EventWrite: Actor (Worker) sent Verb (create, update, update-status,
	// apply, apply-status, delete) for Res/Name; Outcome ok (RV is the new
	// resourceVersion), noop (nothing changed: RV unchanged), or an error
	// (Reason: Conflict, AlreadyExists, NotFound, Invalid,
	// TooManyRequests). Outcome removed: the object is gone.
	EventWrite = "write"
	// EventWatch: the informer received Verb (ADDED, MODIFIED, DELETED) of
	// Res/Name at RV, WatchDelay after the write, and updated its cache.
	EventWatch = "watch"
	// EventEnqueue: a handler asked for Key; Verb is the source (list,
	// for, owns, resync) and Res/Name the object whose event it was;
	// Outcome added (now ready), collapsed (already ready), dirty (being
	// processed: handed out again after Done) or filtered (dropped by
	// GenerationChangedPredicate).
	EventEnqueue = "enqueue"
	// EventReady: Key's wait is over (backoff or RequeueAfter).
	EventReady = "ready"
	// EventGet: Worker took Key from the queue: the reconcile starts by
	// observing (reads from the cache).
	EventGet = "get"
	// EventReconcile: Worker's reconcile of Key returned; Verb is its action
	// (create, update, noop, cleanup, gone), Outcome its result (success,
	// error, requeue_after), Reason its error.
	EventReconcile = "reconcile"
	// EventRequeue: Key goes back to wait; Verb after (RequeueAfter, its
	// failures Forgotten) or backoff (rate limited; N failures), Delay.
	EventRequeue = "requeue"
	// EventDone: Worker called Done(Key); Outcome ready when the key was
	// added while it was processed and is ready again at once.
	EventDone = "done"
	// EventExternal: Worker called the external API: Verb ensure or delete
	// for Name; Outcome created, exists, deleted, absent, calling (the call
	// hangs) or timeout.
	EventExternal = "external"
	// EventResync: the informer handed every cached object to the handlers
	// again; Verb periodic or step.
	EventResync = "resync"
	// EventController: the controller process Verb start, stop or restart
	// (new settings); N reconciles were abandoned mid-way.
	EventController = "controller"
	// EventSettings: the settings changed (Verb names the field).
	EventSettings = "settings"
	EventReset    = "reset"
	EventRestored = "restored"
)

// eventLog keeps the newest events in a ring of size entries.
type eventLog struct {
	ring  []Event
	start int
	seq   int64
	size  int
}

func (l *eventLog) add(e Event) {
	l.seq = min(l.seq+1, MaxCounter)
	e.Seq = l.seq
	if len(l.ring) < l.size {
		l.ring = append(l.ring, e)
		return
	}
	l.ring[l.start] = e
	l.start = (l.start + 1) % l.size
}

func (l *eventLog) list() []Event {
	out := make([]Event, 0, len(l.ring))
	out = append(out, l.ring[l.start:]...)
	return append(out, l.ring[:l.start]...)
}

func (w *World) logEvent(e Event) {
	e.At = w.now
	w.log.add(e)
}

// Events returns the log, oldest first: at most EventLogSize events.
func (w *World) Events() []Event { return w.log.list() }
