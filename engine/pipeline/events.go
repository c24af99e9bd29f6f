package pipeline

import (
	"iter"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

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
	// Priority is the workqueue priority of an enqueue (after the add), a
	// get (the key was handed out at) or a requeue (it is requeued at): 0,
	// or workqueue.LowPriority for the initial list's and the resyncs' adds
	// on the priority queue.
	Priority int
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
	// for, owns, watches, resync) and Res/Name the object whose event it
	// was; Outcome added (now ready; on the priority queue this ends a
	// wait), collapsed (already ready), dirty (being processed: handed out
	// again after Done) or filtered (dropped by GenerationChangedPredicate);
	// Priority the key's priority after the add; Delay the wait the add
	// ended (the priority queue consumes a waiting key's wait; 0 when the
	// key did not wait, and on the classic queue, whose wait stands).
	EventEnqueue = "enqueue"
	// EventReady: Key's wait is over (backoff or RequeueAfter).
	EventReady = "ready"
	// EventGet: Worker took Key from the queue: the reconcile starts by
	// observing (reads from the cache).
	EventGet = "get"
	// EventReconcile: Worker's reconcile of Key returned; Verb is its action
	// (create, update, noop, cleanup, gone), Outcome its result (success,
	// error, requeue, requeue_after), Reason its error.
	EventReconcile = "reconcile"
	// EventRequeue: Key goes back to wait; Verb after (RequeueAfter, its
	// failures Forgotten) or backoff (rate limited, after an error or
	// Requeue: true; N failures), Delay. Outcome ready: the key was already
	// queued to run again (an event came while it was processed), and on
	// the priority queue that wait is moot: Delay is 0.
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

// eventLog keeps the newest events in a ring of size entries. It keeps them
// compact: an Event's strings all come from a small closed vocabulary (event
// kinds, verbs, outcomes, reasons, the demo's kinds, names and keys), so the
// ring stores an index for each, and a full ring of EventLogSize events
// takes about 8 KB instead of 21 (every session of the demo holds one).
type eventLog struct {
	ring []record
	// odd holds, by their slot in ring, the events that do not pack.
	odd   map[int]Event
	start int
	seq   int64
	size  int
}

// record is one Event in the ring: its strings as indices into vocabulary.
// An event that does not fit (a string outside the vocabulary, a worker
// beyond int32) is kept whole in the log's odd instead; none does today.
// A record holds no pointer, so the collector never scans the ring: the
// largest part of a busy session's heap, marked on every cycle, it made
// the collections of a loaded server longer.
type record struct {
	seq, rv, n int64
	at, delay  time.Duration
	worker     int32
	priority   int32
	words      [8]uint8 // Kind, Actor, Verb, Res, Name, Key, Outcome, Reason
	odd        bool     // the event is in the log's odd, at this slot
}

// vocabulary is every string an Event field takes, "" first. It is built
// once and never changes.
var vocabulary = func() []string {
	v := []string{"",
		EventWrite, EventWatch, EventEnqueue, EventReady, EventGet, EventReconcile, EventRequeue, EventDone,
		EventExternal, EventResync, EventController, EventSettings, EventReset, EventRestored,
		userActor.who, "worker", gcActor.who,
		"create", "update", "update-status", "apply", "apply-status", "delete",
		string(apiserver.Added), string(apiserver.Modified), string(apiserver.Deleted),
		"list", "for", "owns", "resync", "periodic", "step", "start", "stop", "restart", "ensure",
		string(ActionNoop), string(ActionCleanup), "gone", string(RequeueAfter), string(RequeueBackoff),
		"predicate", "statusWrite", "notReady", "workers", "statusFrom", "childWrite", "afterCreate", "slowObject",
		apiserver.KindApp, apiserver.KindConfigMap, apiserver.KindSecret, DependencyName,
		"ok", "noop", "removed", "error", "added", "collapsed", "dirty", "filtered", "ready", "success",
		"requeue_after", "created", "exists", "deleted", "absent", "calling", "timeout",
		"Conflict", "AlreadyExists", "NotFound", "Invalid", ReasonDependencyMissing, ReasonTimeout,
		ReasonTooManyRequests,
		"watches", "requeue", "queueKind", "secretWatch"}
	for _, n := range AppNames {
		v = append(v, n, childName(n), apiserver.Namespace+"/"+n)
	}
	return v
}()

// vocabularyIndex maps each string of vocabulary to its index.
var vocabularyIndex = func() map[string]uint8 {
	m := make(map[string]uint8, len(vocabulary))
	for i, w := range vocabulary {
		if _, dup := m[w]; !dup {
			m[w] = uint8(i)
		}
	}
	return m
}()

// pack packs e, or reports that it does not fit a record.
func pack(e Event) (record, bool) {
	r := record{seq: e.Seq, rv: e.RV, n: int64(e.N), at: e.At, delay: e.Delay, worker: int32(e.Worker),
		priority: int32(e.Priority)}
	for i, s := range [8]string{e.Kind, e.Actor, e.Verb, e.Res, e.Name, e.Key, e.Outcome, e.Reason} {
		x, ok := vocabularyIndex[s]
		if !ok || int(r.worker) != e.Worker || int(r.priority) != e.Priority {
			return record{seq: e.Seq, odd: true}, false
		}
		r.words[i] = x
	}
	return r, true
}

// event returns the event in ring slot i.
func (l *eventLog) event(i int) Event {
	r := &l.ring[i]
	if r.odd {
		return l.odd[i]
	}
	w := func(i int) string { return vocabulary[r.words[i]] }
	return Event{Seq: r.seq, At: r.at, Kind: w(0), Actor: w(1), Worker: int(r.worker), Verb: w(2), Res: w(3),
		Name: w(4), Key: w(5), Outcome: w(6), Reason: w(7), RV: r.rv, Delay: r.delay, N: int(r.n), Priority: int(r.priority)}
}

func (l *eventLog) add(e Event) {
	l.seq = min(l.seq+1, MaxCounter)
	e.Seq = l.seq
	slot := len(l.ring)
	if slot < l.size {
		l.ring = append(l.ring, record{})
	} else {
		slot, l.start = l.start, (l.start+1)%l.size
	}
	r, ok := pack(e)
	switch {
	case !ok:
		if l.odd == nil {
			l.odd = map[int]Event{}
		}
		l.odd[slot] = e
	case l.ring[slot].odd:
		delete(l.odd, slot)
	}
	l.ring[slot] = r
}

func (l *eventLog) list() []Event {
	out := make([]Event, 0, len(l.ring))
	for i := range l.ring {
		out = append(out, l.event((l.start+i)%len(l.ring)))
	}
	return out
}

func (w *World) logEvent(e Event) {
	e.At = w.now
	w.log.add(e)
}

// Events returns the log, oldest first: at most EventLogSize events.
func (w *World) Events() []Event { return w.log.list() }

// NewestKinds yields the log's events newest first as their numbers and
// kinds only, unpacking nothing else: for a reader that looks for the
// newest events of a kind.
func (w *World) NewestKinds() iter.Seq2[int64, string] {
	return func(yield func(int64, string) bool) {
		l := &w.log
		for i := len(l.ring) - 1; i >= 0; i-- {
			j := (l.start + i) % len(l.ring)
			r := &l.ring[j]
			seq, kind := r.seq, vocabulary[r.words[0]]
			if r.odd {
				kind = l.odd[j].Kind
			}
			if !yield(seq, kind) {
				return
			}
		}
	}
}

// LogMark names the log's contents: it changes whenever an event is logged
// (even past MaxCounter, when the ring has moved on), so a reader of the
// newest events may keep what it read while the mark stays.
type LogMark struct {
	seq      int64
	start, n int
}

// LogMark returns the log's mark now.
func (w *World) LogMark() LogMark { return LogMark{w.log.seq, w.log.start, len(w.log.ring)} }

// NewestEvents yields the log's events newest first, without copying the
// log: a page that shows its last lines reads only those.
func (w *World) NewestEvents() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		l := &w.log
		for i := len(l.ring) - 1; i >= 0; i-- {
			if !yield(l.event((l.start + i) % len(l.ring))) {
				return
			}
		}
	}
}
