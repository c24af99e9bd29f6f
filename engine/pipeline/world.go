package pipeline

import (
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

// The demo's names (see doc.go for why).
const (
	// Group is the App kind's API group.
	Group = "demo.example"
	// Finalizer guards an App's external record: the App is not removed
	// until cleanup has deleted the record.
	Finalizer = "demo.example/cleanup"
	// DependencyName is the Secret every App needs before its child can be
	// made (the database credentials).
	DependencyName = "app-db"
	// ChildSuffix names an App's child ConfigMap: app-1 → app-1-config.
	ChildSuffix = "-config"
	// SlowApp is the App TrapSlowObject makes slow.
	SlowApp = "app-1"
	// MaxApps is how many Apps may exist: app-1, app-2, app-3.
	MaxApps = 3
	// MaxWorkers bounds MaxConcurrentReconciles.
	MaxWorkers = 2
)

// AppNames are the only App names a visitor may use.
var AppNames = [MaxApps]string{"app-1", "app-2", "app-3"}

// The timings, in virtual time. Watch, act and report delays are far longer
// than on a real cluster (milliseconds there) so that each stage stays on
// screen long enough to be seen; their order is what matters.
const (
	// WatchDelay is how long a write takes to reach the informer's cache
	// and handlers: a Get from the cache right after a write misses it.
	WatchDelay = 300 * time.Millisecond
	// ActDelay is how long after it starts (observe) a reconcile acts.
	ActDelay = 200 * time.Millisecond
	// ReportDelay is how long after acting it writes status and returns.
	ReportDelay = 200 * time.Millisecond
	// SlowCall is how long SlowApp's external call hangs before it times
	// out (TrapSlowObject).
	SlowCall = 5 * time.Second
	// SleepAfterCreate is how long AfterCreateSleep holds its worker.
	SleepAfterCreate = time.Second
	// NotReadyRequeue is the RequeueAfter of a missing dependency.
	NotReadyRequeue = 5 * time.Second
	// PeriodicShortAfter is TrapStampede's RequeueAfter: far too often.
	PeriodicShortAfter = 500 * time.Millisecond
	// PeriodicLongAfter is its fix.
	PeriodicLongAfter = 30 * time.Second
	// ResyncPeriod is controller-runtime's default SyncPeriod: every cached
	// object is handed to the handlers again this often.
	ResyncPeriod = 10 * time.Hour
)

// Bounds.
const (
	// MaxInflight bounds the watch events on their way to the informer. A
	// user or controller write that would exceed it is refused with
	// TooManyRequests (API priority and fairness); the garbage collector's
	// one delete after a removal is never refused, so the backlog holds at
	// most MaxInflight+1.
	MaxInflight = 16
	// EventLogSize is how many events the log keeps.
	EventLogSize = 120
	// MaxAdvance bounds one Advance: a session that slept longer catches up
	// one hour. An hour of the worst loop (three Apps, two workers, runaway
	// and stampede together) costs about a tenth of a second.
	MaxAdvance = time.Hour
	// MaxClock bounds virtual time (about 31 years).
	MaxClock = 1e12 * time.Millisecond
	// MaxCounter bounds every counter: it stops there.
	MaxCounter = 1 << 53
)

// World is the pipeline demo: an API server, an external system, and the
// controller (informer → workqueue → workers running the reconciler) when
// it is on. It is pure: time passes only in Advance and Step.
type World struct {
	// now is virtual time in whole milliseconds; frac is the caller's
	// remainder below a millisecond, applied when it adds up.
	now  time.Duration
	frac time.Duration

	store *apiserver.Store
	// external holds the external system's records: App name → the uid of
	// the App that made it.
	external map[string]int64
	settings Settings
	// ctrl is the running controller process, nil while it is off.
	ctrl *controller

	report   map[string]ReportRow
	counters Counters
	log      eventLog
	// last is the latest reconcile to finish, for Step.
	last Completion
}

// Completion is one finished reconcile, as Step reports it.
type Completion struct {
	Key    string
	Worker int
	Result string // a ReconcileTotal label: success, error, requeue, requeue_after
	Reason string // why it failed, if it did
	Took   time.Duration
}

// New returns the starting state: the dependency present, one App
// default/app-1 created and reconciled to Ready by the controller, which
// stays on with the default settings (predicate on, status on change, one
// worker). The virtual clock shows the time that took.
func New() *World {
	w := &World{}
	w.init(0, false)
	return w
}

// Reset returns the demo to the starting state; the clock goes on.
func (w *World) Reset() {
	now := w.now
	*w = World{}
	w.init(now, true)
}

func (w *World) init(now time.Duration, reset bool) {
	w.now = now
	w.store = apiserver.NewStore()
	w.external = map[string]int64{}
	w.settings = DefaultSettings()
	w.report = map[string]ReportRow{}
	w.log = eventLog{size: EventLogSize}
	if reset {
		w.logEvent(Event{Kind: EventReset})
	}
	// The starting state is made the way a visitor would make it, so that
	// it is one the engine can reach and the log tells how.
	w.must(w.SetDependency(true))
	w.SetController(true)
	w.must(w.CreateApp(AppNames[0]))
	for range 100 {
		if w.Quiet() {
			return
		}
		at, _ := w.nextAt(false)
		w.runUntil(at)
	}
	panic("pipeline: the starting state does not converge")
}

func (w *World) must(err error) {
	if err != nil {
		panic("pipeline: starting state: " + err.Error())
	}
}

// Now returns the virtual time.
func (w *World) Now() time.Duration { return w.now + w.frac }

// Advance lets d of virtual time pass: watch events reach the informer,
// waiting keys become ready, workers take keys and reconcile, the informer
// resyncs, each at its time. d <= 0 does nothing; d beyond MaxAdvance is
// cut there.
func (w *World) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	total := w.frac + min(d, MaxAdvance)
	whole := total.Truncate(time.Millisecond)
	w.frac = total - whole
	target := w.now + whole
	if target >= MaxClock {
		target, w.frac = MaxClock, 0
	}
	w.runUntil(target)
}

// NextDue returns how much virtual time may pass before something happens
// by itself: a watch event arrives, a waiting key becomes ready, a
// reconcile moves to its next beat, or the informer's periodic resync
// (every ResyncPeriod; so a running controller always has something due,
// at worst ten hours away). It returns false only while the controller is
// off, when nothing happens by itself.
func (w *World) NextDue() (time.Duration, bool) {
	at, ok := w.nextAt(true)
	if !ok {
		return 0, false
	}
	return max(at-w.now-w.frac, 0), true
}

// Quiet reports whether nothing is due but the periodic resync: the world
// has converged (or is stuck waiting on a person).
func (w *World) Quiet() bool {
	_, ok := w.nextAt(false)
	return !ok
}

// nextAt returns the virtual time of the next thing due, with or without the
// periodic resync.
func (w *World) nextAt(withResync bool) (time.Duration, bool) {
	c := w.ctrl
	if c == nil {
		return 0, false
	}
	var at time.Duration
	ok := false
	consider := func(t time.Duration) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	if len(c.inflight) > 0 {
		consider(c.inflight[0].at)
	}
	if d, waiting := c.queue.NextReady(); waiting {
		consider(w.now + d)
	}
	for _, r := range c.workers {
		if r != nil {
			consider(r.due)
		}
	}
	if withResync {
		consider(c.nextResync)
	}
	return at, ok
}

// runUntil moves the clock to target, handling everything due on the way
// at its time.
func (w *World) runUntil(target time.Duration) {
	for {
		at, ok := w.nextAt(true)
		if !ok || at > target {
			break
		}
		w.moveTo(at)
		w.settle()
	}
	w.moveTo(target)
	w.settle()
}

func (w *World) moveTo(t time.Duration) {
	if t > w.now {
		w.now = t
	}
	if w.ctrl != nil {
		w.syncQueue()
	}
}

// settle handles everything due now, in a fixed order, until nothing is:
// watch events first (so a reconcile starting now reads the freshest cache
// it can), then the resync, waiting keys, the workers' next beats, and last
// idle workers taking ready keys.
func (w *World) settle() {
	for progress := true; progress && w.ctrl != nil; {
		progress = false
		c := w.ctrl
		for len(c.inflight) > 0 && c.inflight[0].at <= w.now {
			d := c.inflight[0]
			c.inflight = c.inflight[1:]
			if len(c.inflight) == 0 {
				c.inflight = nil // let the delivered events' objects go
			}
			w.deliver(d)
			progress = true
		}
		if c.nextResync <= w.now {
			w.resync()
			progress = true
		}
		w.syncQueue()
		for _, r := range c.workers {
			if r != nil && r.due <= w.now {
				w.beat(r)
				progress = true
			}
		}
		for i := range c.workers {
			if c.workers[i] == nil && c.queue.Len() > 0 {
				w.startReconcile(i)
				progress = true
			}
		}
	}
}
