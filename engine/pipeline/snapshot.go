package pipeline

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// SnapshotVersion is the version of the snapshots this package writes and
// reads; another version is refused.
const SnapshotVersion = 1

// Snapshot is the whole demo in plain, JSON-ready form: the store, the
// external system, the controller process (cache, watch events on their
// way, queue, reconciles in progress), the settings, the report and the
// counters. Now and the objects' timestamps are absolute virtual
// milliseconds; every "In" or "Due" is relative to Now. The event log is not
// kept: a restored world starts a new one.
type Snapshot struct {
	V          int                `json:"v"`
	Now        int64              `json:"now"`
	Settings   Settings           `json:"settings"`
	Store      apiserver.Snapshot `json:"store"`
	External   []ExternalState    `json:"external,omitempty"`
	Controller *ControllerState   `json:"controller,omitempty"` // nil while off
	Report     []ReportState      `json:"report,omitempty"`
	Counters   Counters           `json:"counters"`
}

// ExternalState is one external record.
type ExternalState struct {
	Name string `json:"name"`
	UID  int64  `json:"uid"`
}

// ControllerState is the running controller process.
type ControllerState struct {
	Cache    []apiserver.ObjectState `json:"cache"`
	InFlight []DeliveryState         `json:"inflight,omitempty"`
	ResyncIn int64                   `json:"resyncIn"`
	Queue    workqueue.Snapshot      `json:"queue"`
	Runs     []RunState              `json:"runs,omitempty"`
}

// DeliveryState is a watch event on its way, arriving In ms from now.
type DeliveryState struct {
	In     int64                 `json:"in"`
	Type   string                `json:"type"`
	Object apiserver.ObjectState `json:"object"`
}

// RunState is a reconcile in progress; its next beat is Due ms from now.
type RunState struct {
	Worker  int    `json:"worker"`
	Name    string `json:"name"`
	Started int64  `json:"started"`
	Phase   string `json:"phase"`
	Due     int64  `json:"due"`
	// Priority is the queue priority the key was handed out at.
	Priority   int                    `json:"priority,omitempty"`
	Observed   ObservedState          `json:"observed"`
	Obj        apiserver.ObjectState  `json:"obj"`
	Child      *apiserver.ObjectState `json:"child,omitempty"`
	Dependency bool                   `json:"dependency,omitempty"`
	Action     string                 `json:"action"`
	Status     string                 `json:"status"`
}

// ObservedState is Observed in a snapshot.
type ObservedState struct {
	RV                 int64  `json:"rv"`
	Generation         int64  `json:"gen"`
	ObservedGeneration int64  `json:"observedGen"`
	Deleting           bool   `json:"deleting,omitempty"`
	Child              string `json:"child"`
	Dependency         bool   `json:"dependency,omitempty"`
}

// ReportState is a ReportRow in a snapshot (times in ms).
type ReportState struct {
	Name       string        `json:"name"`
	At         int64         `json:"at"`
	Worker     int           `json:"worker"`
	Took       int64         `json:"took"`
	Observed   ObservedState `json:"observed"`
	Action     string        `json:"action"`
	Reason     string        `json:"reason,omitempty"`
	Requeue    string        `json:"requeue"`
	RequeueIn  int64         `json:"requeueIn,omitempty"`
	Status     string        `json:"status"`
	Result     string        `json:"result"`
	Reconciles int64         `json:"reconciles"`
}

func ms(d time.Duration) int64 { return int64(d / time.Millisecond) }

func fromMs(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func observedState(o Observed) ObservedState {
	return ObservedState{RV: o.ResourceVersion, Generation: o.Generation, ObservedGeneration: o.ObservedGeneration,
		Deleting: o.Deleting, Child: string(o.Child), Dependency: o.Dependency}
}

// Snapshot returns the demo's snapshot.
func (w *World) Snapshot() Snapshot {
	s := Snapshot{V: SnapshotVersion, Now: ms(w.now), Settings: w.settings, Store: w.store.Snapshot(), Counters: w.counters}
	for _, n := range AppNames {
		if uid, ok := w.external[n]; ok {
			s.External = append(s.External, ExternalState{Name: n, UID: uid})
		}
	}
	for _, r := range w.Report() {
		s.Report = append(s.Report, ReportState{Name: r.Name, At: ms(r.At), Worker: r.Worker, Took: ms(r.Took),
			Observed: observedState(r.Observed), Action: string(r.Action), Reason: r.Reason, Requeue: string(r.Requeue),
			RequeueIn: ms(r.RequeueIn), Status: string(r.Status), Result: r.Result, Reconciles: r.Reconciles})
	}
	c := w.ctrl
	if c == nil {
		return s
	}
	cs := &ControllerState{Cache: []apiserver.ObjectState{}, ResyncIn: ms(c.nextResync - w.now), Queue: c.queue.Snapshot()}
	var buf [PeekSize]apiserver.Object
	for _, o := range w.appendPeekCache(buf[:0]) { // Encode copies
		cs.Cache = append(cs.Cache, apiserver.Encode(o))
	}
	for _, d := range c.inflight {
		cs.InFlight = append(cs.InFlight, DeliveryState{In: ms(d.at - w.now), Type: string(d.ev.Type), Object: apiserver.Encode(d.ev.Object)})
	}
	for _, r := range c.workers {
		if r == nil {
			continue
		}
		rs := RunState{Worker: r.worker, Name: r.name, Started: ms(r.started), Phase: string(r.phase), Due: ms(r.due - w.now),
			Priority: r.priority,
			Observed: observedState(r.obs), Obj: apiserver.Encode(r.obj), Dependency: r.dependency,
			Action: string(r.action), Status: string(r.status)}
		if r.hasChild {
			ch := apiserver.Encode(r.child)
			rs.Child = &ch
		}
		cs.Runs = append(cs.Runs, rs)
	}
	s.Controller = cs
	return s
}

// Restore rebuilds a demo from a snapshot after checking every field and
// bound, and the invariants that tie them together (every ConfigMap owned by
// a live App, the cache plus the watch events on their way equal to the
// store, the queue's processing keys exactly the workers' keys, no idle
// worker beside a ready key). It returns an error, and no world, for any
// snapshot this package could not have written.
func Restore(s Snapshot) (*World, error) {
	w, err := restore(s)
	if err != nil {
		return nil, fmt.Errorf("restore pipeline: %w", err)
	}
	w.logEvent(Event{Kind: EventRestored})
	return w, nil
}

func restore(s Snapshot) (*World, error) {
	if s.V != SnapshotVersion {
		return nil, fmt.Errorf("version %d, want %d", s.V, SnapshotVersion)
	}
	if s.Now < 0 || s.Now > ms(MaxClock) {
		return nil, fmt.Errorf("time %d out of range", s.Now)
	}
	if s.Settings.QueueKind == "" {
		s = withQueueKind(s)
	}
	if err := s.Settings.Validate(); err != nil {
		return nil, err
	}
	now := fromMs(s.Now)
	store, err := apiserver.Restore(s.Store, now)
	if err != nil {
		return nil, err
	}
	objs := store.List()
	if err := checkWorld(objs); err != nil {
		return nil, err
	}
	w := &World{now: now, store: store, external: map[string]int64{}, settings: s.Settings,
		report: map[string]ReportRow{}, log: eventLog{size: EventLogSize}}
	for i, e := range s.External {
		if validApp(e.Name) != nil || i > 0 && s.External[i-1].Name >= e.Name || e.UID < 1 || e.UID > store.ResourceVersion() {
			return nil, fmt.Errorf("external record %+v", e)
		}
		w.external[e.Name] = e.UID
	}
	for i, r := range s.Report {
		row, err := restoreRow(r, now)
		if err != nil {
			return nil, err
		}
		if i > 0 && s.Report[i-1].Name >= r.Name {
			return nil, errors.New("report rows not sorted and unique")
		}
		w.report[r.Name] = row
	}
	if err := checkCounters(s.Counters); err != nil {
		return nil, err
	}
	w.counters = s.Counters
	if s.Controller != nil {
		if w.ctrl, err = restoreController(*s.Controller, w, objs); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// withQueueKind gives a snapshot written before the queue kind was a
// setting (by a build whose controller always ran client-go's queue) its
// kind. With the controller off there is no queue to keep: the setting takes
// its default, the priority queue, which the next start will make. With the
// controller on, the snapshot holds a classic queue; it becomes a priority
// queue if nothing in it is the classic queue's alone (workqueue.Snapshot's
// AsPriority: no key both queued and waiting, the bucket full), and stays
// classic otherwise, rather than lose a wait or the bucket's debt.
func withQueueKind(s Snapshot) Snapshot {
	if s.Controller == nil {
		s.Settings.QueueKind = workqueue.Priority
		return s
	}
	// The old build's queue; a priority queue here is not one it wrote, and
	// the kinds' mismatch refuses it.
	s.Settings.QueueKind = workqueue.Classic
	if s.Controller.Queue.Priority {
		return s
	}
	c := *s.Controller
	q, ok := c.Queue.AsPriority()
	if !ok {
		return s
	}
	c.Queue = q
	s.Controller = &c
	s.Settings.QueueKind = workqueue.Priority
	return s
}

// checkWorld checks what the demo's objects must be: Apps among AppNames
// with at most our finalizer and the conditions our reconciler writes, each
// ConfigMap the child of a live App, the one Secret.
func checkWorld(objs []apiserver.Object) error {
	apps := map[string]int64{}
	for _, o := range objs {
		if o.Kind == apiserver.KindApp {
			apps[o.Name] = o.UID
		}
	}
	for _, o := range objs {
		if err := checkObject(o); err != nil {
			return err
		}
		if o.Kind == apiserver.KindConfigMap {
			if uid, ok := apps[o.Owner.Name]; !ok || uid != o.Owner.UID {
				return fmt.Errorf("ConfigMap %s outlives its owner", o.Name)
			}
		}
	}
	return nil
}

// checkObject checks one object of the demo's, in the store, the cache, a
// watch event or a reconcile's copy.
func checkObject(o apiserver.Object) error {
	bad := func(what string) error { return fmt.Errorf("%s %s: %s", o.Kind, o.Name, what) }
	switch o.Kind {
	case apiserver.KindApp:
		if validApp(o.Name) != nil {
			return bad("not an App name")
		}
		if len(o.Finalizers) > 1 || len(o.Finalizers) == 1 && o.Finalizers[0] != Finalizer {
			return bad("unknown finalizer")
		}
		if len(o.Status.Conditions) > 1 || o.Status.ObservedGeneration > o.Generation {
			return bad("status")
		}
		for _, c := range o.Status.Conditions {
			ok := c.Type == "Ready" && (c.Status == "True" && c.Reason == "Reconciled" ||
				c.Status == "False" && c.Reason == ReasonDependencyMissing)
			if !ok {
				return bad("condition")
			}
		}
	case apiserver.KindConfigMap:
		app, ok := cutSuffix(o.Name, ChildSuffix)
		if !ok || validApp(app) != nil || o.Owner.Kind != apiserver.KindApp || o.Owner.Name != app || len(o.Finalizers) > 0 {
			return bad("not an App's child")
		}
	case apiserver.KindSecret:
		if o.Name != DependencyName || len(o.Finalizers) > 0 || o.Owner != (apiserver.OwnerRef{}) {
			return bad("not the dependency")
		}
	}
	return nil
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || s[len(s)-len(suffix):] != suffix {
		return "", false
	}
	return s[:len(s)-len(suffix)], true
}

func checkCounters(c Counters) error {
	v := reflect.ValueOf(c)
	for i := range v.NumField() {
		if n := v.Field(i).Int(); n < 0 || n > MaxCounter {
			return fmt.Errorf("counter %s = %d out of range", v.Type().Field(i).Name, n)
		}
	}
	return nil
}

func restoreObserved(o ObservedState) (Observed, error) {
	child := ChildState(o.Child)
	if !slices.Contains([]ChildState{ChildAbsent, ChildDiffers, ChildMatches}, child) ||
		o.RV < 1 || o.RV > apiserver.MaxResourceVersion || o.Generation < 1 || o.Generation > o.RV ||
		o.ObservedGeneration < 0 || o.ObservedGeneration > o.Generation {
		return Observed{}, fmt.Errorf("observed %+v", o)
	}
	return Observed{ResourceVersion: o.RV, Generation: o.Generation, ObservedGeneration: o.ObservedGeneration,
		Deleting: o.Deleting, Child: child, Dependency: o.Dependency}, nil
}

var (
	actions  = []Action{ActionCreate, ActionUpdate, ActionNoop, ActionCleanup}
	statuses = []StatusOutcome{StatusWritten, StatusUnchanged, StatusConflict, StatusNone}
	reasons  = []string{"", ReasonDependencyMissing, ReasonTimeout, ReasonNotFound, ReasonTooManyRequests,
		"Conflict", "AlreadyExists", "Invalid"}
)

func restoreRow(r ReportState, now time.Duration) (ReportRow, error) {
	bad := func() (ReportRow, error) { return ReportRow{}, fmt.Errorf("report row %+v", r) }
	obs, err := restoreObserved(r.Observed)
	if err != nil || validApp(r.Name) != nil || r.At < 0 || r.At > ms(now) || r.Took < 0 || r.Took > r.At ||
		r.Worker < 1 || r.Worker > MaxWorkers || r.Reconciles < 1 || r.Reconciles > MaxCounter ||
		!slices.Contains(actions, Action(r.Action)) || !slices.Contains(statuses, StatusOutcome(r.Status)) ||
		!slices.Contains(reasons, r.Reason) || r.RequeueIn < 0 || r.RequeueIn > ms(PeriodicLongAfter+workqueue.MaxDelay) {
		return bad()
	}
	// The result and the requeue decision go together, as finish makes them.
	switch {
	case r.Result == "error" && r.Requeue == string(RequeueBackoff) && r.Reason != "":
	case r.Result == "requeue" && r.Requeue == string(RequeueBackoff) && r.Reason == "":
	case r.Result == "requeue_after" && r.Requeue == string(RequeueAfter) && r.Reason == "":
	case r.Result == "success" && r.Requeue == string(RequeueNone) && r.Reason == "" && r.RequeueIn == 0:
	default:
		return bad()
	}
	return ReportRow{Name: r.Name, At: fromMs(r.At), Worker: r.Worker, Took: fromMs(r.Took), Observed: obs,
		Action: Action(r.Action), Reason: r.Reason, Requeue: Requeue(r.Requeue), RequeueIn: fromMs(r.RequeueIn),
		Status: StatusOutcome(r.Status), Result: r.Result, Reconciles: r.Reconciles}, nil
}

func restoreController(cs ControllerState, w *World, store []apiserver.Object) (*controller, error) {
	rv := w.store.ResourceVersion()
	c := &controller{cache: map[ref]apiserver.Object{}, queueAt: w.now, workers: make([]*run, w.settings.Workers)}
	for i, st := range cs.Cache {
		o, err := apiserver.Decode(st, w.now, rv)
		if err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		if err := checkObject(o); err != nil || !stored(o) {
			return nil, fmt.Errorf("cache: %s %s", st.Kind, st.Name)
		}
		if i > 0 && !before(cs.Cache[i-1], st) {
			return nil, errors.New("cache not sorted and unique")
		}
		c.cache[refOf(o)] = o
	}
	if len(cs.InFlight) > MaxInflight+1 {
		return nil, fmt.Errorf("%d watch events on their way, at most %d", len(cs.InFlight), MaxInflight+1)
	}
	// Replaying the events on their way over the cache must give the store.
	replay := map[ref]apiserver.Object{}
	for k, o := range c.cache {
		replay[k] = o
	}
	var lastIn, lastRV int64 = 1, 0
	for _, d := range cs.InFlight {
		o, err := apiserver.Decode(d.Object, w.now, rv)
		if err != nil {
			return nil, fmt.Errorf("watch event: %w", err)
		}
		t := apiserver.EventType(d.Type)
		if t != apiserver.Added && t != apiserver.Modified && t != apiserver.Deleted || checkObject(o) != nil ||
			t != apiserver.Deleted && !stored(o) ||
			d.In < lastIn || d.In > ms(WatchDelay) || o.ResourceVersion <= lastRV {
			return nil, fmt.Errorf("watch event %s %s/%s in %d ms", d.Type, d.Object.Kind, d.Object.Name, d.In)
		}
		lastIn, lastRV = d.In, o.ResourceVersion
		if t == apiserver.Deleted {
			delete(replay, refOf(o))
		} else {
			replay[refOf(o)] = o
		}
		c.inflight = append(c.inflight, delivery{at: w.now + fromMs(d.In), ev: apiserver.WatchEvent{Type: t, Object: o}})
	}
	if len(replay) != len(store) {
		return nil, errors.New("cache and watch events do not add up to the store")
	}
	for _, o := range store {
		if got, ok := replay[refOf(o)]; !ok || !reflect.DeepEqual(got, o) {
			return nil, fmt.Errorf("cache and watch events do not add up to the store at %s %s", o.Kind, o.Name)
		}
	}
	if cs.ResyncIn < 1 || cs.ResyncIn > ms(ResyncPeriod) {
		return nil, fmt.Errorf("resync in %d ms out of range", cs.ResyncIn)
	}
	c.nextResync = w.now + fromMs(cs.ResyncIn)
	q, err := workqueue.Restore(cs.Queue)
	if err != nil {
		return nil, err
	}
	if q.Kind() != w.settings.QueueKind {
		return nil, fmt.Errorf("a %s queue under queueKind %s", q.Kind(), w.settings.QueueKind)
	}
	c.queue = q
	for _, k := range q.Keys() {
		if !validKey(k.Key) || !validPriority(k.Priority) {
			return nil, fmt.Errorf("queue key %q at priority %d", k.Key, k.Priority)
		}
	}
	for _, rs := range cs.Runs {
		r, err := restoreRun(rs, w, rv)
		if err != nil {
			return nil, err
		}
		if c.workers[r.worker-1] != nil {
			return nil, fmt.Errorf("worker %d twice", r.worker)
		}
		c.workers[r.worker-1] = r
		if !q.State(r.key).Processing {
			return nil, fmt.Errorf("%s on worker %d is not processing in the queue", r.key, r.worker)
		}
		if r.priority != 0 && q.Kind() == workqueue.Classic {
			return nil, fmt.Errorf("%s on worker %d has a priority on the classic queue", r.key, r.worker)
		}
	}
	if c.busy() != q.Processing() {
		return nil, errors.New("the queue processes keys no worker holds")
	}
	if c.busy() < len(c.workers) && q.Len() > 0 {
		return nil, errors.New("a worker is idle beside a ready key")
	}
	return c, nil
}

// validPriority: the controller's adds are at the default priority or,
// for the initial list and resyncs, at workqueue.LowPriority.
func validPriority(p int) bool { return p == 0 || p == workqueue.LowPriority }

// stored reports whether o could be stored: an object being deleted keeps
// at least one finalizer, or it is removed.
func stored(o apiserver.Object) bool { return !o.Deleting() || len(o.Finalizers) > 0 }

func before(a, b apiserver.ObjectState) bool {
	return a.Kind < b.Kind || a.Kind == b.Kind && a.Name < b.Name
}

func validKey(key string) bool {
	name, ok := cutPrefix(key, apiserver.Namespace+"/")
	return ok && validApp(name) == nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return "", false
	}
	return s[len(prefix):], true
}

func restoreRun(rs RunState, w *World, rv int64) (*run, error) {
	bad := func(what string) error {
		return fmt.Errorf("reconcile of %q on worker %d: %s", rs.Name, rs.Worker, what)
	}
	if rs.Worker < 1 || rs.Worker > w.settings.Workers || validApp(rs.Name) != nil {
		return nil, bad("worker or name")
	}
	if rs.Started < 0 || rs.Started > ms(w.now) {
		return nil, bad("start time")
	}
	limit := map[phase]time.Duration{phaseAct: ActDelay, phaseExternal: SlowCall, phaseReadBack: SleepAfterCreate,
		phaseReport: ReportDelay}
	p := phase(rs.Phase)
	max, ok := limit[p]
	if !ok || rs.Due < 1 || rs.Due > ms(max) {
		return nil, bad("phase or due time")
	}
	if !validPriority(rs.Priority) {
		return nil, bad("priority")
	}
	if p == phaseExternal && !(w.settings.SlowObject && rs.Name == SlowApp) ||
		p == phaseReadBack && w.settings.AfterCreate != AfterCreateSleep {
		return nil, bad("a phase these settings never reach")
	}
	obs, err := restoreObserved(rs.Observed)
	if err != nil {
		return nil, bad(err.Error())
	}
	obj, err := apiserver.Decode(rs.Obj, w.now, rv)
	if err != nil || obj.Kind != apiserver.KindApp || obj.Name != rs.Name || checkObject(obj) != nil || !stored(obj) {
		return nil, bad("its App")
	}
	r := &run{key: apiserver.Namespace + "/" + rs.Name, name: rs.Name, worker: rs.Worker, started: fromMs(rs.Started),
		phase: p, due: w.now + fromMs(rs.Due), priority: rs.Priority, found: true, obs: obs, obj: obj, dependency: rs.Dependency,
		action: Action(rs.Action), status: StatusOutcome(rs.Status)}
	if rs.Child != nil {
		ch, err := apiserver.Decode(*rs.Child, w.now, rv)
		if err != nil || ch.Kind != apiserver.KindConfigMap || ch.Name != childName(rs.Name) || checkObject(ch) != nil || !stored(ch) {
			return nil, bad("its child")
		}
		r.child, r.hasChild = ch, true
	}
	if !slices.Contains(actions, r.action) || !slices.Contains(statuses, r.status) {
		return nil, bad("action or status")
	}
	return r, nil
}

// AppendSnapshotJSON appends Snapshot() as json.Marshal writes it, without
// building it: the page's snapshot is written on every frame. (The fuzzer
// and TestAppendSnapshotJSONAsMarshal hold the two to the same bytes.)
func (w *World) AppendSnapshotJSON(b []byte) []byte {
	b = jsonw.IntField(append(b, '{'), "v", SnapshotVersion)
	b = jsonw.IntField(b, "now", ms(w.now))
	b = w.settings.appendJSON(jsonw.Field(b, "settings"))
	b = w.store.AppendSnapshotJSON(jsonw.Field(b, "store"))
	var ext [MaxApps]ExternalState
	external := ext[:0]
	for _, n := range AppNames {
		if uid, ok := w.external[n]; ok {
			external = append(external, ExternalState{Name: n, UID: uid})
		}
	}
	b = jsonw.OmitArray(b, "external", external, func(b []byte, e ExternalState) []byte {
		return append(jsonw.IntField(jsonw.StringField(append(b, '{'), "name", e.Name), "uid", e.UID), '}')
	})
	if c := w.ctrl; c != nil {
		b = w.appendControllerJSON(jsonw.Field(b, "controller"), c)
	}
	var rep [MaxApps]ReportRow
	b = jsonw.OmitArray(b, "report", w.appendReport(rep[:0]), func(b []byte, r ReportRow) []byte {
		b = jsonw.StringField(append(b, '{'), "name", r.Name)
		b = jsonw.IntField(b, "at", ms(r.At))
		b = jsonw.IntField(b, "worker", int64(r.Worker))
		b = jsonw.IntField(b, "took", ms(r.Took))
		b = appendObservedJSON(jsonw.Field(b, "observed"), r.Observed)
		b = jsonw.StringField(b, "action", string(r.Action))
		b = jsonw.OmitString(b, "reason", r.Reason)
		b = jsonw.StringField(b, "requeue", string(r.Requeue))
		b = jsonw.OmitInt(b, "requeueIn", ms(r.RequeueIn))
		b = jsonw.StringField(b, "status", string(r.Status))
		b = jsonw.StringField(b, "result", r.Result)
		return append(jsonw.IntField(b, "reconciles", r.Reconciles), '}')
	})
	return append(w.counters.appendJSON(jsonw.Field(b, "counters")), '}')
}

func (w *World) appendControllerJSON(b []byte, c *controller) []byte {
	b = append(jsonw.Field(append(b, '{'), "cache"), '[')
	var buf [PeekSize]apiserver.Object
	for _, o := range w.appendPeekCache(buf[:0]) {
		b = apiserver.AppendJSON(jsonw.Comma(b), o)
	}
	b = append(b, ']')
	now := w.now
	b = jsonw.OmitArray(b, "inflight", c.inflight, func(b []byte, d delivery) []byte {
		b = jsonw.StringField(jsonw.IntField(append(b, '{'), "in", ms(d.at-now)), "type", string(d.ev.Type))
		return append(apiserver.AppendJSON(jsonw.Field(b, "object"), d.ev.Object), '}')
	})
	b = jsonw.IntField(b, "resyncIn", ms(c.nextResync-w.now))
	q := c.queue.Snapshot()
	b = q.AppendJSON(jsonw.Field(b, "queue"))
	var busy [MaxWorkers]*run
	runs := busy[:0]
	for _, r := range c.workers {
		if r != nil {
			runs = append(runs, r)
		}
	}
	b = jsonw.OmitArray(b, "runs", runs, func(b []byte, r *run) []byte {
		b = jsonw.IntField(append(b, '{'), "worker", int64(r.worker))
		b = jsonw.StringField(b, "name", r.name)
		b = jsonw.IntField(b, "started", ms(r.started))
		b = jsonw.StringField(b, "phase", string(r.phase))
		b = jsonw.IntField(b, "due", ms(r.due-now))
		b = jsonw.OmitInt(b, "priority", int64(r.priority))
		b = appendObservedJSON(jsonw.Field(b, "observed"), r.obs)
		b = apiserver.AppendJSON(jsonw.Field(b, "obj"), r.obj)
		if r.hasChild {
			b = apiserver.AppendJSON(jsonw.Field(b, "child"), r.child)
		}
		b = jsonw.OmitBool(b, "dependency", r.dependency)
		b = jsonw.StringField(b, "action", string(r.action))
		return append(jsonw.StringField(b, "status", string(r.status)), '}')
	})
	return append(b, '}')
}

// appendObservedJSON appends observedState(o) as json.Marshal writes it.
func appendObservedJSON(b []byte, o Observed) []byte {
	b = jsonw.IntField(append(b, '{'), "rv", o.ResourceVersion)
	b = jsonw.IntField(b, "gen", o.Generation)
	b = jsonw.IntField(b, "observedGen", o.ObservedGeneration)
	b = jsonw.OmitBool(b, "deleting", o.Deleting)
	b = jsonw.StringField(b, "child", string(o.Child))
	return append(jsonw.OmitBool(b, "dependency", o.Dependency), '}')
}

// appendJSON appends s as json.Marshal writes it.
func (s *Settings) appendJSON(b []byte) []byte {
	b = jsonw.BoolField(append(b, '{'), "predicate", s.Predicate)
	b = jsonw.StringField(b, "statusWrite", string(s.StatusWrite))
	b = jsonw.StringField(b, "notReady", string(s.NotReady))
	b = jsonw.IntField(b, "workers", int64(s.Workers))
	b = jsonw.StringField(b, "statusFrom", string(s.StatusFrom))
	b = jsonw.StringField(b, "childWrite", string(s.ChildWrite))
	b = jsonw.StringField(b, "afterCreate", string(s.AfterCreate))
	b = jsonw.BoolField(b, "slowObject", s.SlowObject)
	b = jsonw.StringField(b, "periodic", string(s.Periodic))
	b = jsonw.StringField(b, "queueKind", string(s.QueueKind))
	return append(jsonw.OmitBool(b, "secretWatch", s.SecretWatch), '}')
}

// appendJSON appends c as json.Marshal writes it.
func (c *Counters) appendJSON(b []byte) []byte {
	b = jsonw.OmitInt(append(b, '{'), "success", c.ReconcileSuccess)
	b = jsonw.OmitInt(b, "error", c.ReconcileError)
	b = jsonw.OmitInt(b, "requeue", c.ReconcileRequeue)
	b = jsonw.OmitInt(b, "requeueAfter", c.ReconcileRequeueAfter)
	b = jsonw.OmitInt(b, "writes", c.Writes)
	b = jsonw.OmitInt(b, "noopWrites", c.NoopWrites)
	b = jsonw.OmitInt(b, "conflicts", c.Conflicts)
	b = jsonw.OmitInt(b, "alreadyExists", c.AlreadyExists)
	b = jsonw.OmitInt(b, "notFound", c.NotFound)
	b = jsonw.OmitInt(b, "tooManyRequests", c.TooManyRequests)
	b = jsonw.OmitInt(b, "externalCalls", c.ExternalCalls)
	b = jsonw.OmitInt(b, "watchEvents", c.WatchEvents)
	b = jsonw.OmitInt(b, "queueRetries", c.QueueRetries)
	return append(jsonw.OmitInt(b, "queueAdds", c.QueueAdds), '}')
}
