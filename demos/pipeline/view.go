package pipeline

import (
	"cmp"
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the engine's views into the components' props, lane by
// lane. Every sentence comes from the catalog; every time is absolute
// virtual time (ui.ClockText) or a countdown the page runs (ui.ETA), so no
// fragment changes with time alone.

// How much of the engine's history the page shows: the newest events only,
// so that a runaway loop keeps its frames small.
const (
	logLines    = 12
	writeLines  = 6
	flightLines = 6 // watch events on their way shown (of up to 17)
)

// Props is the demo's state as its components lay it out; each fragment
// fills only the fields it reads.
type Props struct {
	Lang     ui.Lang
	ReadOnly bool // a room's follower watches but cannot act
	On       bool // the controller runs

	Metrics  MetricsProps
	API      APIProps
	Cache    CacheProps
	Queue    QueueProps
	Limiter  LimiterProps
	Workers  []WorkerProps
	Writes   []WriteProps
	Settings SettingsProps
	Trap     TrapProps // one trap's item (trapItem)
	Report   []RowProps
}

// MetricsProps is the metrics strip, under controller-runtime's names.
type MetricsProps struct {
	Total, Success, Error, RequeueAfter int64
	Requeue                             int64 // Result{Requeue: true}
	Depth                               int
	Retries, Adds                       int64
	External                            int64
	Conflicts, AlreadyExists, NotFound  int64
	TooManyRequests                     int64
	Writes, NoopWrites                  int64
	Active, Workers                     int
}

// APIProps is lane ①: what the API server stores, and what it does not know.
type APIProps struct {
	RV         int64
	Apps       []AppProps
	Secret     bool
	SecretRV   int64
	External   []ExternalProps
	CreateName string // the next free App name; "" when all three exist
}

// AppProps is one App as `kubectl get -o yaml` would show it, compacted,
// with the child ConfigMap it owns.
type AppProps struct {
	Name, Key          string
	UID, RV            int64
	Generation         int64
	ObservedGeneration int64
	Deleting           bool
	DeletionAt         string
	Finalizers         []string
	LogLevel           string
	NextLogLevel       string
	Ready              string // the Ready condition's status: True, False or "" (none yet)
	ReadyReason        string
	ReadySince         string
	LastReconcile      string // "" when not written
	Child              *ChildProps
}

// ChildProps is one child ConfigMap.
type ChildProps struct {
	Name, Key string
	Owner     string // its App's name
	RV        int64
	LogLevel  string
	// NextLogLevel is what an edit by hand writes into data.logLevel.
	NextLogLevel string
	// Matches: data.logLevel is what its App's spec asks for.
	Matches bool
}

// ExternalProps is one record of the external system.
type ExternalProps struct {
	Name   string
	UID    int64
	Orphan bool
}

// CacheProps is lane ②: the informer's cache against the store, and the
// watch events on their way.
type CacheProps struct {
	Entries  []CacheEntry
	InFlight []FlightProps // the first flightLines
	Flights  int           // how many are on their way
}

// CacheEntry is one object of the cache or the store. State is fresh (the
// store's resourceVersion), stale (an older one), missing (in the store, not
// yet in the cache) or gone (removed from the store, still cached).
type CacheEntry struct {
	Kind, Name string
	RV         int64
	StoreRV    int64
	Generation int64
	State      string
}

// FlightProps is one watch event on its way to the informer.
type FlightProps struct {
	Type, Kind, Name string
	RV               int64
	ETA              *ui.ETA
}

// QueueProps is lane ③: the workqueue's keys.
type QueueProps struct {
	Depth int
	Items []QueueItem
}

// QueueItem is one key: ready (Pos in line), processing (by Worker), or
// waiting (until ETA), with its failures and its priority (Low: the
// initial list's or a resync's add, on the priority queue).
type QueueItem struct {
	Key      string
	State    string
	Pos      int
	Worker   int
	Dirty    bool
	Failures int
	Priority int
	ETA      *ui.ETA
}

// LimiterProps is the rate limiter panel beside lane ③: the limiter's kind
// (item-exponential on the priority queue, max-of on the classic one), the
// classic queue's token bucket, and each failing key.
type LimiterProps struct {
	Kind          string
	Bucket        bool
	Tokens, Burst int
	Keys          []LimitedProps
}

// LimitedProps is one failing key: its failures and the wait its next
// failure would get.
type LimitedProps struct {
	Key         string
	Failures    int
	NextDelay   string
	NextDelayMs int64
}

// WorkerProps is lane ④: one worker and the beat its reconcile is in.
type WorkerProps struct {
	N       int
	Busy    bool
	Key     string
	Phase   string // the engine's next beat: act, external, read-back, report
	Beats   []BeatProps
	Started string
	ETA     *ui.ETA
	Seen    string // what observe read
	Action  string
}

// BeatProps is one of chapter 001's four beats: done, now or next.
type BeatProps struct {
	Name  string
	State string
}

// WriteProps is lane ⑤: one write to the API server and its outcome.
type WriteProps struct {
	Seq     int64
	At      string
	Outcome string // ok, noop, removed, error
	Reason  string
	ActorID string // user, worker, gc
	Actor   string
	Verb    string
	Res     string
	Name    string
	Text    string
}

// SettingsProps is the settings bar: each one button that flips.
type SettingsProps struct {
	Dependency  bool
	NotReady    string // error | requeue | requeue-true
	StatusWrite string // always | on-change
	Predicate   bool
	Workers     int
	QueueKind   string // priority | classic
	SecretWatch bool
}

// TrapProps is one trap of the traps panel.
type TrapProps struct {
	Name    string
	On      bool
	Title   string
	Cause   string
	Symptom string
	Fix     string
	Why     string // what is easily misread about the cause, when the trap is on
	Now     string // the trap's settings as they are
	Custom  bool   // they are not the starting state's
	Fixes   []ButtonProps
	Trigger *ButtonProps // what shows the symptom, when it takes one more click
}

// ButtonProps is a button that sends an action.
type ButtonProps struct {
	ID    string
	Label string
	Vals  string
	Fix   string // data-fix: action:value
	Wrong bool   // the chapter's "most common wrong answer"
	Done  bool   // already in place
}

// RowProps is one row of chapter 001's lab report.
type RowProps struct {
	Key, Name  string
	At         string
	Worker     int
	Took       string
	Seen       string
	Action     string
	Reason     string
	Requeue    string
	RequeueIn  string
	RequeueMs  int64
	Status     string
	Result     string
	Reconciles int64
}

// The fragments: each builds the props it reads, from the engine's views,
// for a viewer (a room's follower sees every button disabled), as it is
// rendered (panel).

// panel renders comp with the props fill writes for d and viewer v, in a
// Props from propsPool given back once it is written: a fragment's Props is
// large, and each frame made one for each fragment it rendered only to drop
// it. fill is a plain function, not a closure over the frame's view: a
// fragment rendered costs one small component, nothing more.
func panel(comp func(*Props) templ.Component, fill func(d *Demo, v viewer, p *Props), d *Demo, v demo.View) templ.Component {
	return &panelComp{comp: comp, fill: fill, d: d, v: viewer{lang: v.Lang, readOnly: readOnly(v)}}
}

// viewer is what of a frame's view a fragment's props read.
type viewer struct {
	lang     ui.Lang
	readOnly bool // a room's follower: every button disabled
}

type panelComp struct {
	comp func(*Props) templ.Component
	fill func(d *Demo, v viewer, p *Props)
	d    *Demo
	v    viewer
}

func (c *panelComp) Render(ctx context.Context, w io.Writer) error {
	p := propsPool.Get().(*Props)
	c.fill(c.d, c.v, p)
	err := c.comp(p).Render(ctx, w)
	*p = Props{}
	propsPool.Put(p)
	return err
}

var propsPool = sync.Pool{New: func() any { return new(Props) }}

func (d *Demo) metricsFrag(v demo.View) templ.Component {
	return panel(metricsStrip, fillMetrics, d, v)
}

func fillMetrics(d *Demo, v viewer, p *Props) {
	*p = Props{Lang: v.lang, Metrics: metricsProps(d.World().Metrics())}
}

func (d *Demo) apiFrag(v demo.View) templ.Component { return panel(apiLane, fillAPI, d, v) }

func fillAPI(d *Demo, v viewer, p *Props) {
	w := d.World()
	var objs [engine.PeekSize]apiserver.Object
	*p = Props{Lang: v.lang, ReadOnly: v.readOnly, API: apiProps(w, w.AppendPeekObjects(objs[:0]))}
}

func (d *Demo) cacheFrag(v demo.View) templ.Component { return panel(cacheLane, fillCache, d, v) }

func fillCache(d *Demo, v viewer, p *Props) {
	w := d.World()
	*p = Props{Lang: v.lang, On: w.ControllerOn(), Cache: cacheProps(v.lang, w, d.Now())}
}

func (d *Demo) queueFrag(v demo.View) templ.Component { return panel(queueLane, fillQueue, d, v) }

func fillQueue(d *Demo, v viewer, p *Props) {
	w := d.World()
	*p = Props{Lang: v.lang, On: w.ControllerOn(), Queue: queueProps(v.lang, w, w.Metrics().WorkqueueDepth, d.Now())}
}

func (d *Demo) limiterFrag(v demo.View) templ.Component {
	return panel(limiterPanel, fillLimiter, d, v)
}

func fillLimiter(d *Demo, v viewer, p *Props) {
	*p = Props{Lang: v.lang, Limiter: limiterProps(d.World().RateLimiter())}
}

func (d *Demo) workersFrag(v demo.View) templ.Component { return panel(workersLane, fillWorkers, d, v) }

func fillWorkers(d *Demo, v viewer, p *Props) {
	w := d.World()
	*p = Props{Lang: v.lang, On: w.ControllerOn(), Settings: SettingsProps{Workers: w.Settings().Workers},
		Workers: workerProps(v.lang, w, d.Now())}
}

func (d *Demo) writesFrag(v demo.View) templ.Component { return panel(writesLane, fillWrites, d, v) }

func fillWrites(d *Demo, v viewer, p *Props) {
	var buf [writeLines]engine.Event
	*p = Props{Lang: v.lang, Writes: writeProps(v.lang, appendNewest(buf[:0], d.World(), writeLines, isWrite))}
}

func (d *Demo) settingsFrag(v demo.View) templ.Component {
	return panel(settingsPanel, fillSettings, d, v)
}

func fillSettings(d *Demo, v viewer, p *Props) {
	*p = Props{Lang: v.lang, ReadOnly: v.readOnly, Settings: settingsProps(d.World())}
}

func (d *Demo) reportFrag(v demo.View) templ.Component { return panel(reportPanel, fillReport, d, v) }

func fillReport(d *Demo, v viewer, p *Props) {
	*p = Props{Lang: v.lang, Report: reportProps(v.lang, d.World().Report())}
}

// logItems appends the identity of each line logNewest lists, oldest
// first, formatting none: its event's number within the world's epoch
// (an event never changes once logged), and whether it is the first
// restart of a redeploy, which the next event decides.
func (d *Demo) logItems(keys []uint64) []uint64 {
	var buf [logLines]engine.Event
	events, ep := appendNewest(buf[:0], d.World(), logLines, nil), d.epoch.Key()
	for i := range events {
		keys = append(keys, demo.Mix(ep, uint64(events[i].Seq), demo.B(redeploys(events, i))))
	}
	return keys
}

// logTail is the n newest of logNewest's lines in l: the newest of them
// has no event after it in either.
func (d *Demo) logTail(l ui.Lang, n int) []ui.LogLine {
	var buf [logLines]engine.Event
	return logProps(l, appendNewest(buf[:0], d.World(), min(n, logLines), nil))
}

// logNewest is the log's newest lines in l.
func (d *Demo) logNewest(l ui.Lang) []ui.LogLine {
	var buf [logLines]engine.Event
	return logProps(l, appendNewest(buf[:0], d.World(), logLines, nil))
}

// liveLine announces the latest reconcile in l.
func (d *Demo) liveLine(l ui.Lang) string {
	var buf [1]engine.Event
	return liveText(l, appendNewest(buf[:0], d.World(), 1, isReconcile))
}

// readOnly reports whether v watches a room it cannot act in.
func readOnly(v demo.View) bool { return v.Role == demo.RoleFollower }

func settingsProps(w *engine.World) SettingsProps {
	s := w.Settings()
	return SettingsProps{Dependency: w.Dependency(), NotReady: notReadyWire(s.NotReady),
		StatusWrite: string(s.StatusWrite), Predicate: s.Predicate, Workers: s.Workers,
		QueueKind: string(s.QueueKind), SecretWatch: s.SecretWatch}
}

// notReadyWire is the page's word for the engine's NotReady: requeue for
// requeue-after, as the wire says it.
func notReadyWire(v engine.NotReady) string {
	if v == engine.NotReadyRequeueAfter {
		return "requeue"
	}
	return string(v)
}

// cycle returns the value after v in values, the first after the last.
func cycle(v string, values []string) string {
	return values[(slices.Index(values, v)+1)%len(values)]
}

func metricsProps(m engine.Metrics) MetricsProps {
	return MetricsProps{Total: m.Reconciles(), Success: m.ReconcileSuccess, Error: m.ReconcileError,
		RequeueAfter: m.ReconcileRequeueAfter, Requeue: m.ReconcileRequeue, Depth: m.WorkqueueDepth, Retries: m.WorkqueueRetries,
		Adds: m.WorkqueueAdds, External: m.ExternalCalls, Conflicts: m.Conflicts, AlreadyExists: m.AlreadyExists,
		NotFound: m.NotFound, TooManyRequests: m.TooManyRequests, Writes: m.Writes, NoopWrites: m.NoopWrites,
		Active: m.ActiveWorkers, Workers: m.Workers}
}

func apiProps(w *engine.World, objs []apiserver.Object) APIProps {
	p := APIProps{RV: w.ResourceVersion()}
	children := map[string]apiserver.Object{} // by owner name
	for _, o := range objs {
		switch o.Kind {
		case apiserver.KindConfigMap:
			children[o.Owner.Name] = o
		case apiserver.KindSecret:
			p.Secret, p.SecretRV = true, o.ResourceVersion
		}
	}
	for _, o := range objs {
		if o.Kind != apiserver.KindApp {
			continue
		}
		a := appProps(o)
		// The garbage collector removes a child with its owner, so every
		// ConfigMap is under a live App.
		if c, ok := children[o.Name]; ok {
			a.Child = &ChildProps{Name: c.Name, Key: c.Key(), Owner: c.Owner.Name, RV: c.ResourceVersion,
				LogLevel: c.Data.LogLevel, NextLogLevel: nextLogLevel(c.Data.LogLevel),
				Matches: c.Data.LogLevel == o.Spec.LogLevel}
		}
		p.Apps = append(p.Apps, a)
	}
	for _, r := range w.External() {
		p.External = append(p.External, ExternalProps{Name: r.Name, UID: r.UID, Orphan: r.Orphan})
	}
	p.CreateName = createName(objs)
	return p
}

// createName returns the next free App name; "" when all exist.
func createName(objs []apiserver.Object) string {
	for _, n := range engine.AppNames {
		if !slices.ContainsFunc(objs, func(o apiserver.Object) bool { return o.Kind == apiserver.KindApp && o.Name == n }) {
			return n
		}
	}
	return ""
}

func appProps(o apiserver.Object) AppProps {
	a := AppProps{Name: o.Name, Key: o.Key(), UID: o.UID, RV: o.ResourceVersion, Generation: o.Generation,
		ObservedGeneration: o.Status.ObservedGeneration, Deleting: o.Deleting(), Finalizers: o.Finalizers,
		LogLevel: o.Spec.LogLevel, NextLogLevel: nextLogLevel(o.Spec.LogLevel)}
	if a.Deleting {
		a.DeletionAt = ui.ClockText(o.DeletionTimestamp.At)
	}
	if c, ok := o.ReadyCondition(); ok {
		a.Ready, a.ReadyReason, a.ReadySince = c.Status, c.Reason, ui.ClockText(c.LastTransitionTime)
	}
	if t := o.Status.LastReconcileTime; t.Set {
		a.LastReconcile = ui.ClockText(t.At)
	}
	return a
}

// nextLogLevel is what an edit sets: the next of the CRD's enum.
func nextLogLevel(cur string) string {
	i := slices.Index(apiserver.LogLevels[:], cur)
	return apiserver.LogLevels[(i+1)%len(apiserver.LogLevels)]
}

func cacheProps(l ui.Lang, w *engine.World, now time.Duration) CacheProps {
	var p CacheProps
	if !w.ControllerOn() {
		return p
	}
	// Both lists are sorted by kind then name: walk them side by side.
	var objsBuf, cacheBuf [engine.PeekSize]apiserver.Object
	objs, cache := w.AppendPeekObjects(objsBuf[:0]), w.AppendPeekCache(cacheBuf[:0])
	if n := max(len(objs), len(cache)); n > 0 {
		p.Entries = make([]CacheEntry, 0, n)
	}
	for i, j := 0, 0; i < len(cache) || j < len(objs); {
		c := 1 // cache[i] is after objs[j] (or gone past the cache's end)
		switch {
		case i == len(cache):
		case j == len(objs):
			c = -1
		default:
			c = cmp.Or(strings.Compare(cache[i].Kind, objs[j].Kind), strings.Compare(cache[i].Name, objs[j].Name))
		}
		switch {
		case c < 0: // cached, gone from the store
			o := &cache[i]
			p.Entries = append(p.Entries, CacheEntry{Kind: o.Kind, Name: o.Name, RV: o.ResourceVersion, Generation: o.Generation, State: "gone"})
			i++
		case c > 0: // in the store, not in the cache yet
			o := &objs[j]
			p.Entries = append(p.Entries, CacheEntry{Kind: o.Kind, Name: o.Name, StoreRV: o.ResourceVersion,
				Generation: o.Generation, State: "missing"})
			j++
		default:
			o, st := &cache[i], &objs[j]
			e := CacheEntry{Kind: o.Kind, Name: o.Name, RV: o.ResourceVersion, Generation: o.Generation, State: "fresh"}
			if st.ResourceVersion != o.ResourceVersion {
				e.State, e.StoreRV = "stale", st.ResourceVersion
			}
			p.Entries = append(p.Entries, e)
			i, j = i+1, j+1
		}
	}
	slices.SortStableFunc(p.Entries, func(a, b CacheEntry) int {
		if a.Kind != b.Kind {
			return kindOrder(a.Kind) - kindOrder(b.Kind)
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	flights := w.InFlight()
	p.Flights = len(flights)
	for _, f := range flights[:min(len(flights), flightLines)] {
		p.InFlight = append(p.InFlight, FlightProps{Type: string(f.Type), Kind: f.Object.Kind, Name: f.Object.Name,
			RV: f.Object.ResourceVersion, ETA: eta(l, "pp.eta.arrives", now, f.In)})
	}
	return p
}

// kindOrder puts the Apps first, then their children, then the Secret, as
// the API lane does.
func kindOrder(kind string) int {
	switch kind {
	case apiserver.KindApp:
		return 0
	case apiserver.KindConfigMap:
		return 1
	}
	return 2
}

// eta is a countdown to virtual time now+in, in l, with the sentence key
// (which holds %.1f for the seconds left).
func eta(l ui.Lang, key string, now, in time.Duration) *ui.ETA {
	return &ui.ETA{At: (now + in).Milliseconds(), Format: T(l, key), Text: F(l, key, in.Seconds())}
}

func queueProps(l ui.Lang, w *engine.World, depth int, now time.Duration) QueueProps {
	p := QueueProps{Depth: depth}
	order := w.ReadyOrder()
	for _, k := range w.Queue() {
		if k.State == "idle" {
			continue // only its failures are remembered: not in the queue
		}
		it := QueueItem{Key: k.Key, State: k.State, Worker: k.Worker, Dirty: k.Dirty, Failures: k.Failures,
			Priority: k.Priority}
		switch k.State {
		case "ready":
			it.Pos = slices.Index(order, k.Key) + 1
		case "waiting":
			it.ETA = eta(l, "pp.eta.due", now, k.DueIn)
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// limiterProps lays out the rate limiter panel.
func limiterProps(r engine.RateLimiter) LimiterProps {
	p := LimiterProps{Kind: r.Kind, Bucket: r.Bucket, Tokens: r.Tokens, Burst: workqueue.BucketBurst}
	for _, k := range r.Keys {
		p.Keys = append(p.Keys, LimitedProps{Key: k.Key, Failures: k.Failures, NextDelay: seconds(k.NextDelay),
			NextDelayMs: k.NextDelay.Milliseconds()})
	}
	return p
}

func workerProps(l ui.Lang, w *engine.World, now time.Duration) []WorkerProps {
	var out []WorkerProps
	var buf [engine.MaxWorkers]engine.WorkerView
	for _, v := range w.AppendWorkers(buf[:0]) {
		p := WorkerProps{N: v.Worker, Busy: v.Busy}
		if v.Busy {
			p.Key, p.Phase, p.Started = v.Key, v.Phase, ui.ClockText(v.Started)
			p.Beats = beats(l, v.Phase)
			p.ETA = eta(l, "pp.eta.beat."+v.Phase, now, v.DueIn)
			p.Seen = F(l, "pp.worker.seen", seenText(l, v.Observed))
			if v.Phase != "act" { // act is the next beat: nothing done yet
				p.Action = T(l, "pp.action."+string(v.Action))
			}
		}
		out = append(out, p)
	}
	return out
}

// beats lays chapter 001's four beats (observe → compare → act → report)
// over the engine's next beat: observe is done when a worker takes a key;
// compare and act happen at one moment; a hung external call or a sleep is
// still acting.
func beats(l ui.Lang, phase string) []BeatProps {
	next := map[string]int{"act": 1, "external": 2, "read-back": 2, "report": 3}[phase]
	names := []string{"observe", "compare", "act", "report"}
	out := make([]BeatProps, len(names))
	for i, n := range names {
		st := "next"
		switch {
		case i < next:
			st = "done"
		case i == next:
			st = "now"
		}
		out[i] = BeatProps{Name: T(l, "pp.beat."+n), State: st}
	}
	return out
}

// seenText says what a reconcile observed, in the report's words.
func seenText(l ui.Lang, o engine.Observed) string {
	dep := T(l, "pp.seen.dep.missing")
	if o.Dependency {
		dep = T(l, "pp.seen.dep.present")
	}
	s := F(l, "pp.seen", o.ResourceVersion, o.Generation, o.ObservedGeneration, T(l, "pp.child."+string(o.Child)), dep)
	if o.Deleting {
		s += T(l, "pp.seen.deleting")
	}
	return s
}

func writeProps(l ui.Lang, events []engine.Event) []WriteProps {
	var out []WriteProps
	for i := len(events) - 1; i >= 0 && len(out) < writeLines; i-- {
		e := events[i]
		if e.Kind != engine.EventWrite {
			continue
		}
		out = append(out, WriteProps{Seq: e.Seq, At: ui.ClockText(e.At), Outcome: e.Outcome, Reason: e.Reason,
			ActorID: e.Actor, Actor: actorText(l, e), Verb: e.Verb, Res: e.Res, Name: e.Name, Text: outcomeText(l, e)})
	}
	return out
}

// actorText names who wrote: the visitor (kubectl), a worker, the garbage
// collector.
func actorText(l ui.Lang, e engine.Event) string {
	if e.Actor == "worker" {
		return F(l, "pp.actor.worker", e.Worker)
	}
	return T(l, "pp.actor."+e.Actor)
}

// outcomeText says what became of a write.
func outcomeText(l ui.Lang, e engine.Event) string {
	switch e.Outcome {
	case "ok":
		return F(l, "pp.out.ok", e.RV)
	case "noop":
		return F(l, "pp.out.noop", e.RV)
	case "removed":
		return T(l, "pp.out.removed")
	}
	return e.Reason
}

func reportProps(l ui.Lang, rows []engine.ReportRow) []RowProps {
	out := make([]RowProps, len(rows))
	for i, r := range rows {
		out[i] = RowProps{Key: apiserver.Namespace + "/" + r.Name, Name: r.Name, At: ui.ClockText(r.At), Worker: r.Worker,
			Took: seconds(r.Took), Seen: seenText(l, r.Observed), Action: string(r.Action), Reason: r.Reason,
			Requeue: string(r.Requeue), Status: string(r.Status), Result: r.Result, Reconciles: r.Reconciles}
		switch {
		case r.Requeue == engine.RequeueNone:
		case r.RequeueIn == 0:
			// The key was queued again while it was processed, and the
			// priority queue let that stand: no wait at all.
			out[i].RequeueIn = T(l, "pp.requeue.now")
		default:
			out[i].RequeueIn, out[i].RequeueMs = seconds(r.RequeueIn), r.RequeueIn.Milliseconds()
		}
	}
	return out
}

// seconds formats a duration as seconds with up to three decimals: the
// backoff's first waits are milliseconds.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// newestEvents returns the log's newest n events that match (every event,
// for a nil match), oldest first: the page reads only as far back as it
// shows, not the whole log.
func newestEvents(w *engine.World, n int, match func(engine.Event) bool) []engine.Event {
	return appendNewest(make([]engine.Event, 0, n), w, n, match)
}

// appendNewest is newestEvents appended to out: a frame's views pass an
// array of their own, which stays on the stack.
func appendNewest(out []engine.Event, w *engine.World, n int, match func(engine.Event) bool) []engine.Event {
	out = out[:0]
	for e := range w.NewestEvents() {
		if match == nil || match(e) {
			out = append(out, e)
		}
		if len(out) == n {
			break
		}
	}
	slices.Reverse(out)
	return out
}

func isWrite(e engine.Event) bool     { return e.Kind == engine.EventWrite }
func isReconcile(e engine.Event) bool { return e.Kind == engine.EventReconcile }

// redeploys reports whether events[i] is the first of a redeploy's two
// restarts (the old process stopping, then the new one starting), which
// the log says as one line: the event after it decides.
func redeploys(events []engine.Event, i int) bool {
	restart := func(e *engine.Event) bool { return e.Kind == engine.EventController && e.Verb == "restart" }
	return restart(&events[i]) && i+1 < len(events) && restart(&events[i+1])
}

func logProps(l ui.Lang, events []engine.Event) []ui.LogLine {
	from := max(0, len(events)-logLines)
	out := make([]ui.LogLine, 0, len(events)-from)
	for i := from; i < len(events); i++ {
		e := events[i]
		text := eventText(l, e)
		if redeploys(events, i) {
			text = T(l, "pp.log.controller.redeploy")
			if e.N > 0 {
				text += F(l, "pp.log.abandoned", e.N)
			}
		}
		kind := e.Kind
		if e.Kind == engine.EventEnqueue {
			kind += "-" + e.Outcome // enqueue-collapsed: the queue merged a duplicate
		}
		out = append(out, ui.LogLine{Seq: int(e.Seq), At: ui.ClockText(e.At), Kind: kind, Text: text})
	}
	return out
}

// liveText announces the latest reconcile to finish, in one sentence.
func liveText(l ui.Lang, events []engine.Event) string {
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i]; e.Kind == engine.EventReconcile {
			return F(l, "pp.live", ui.ClockText(e.At), e.Worker, e.Key, T(l, "pp.verb."+e.Verb), resultText(l, e))
		}
	}
	return ""
}

func resultText(l ui.Lang, e engine.Event) string {
	if e.Reason != "" {
		return F(l, "pp.result.error.reason", e.Reason)
	}
	return T(l, "pp.result."+e.Outcome)
}

// noteTopics are the one-line notes on what the demo simplifies or what a
// reader may misread, each saying what a real cluster does (catalog key
// pp.note.<topic>). Each is placed once, next to the part it concerns
// (Parts), and is on the page whatever the settings.
var noteTopics = []string{"counters", "rv", "gc", "apf", "delays", "resync", "queue", "observe-beat",
	"identical-write", "ssa", "predicate-scope", "redeploy"}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// valsMemo keeps the hx-vals of every button rendered so far: the same
// handful of JSON strings (an action, a name of AppNames, a setting's value)
// come back on every frame, and marshalling them each time was a tenth of a
// render's garbage. Its keys are the buttons' (closed) set of values, so it
// stays small.
var valsMemo sync.Map // [6]any → string

// vals is ui.Vals for at most three pairs, memoized.
func vals(kv ...any) string {
	if len(kv) > 6 {
		return ui.Vals(kv...)
	}
	var key [6]any
	copy(key[:], kv)
	if v, ok := valsMemo.Load(key); ok {
		return v.(string)
	}
	v := ui.Vals(kv...)
	valsMemo.Store(key, v)
	return v
}

// present spells the dependency as the page's contract does.
func present(ok bool) string {
	if ok {
		return "present"
	}
	return "missing"
}

// other returns the one of a and b that v is not.
func other(v, a, b string) string {
	if v == a {
		return b
	}
	return a
}

// settingsPanel owns pp-settings: the dependency and the controller's code
// and options, each one button that flips its value. It is written by
// hand, as templ wrote it (testdata/settings.golden and the demos' goldens
// hold it): every change of a setting writes it, and templ escaped and
// boxed its 35 attributes anew each time.
func settingsPanel(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l, s := p.Lang, &p.Settings
		h.Raw(`<section id="pp-settings" class="pp-settings" aria-labelledby="pp-settings-title"><h3 id="pp-settings-title" class="sr-only">`)
		h.Text(T(l, "pp.settings"))
		h.Raw(`</h3>`)
		dep := present(s.Dependency)
		writeSwitch(h, p, "pp-dependency", "dependency-toggle", dep, s.Dependency, vals("action", "dependency", "present", !s.Dependency))
		h.Text(T(l, "pp.set.dependency"))
		writeSwitchState(h, T(l, "pp.v.dependency."+dep))
		h.Raw(` `)
		writeSwitch(h, p, "pp-predicate", "predicate-toggle", ui.BoolStr(s.Predicate), s.Predicate, vals("action", "predicate", "on", !s.Predicate))
		h.Raw(`GenerationChanged<wbr>Predicate`)
		writeSwitchState(h, onOff(l, s.Predicate))
		h.Raw(` `)
		writeSwitch(h, p, "pp-secret-watch", "secret-watch", ui.BoolStr(s.SecretWatch), s.SecretWatch, vals("action", "secret-watch", "on", !s.SecretWatch))
		h.Text(T(l, "pp.set.secretwatch"))
		writeSwitchState(h, onOff(l, s.SecretWatch))
		notReady := cycle(s.NotReady, notReadyValues)
		writeFlip(h, p, "pp-not-ready", "not-ready-as", "pp.set.notready", s.NotReady, notReady, "pp.v.notReady.", vals("action", "not-ready", "value", notReady))
		status := other(s.StatusWrite, "always", "on-change")
		writeFlip(h, p, "pp-status-write", "status-write", "pp.set.statuswrite", s.StatusWrite, status, "pp.v.statusWrite.", vals("action", "status-write", "value", status))
		writeFlip(h, p, "pp-workers-flip", "workers", "pp.set.workers", ui.Itoa(s.Workers), ui.Itoa(3-s.Workers), "pp.v.workers.", vals("action", "workers", "n", 3-s.Workers))
		queue := other(s.QueueKind, "priority", "classic")
		writeFlip(h, p, "pp-queue-kind", "queue-kind", "pp.set.queuekind", s.QueueKind, queue, "pp.v.queueKind.", vals("action", "queue-kind", "value", queue))
		h.Raw(`<p class="pp-note">`)
		h.Text(T(l, "pp.settings.note"))
		h.Raw(`</p>`)
		switch {
		case !s.Dependency && s.SecretWatch:
			h.Raw(`<p class="pp-note pp-note-warn">`)
			h.Text(T(l, "pp.settings.watched"))
			h.Raw(`</p>`)
		case !s.Dependency:
			h.Raw(`<p class="pp-note pp-note-warn">`)
			h.Text(T(l, "pp.settings.nowatch"))
			h.Raw(`</p>`)
		}
		h.Raw(`</section>`)
		return h.Err()
	})
}

// writeSwitch opens a switch of the settings panel, up to its label, which
// the caller writes, then writeSwitchState.
func writeSwitch(h *ui.HTML, p *Props, id, testid, value string, pressed bool, hxVals string) {
	h.Raw(`<button type="button" id="`)
	h.Raw(id)
	h.Raw(`" class="switch" data-testid="`)
	h.Raw(testid)
	h.Raw(`" data-value="`)
	h.Text(value)
	h.Raw(`" aria-pressed="`)
	h.Bool(pressed)
	h.Raw(`"`)
	disabled(h, p.ReadOnly)
	h.Raw(` ws-send hx-vals="`)
	h.Text(hxVals)
	h.Raw(`"><span class="switch-track" aria-hidden="true"><span class="switch-thumb"></span></span> <span class="switch-label">`)
}

// writeSwitchState closes a switch's label with its state.
func writeSwitchState(h *ui.HTML, state string) {
	h.Raw(`</span> <span class="switch-state">`)
	h.Text(state)
	h.Raw(`</span></button>`)
}

// writeFlip writes a setting with two values: one button that shows the
// value in place and flips it.
func writeFlip(h *ui.HTML, p *Props, id, testid, label, value, next, valueKey, hxVals string) {
	h.Raw(`<button type="button" id="`)
	h.Raw(id)
	h.Raw(`" class="btn pp-flip" data-testid="`)
	h.Raw(testid)
	h.Raw(`" data-value="`)
	h.Text(value)
	h.Raw(`"`)
	disabled(h, p.ReadOnly)
	h.Raw(` ws-send hx-vals="`)
	h.Text(hxVals)
	h.Raw(`"><span class="pp-flip-label">`)
	h.Text(T(p.Lang, label))
	h.Raw(`</span> <strong class="pp-flip-now">`)
	h.Text(T(p.Lang, valueKey+value))
	h.Raw(`</strong> <span class="pp-flip-next"><span aria-hidden="true">⇄</span> `)
	h.Text(T(p.Lang, valueKey+next))
	h.Raw(`</span></button>`)
}

// workersLane owns pp-workers: lane ④, each worker and the beat (observe →
// compare → act → report) its reconcile is in.
//
// It is written by hand, as templ wrote it (testdata/workers.golden and
// the demos' goldens hold it): a busy worker's lane is written with every
// beat of a reconcile, and templ resolved and escaped its attributes and
// its countdown component anew each time.
func workersLane(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l := p.Lang
		h.Raw(`<section id="pp-workers" class="panel pp-lane pp-lane-workers" aria-labelledby="pp-workers-title"><h3 id="pp-workers-title"><span class="pp-num" aria-hidden="true">④</span>&nbsp;`)
		h.Text(T(l, "pp.lane.workers"))
		h.Raw(` <span class="pp-lane-meta">`)
		h.Text(F(l, "pp.workers.max", p.Settings.Workers))
		h.Raw(`</span></h3>`)
		if !p.On {
			h.Raw(`<p class="empty">`)
			h.Text(T(l, "pp.off.workers"))
			h.Raw(`</p></section>`)
			return h.Err()
		}
		h.Raw(`<ul class="pp-list">`)
		for i := range p.Workers {
			writeWorker(h, l, &p.Workers[i])
		}
		h.Raw(`</ul></section>`)
		return h.Err()
	})
}

// writeWorker writes one worker of the workers lane.
func writeWorker(h *ui.HTML, l ui.Lang, wk *WorkerProps) {
	h.Raw(`<li class="pp-worker`)
	if wk.Busy {
		h.Raw(` pp-busy`)
	}
	h.Raw(`" data-testid="worker" data-worker="`)
	h.Int(wk.N)
	h.Raw(`" data-busy="`)
	h.Bool(wk.Busy)
	h.Raw(`" data-key="`)
	h.Text(wk.Key)
	h.Raw(`" data-phase="`)
	h.Text(wk.Phase)
	h.Raw(`"><div class="pp-worker-head"><strong>worker `)
	h.Int(wk.N)
	h.Raw(`</strong> `)
	if !wk.Busy {
		h.Raw(`<span class="pp-idle">`)
		h.Text(T(l, "pp.worker.idle"))
		h.Raw(`</span></div></li>`)
		return
	}
	h.Raw(`<code>`)
	h.Text(wk.Key)
	h.Raw(`</code></div><ol class="pp-beats">`)
	for _, b := range wk.Beats {
		h.Raw(`<li class="pp-beat pp-beat-`)
		h.Text(b.State)
		h.Raw(`"><span aria-hidden="true">`)
		switch b.State {
		case "done":
			h.Raw(`✓`)
		case "now":
			h.Raw(`▶`)
		default:
			h.Raw(`○`)
		}
		h.Raw(`</span> `)
		h.Text(b.Name)
		h.Raw(`</li>`)
	}
	h.Raw(`</ol><p class="pp-seen">`)
	h.Text(wk.Seen)
	h.Raw(`</p>`)
	if wk.Action != "" {
		h.Raw(`<p class="pp-seen">`)
		h.Text(F(l, "pp.worker.action", wk.Action))
		h.Raw(`</p>`)
	}
	h.Raw(` <p class="pp-seen"><time>`)
	h.Text(wk.Started)
	h.Raw(`</time> <span aria-hidden="true">&nbsp;·&nbsp;</span>`)
	h.Countdown("pp-eta", wk.ETA)
	h.Raw(`</p></li>`)
}

// metricsStrip owns pp-metrics: the controller's metrics under
// controller-runtime's and client-go's names.
//
// It is written by hand, as templ wrote it (testdata/metrics.golden and
// the demos' goldens hold it): it changes with nearly every frame, and
// templ formatted and escaped its sixteen numbers twice each.
func metricsStrip(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l, m := p.Lang, &p.Metrics
		h.Raw(`<section id="pp-metrics" class="pp-metrics" aria-labelledby="pp-metrics-title"><h3 id="pp-metrics-title" class="sr-only">`)
		h.Text(T(l, "pp.metrics"))
		h.Raw(`</h3><div class="pp-metric pp-metric-total" data-testid="reconciles" data-value="`)
		h.Int64(m.Total)
		h.Raw(`" data-success="`)
		h.Int64(m.Success)
		h.Raw(`" data-error="`)
		h.Int64(m.Error)
		h.Raw(`" data-requeue-after="`)
		h.Int64(m.RequeueAfter)
		h.Raw(`" data-requeue="`)
		h.Int64(m.Requeue)
		h.Raw(`"><span class="pp-metric-name">controller_runtime_reconcile_total</span> <span class="pp-metric-results"><span class="pp-res pp-res-success"><span class="pp-res-label">success</span> <strong>`)
		h.Int64(m.Success)
		h.Raw(`</strong></span> <span class="pp-res pp-res-error`)
		if m.Error > 0 {
			h.Raw(` pp-hot`)
		}
		h.Raw(`"><span class="pp-res-label">error</span> <strong>`)
		h.Int64(m.Error)
		h.Raw(`</strong></span> <span class="pp-res pp-res-requeue"><span class="pp-res-label">requeue_after</span> <strong>`)
		h.Int64(m.RequeueAfter)
		h.Raw(`</strong></span> <span class="pp-res pp-res-requeue"><span class="pp-res-label">requeue</span> <strong>`)
		h.Int64(m.Requeue)
		h.Raw(`</strong></span> <span class="pp-res pp-res-sum"><span class="pp-res-label">`)
		h.Text(T(l, "pp.metrics.sum"))
		h.Raw(`</span> <strong>`)
		h.Int64(m.Total)
		h.Raw(`</strong></span></span></div>`)
		writeMetric(h, "workqueue_depth", "workqueue_depth", int64(m.Depth))
		writeMetric(h, "workqueue_retries_total", "workqueue_retries_total", m.Retries)
		writeMetric(h, "external_calls", T(l, "pp.metrics.external"), m.External)
		h.Raw(`<div class="pp-metric`)
		if m.Conflicts+m.AlreadyExists+m.NotFound > 0 {
			h.Raw(` pp-hot`)
		}
		h.Raw(`" data-testid="metric" data-name="api_errors" data-value="`)
		h.Int64(m.Conflicts + m.AlreadyExists + m.NotFound + m.TooManyRequests)
		h.Raw(`" data-conflicts="`)
		h.Int64(m.Conflicts)
		h.Raw(`" data-already-exists="`)
		h.Int64(m.AlreadyExists)
		h.Raw(`" data-not-found="`)
		h.Int64(m.NotFound)
		h.Raw(`"><span class="pp-metric-name">`)
		h.Text(T(l, "pp.metrics.apierrors"))
		h.Raw(`</span> <span class="pp-metric-results"><span class="pp-res"><span class="pp-res-label">Conflict</span> <strong>`)
		h.Int64(m.Conflicts)
		h.Raw(`</strong></span> <span class="pp-res"><span class="pp-res-label">AlreadyExists</span> <strong>`)
		h.Int64(m.AlreadyExists)
		h.Raw(`</strong></span> <span class="pp-res"><span class="pp-res-label">NotFound</span> <strong>`)
		h.Int64(m.NotFound)
		h.Raw(`</strong></span></span></div></section>`)
		return h.Err()
	})
}

// writeMetric writes one metric of the strip: its name as the page says
// it, and its value.
func writeMetric(h *ui.HTML, name, label string, v int64) {
	h.Raw(`<div class="pp-metric" data-testid="metric" data-name="`)
	h.Raw(name)
	h.Raw(`" data-value="`)
	h.Int64(v)
	h.Raw(`"><span class="pp-metric-name">`)
	h.Text(label)
	h.Raw(`</span> <strong class="pp-metric-value">`)
	h.Int64(v)
	h.Raw(`</strong></div>`)
}

// reportPanel owns pp-report: chapter 001's lab report, one row per CR with
// its latest reconcile, kept after the CR is gone.
//
// It is written by hand, as templ wrote it (testdata/report.golden and the
// demos' goldens hold it): a row changes with every reconcile that
// finishes, and templ resolved and escaped its ten attributes and seven
// labels anew for every row.
func reportPanel(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l := p.Lang
		h.Raw(`<section id="pp-report" class="panel pp-report" aria-labelledby="pp-report-title"><h3 id="pp-report-title">`)
		h.Text(T(l, "pp.report"))
		h.Raw(`</h3>`)
		if len(p.Report) == 0 {
			h.Raw(`<p class="empty" data-testid="report" data-value="0">`)
			h.Text(T(l, "pp.report.none"))
			h.Raw(`</p></section>`)
			return h.Err()
		}
		at, observed, action := T(l, "pp.col.at"), T(l, "pp.col.observed"), T(l, "pp.col.action")
		requeue, result, count := T(l, "pp.col.requeue"), T(l, "pp.col.result"), T(l, "pp.col.count")
		h.Raw(`<table class="pp-table" data-testid="report" data-value="`)
		h.Int(len(p.Report))
		h.Raw(`"><thead><tr><th scope="col">CR</th>`)
		for _, c := range [...]string{at, observed, action, requeue, "status", result, count} {
			h.Raw(`<th scope="col">`)
			h.Text(c)
			h.Raw(`</th>`)
		}
		h.Raw(`</tr></thead> <tbody>`)
		for i := range p.Report {
			r := &p.Report[i]
			h.Raw(`<tr class="pp-row pp-row-`)
			h.Text(r.Result)
			h.Raw(`" data-testid="report-row" data-key="`)
			h.Text(r.Key)
			h.Raw(`" data-action="`)
			h.Text(r.Action)
			h.Raw(`" data-requeue="`)
			h.Text(r.Requeue)
			h.Raw(`" data-requeue-in="`)
			h.Int64(r.RequeueMs)
			h.Raw(`" data-status="`)
			h.Text(r.Status)
			h.Raw(`" data-result="`)
			h.Text(r.Result)
			h.Raw(`" data-reason="`)
			h.Text(r.Reason)
			h.Raw(`" data-reconciles="`)
			h.Int64(r.Reconciles)
			h.Raw(`"><th scope="row" data-label="CR"><code>`)
			h.Text(r.Key)
			h.Raw(`</code></th>`)
			cell(h, at)
			h.Raw(`<time>`)
			h.Text(r.At)
			h.Raw(`</time> <span class="pp-dim">`)
			h.Text(F(l, "pp.row.took", r.Worker, r.Took))
			h.Raw(`</span></td>`)
			cell(h, observed)
			h.Text(r.Seen)
			h.Raw(`</td>`)
			cell(h, action)
			h.Raw(`<span class="pp-act pp-act-`)
			h.Text(r.Action)
			h.Raw(`">`)
			h.Text(r.Action)
			h.Raw(`</span></td>`)
			cell(h, requeue)
			h.Text(T(l, "pp.requeue."+r.Requeue))
			h.Raw(` `)
			if r.RequeueIn != "" {
				h.Raw(`<span class="pp-dim">`)
				h.Text(r.RequeueIn)
				h.Raw(`</span>`)
			}
			h.Raw(`</td><td data-label="status">`)
			h.Text(T(l, "pp.status."+r.Status))
			h.Raw(`</td>`)
			cell(h, result)
			h.Raw(`<span class="pp-result pp-result-`)
			h.Text(r.Result)
			h.Raw(`">`)
			h.Text(r.Result)
			h.Raw(`</span> `)
			if r.Reason != "" {
				h.Raw(`<span class="pp-bad">`)
				h.Text(r.Reason)
				h.Raw(`</span>`)
			}
			h.Raw(`</td>`)
			cell(h, count)
			h.Int64(r.Reconciles)
			h.Raw(`</td></tr>`)
		}
		h.Raw(`</tbody></table></section>`)
		return h.Err()
	})
}

// cell opens a report cell labelled label (the column's name, which the
// narrow layout shows beside the value).
func cell(h *ui.HTML, label string) {
	h.Raw(`<td data-label="`)
	h.Text(label)
	h.Raw(`">`)
}

// cacheLane owns pp-cache: lane ②, the informer's cache against the store
// (an older resourceVersion is stale) and the watch events on their way.
//
// It is written by hand, as templ wrote it (testdata/cache.golden and the
// demos' goldens hold it): it changes with every watch event, and templ
// resolved and escaped each entry's five attributes anew.
func cacheLane(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l, c := p.Lang, &p.Cache
		h.Raw(`<section id="pp-cache" class="panel pp-lane pp-lane-cache" aria-labelledby="pp-cache-title"><h3 id="pp-cache-title"><span class="pp-num" aria-hidden="true">②</span>&nbsp;`)
		h.Text(T(l, "pp.lane.cache"))
		h.Raw(`</h3>`)
		if !p.On {
			h.Raw(`<p class="empty">`)
			h.Text(T(l, "pp.off.cache"))
			h.Raw(`</p></section>`)
			return h.Err()
		}
		h.Raw(`<ul class="pp-list pp-small">`)
		for i := range c.Entries {
			e := &c.Entries[i]
			h.Raw(`<li class="pp-cached pp-cached-`)
			h.Text(e.State)
			h.Raw(`" data-testid="cache-item" data-kind="`)
			h.Text(e.Kind)
			h.Raw(`" data-name="`)
			h.Text(e.Name)
			h.Raw(`" data-resource-version="`)
			h.Int64(e.RV)
			h.Raw(`" data-state="`)
			h.Text(e.State)
			h.Raw(`"><span class="pp-kind">`)
			h.Text(e.Kind)
			h.Raw(`</span> <code>`)
			h.Text(e.Name)
			h.Raw(`</code> `)
			switch e.State {
			case "fresh":
				writeRV(h, e.RV)
			case "stale":
				writeRV(h, e.RV)
				writeWarn(h, ` <span class="pp-warn"><span aria-hidden="true">⚠</span> `, F(l, "pp.cache.stale", e.StoreRV))
			case "missing":
				writeWarn(h, `<span class="pp-warn"><span aria-hidden="true">…</span> `, T(l, "pp.cache.missing"))
			case "gone":
				writeRV(h, e.RV)
				writeWarn(h, ` <span class="pp-warn"><span aria-hidden="true">⚠</span> `, T(l, "pp.cache.gone"))
			}
			h.Raw(`</li>`)
		}
		h.Raw(`</ul><h4 data-testid="inflight" data-value="`)
		h.Int(c.Flights)
		h.Raw(`">`)
		h.Text(T(l, "pp.inflight"))
		h.Raw(`</h4>`)
		if len(c.InFlight) == 0 {
			h.Raw(`<p class="empty pp-small">`)
			h.Text(T(l, "pp.inflight.none"))
			h.Raw(`</p></section>`)
			return h.Err()
		}
		h.Raw(`<ol class="pp-list pp-small">`)
		for i := range c.InFlight {
			f := &c.InFlight[i]
			h.Raw(`<li class="pp-flight" data-testid="watch-event" data-type="`)
			h.Text(f.Type)
			h.Raw(`" data-kind="`)
			h.Text(f.Kind)
			h.Raw(`" data-name="`)
			h.Text(f.Name)
			h.Raw(`" data-resource-version="`)
			h.Int64(f.RV)
			h.Raw(`"><span class="pp-evtype">`)
			h.Text(f.Type)
			h.Raw(`</span> <span class="pp-kind">`)
			h.Text(f.Kind)
			h.Raw(`</span> <code>`)
			h.Text(f.Name)
			h.Raw(`</code> `)
			writeRV(h, f.RV)
			h.Countdown("pp-eta", f.ETA)
			h.Raw(`</li>`)
		}
		h.Raw(`</ol>`)
		if c.Flights > len(c.InFlight) {
			h.Raw(`<p class="pp-dim">`)
			h.Text(F(l, "pp.inflight.more", c.Flights-len(c.InFlight)))
			h.Raw(`</p>`)
		}
		h.Raw(`</section>`)
		return h.Err()
	})
}

// writeRV writes an object's resourceVersion tag.
func writeRV(h *ui.HTML, rv int64) {
	h.Raw(`<span class="pp-rvtag">rv `)
	h.Int64(rv)
	h.Raw(`</span>`)
}

// writeWarn writes a warning: open, its markup up to the text, then the
// text, escaped.
func writeWarn(h *ui.HTML, open, text string) {
	h.Raw(open)
	h.Text(text)
	h.Raw(`</span>`)
}

// trapItem owns pp-traps-<trap>: its switch; an active trap shows its
// symptom, its cause and fix in the chapter's words, and its buttons.
//
// It is written by hand, as templ wrote it (testdata/trap.golden and the
// demos' goldens hold it): a change of a setting writes every trap that
// says it, and templ resolved and escaped its buttons' attributes anew.
func trapItem(p *Props) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		l, t := p.Lang, &p.Trap
		h.Raw(`<li id="pp-traps-`)
		h.Text(t.Name)
		h.Raw(`" class="pp-trap`)
		if t.On {
			h.Raw(` pp-trap-on`)
		}
		h.Raw(`" data-testid="trap" data-trap="`)
		h.Text(t.Name)
		h.Raw(`" data-on="`)
		h.Bool(t.On)
		h.Raw(`"><button type="button" id="pp-trap-`)
		h.Text(t.Name)
		h.Raw(`" class="switch pp-trap-switch" data-testid="trap-toggle" aria-pressed="`)
		h.Bool(t.On)
		h.Raw(`"`)
		disabled(h, p.ReadOnly)
		h.Raw(` ws-send hx-vals="`)
		h.Text(vals("action", "trap", "trap", t.Name, "on", !t.On))
		h.Raw(`"><span class="switch-track" aria-hidden="true"><span class="switch-thumb"></span></span> <span class="switch-label">`)
		h.Text(t.Title)
		h.Raw(`</span></button> `)
		if t.On || t.Custom {
			h.Raw(`<p class="pp-trap-line pp-trap-now">`)
			h.Text(t.Now)
			h.Raw(`</p>`)
		}
		if !t.On {
			h.Raw(`</li>`)
			return h.Err()
		}
		h.Raw(`<p class="pp-trap-line"><span class="pp-trap-tag">`)
		h.Text(T(l, "pp.trap.cause"))
		h.Raw(`</span> `)
		h.Text(t.Cause)
		h.Raw(`</p><p class="pp-trap-line pp-symptom" data-testid="trap-symptom"><span class="pp-trap-tag">`)
		h.Text(T(l, "pp.trap.symptom"))
		h.Raw(`</span> `)
		h.Text(t.Symptom)
		h.Raw(`</p>`)
		if t.Why != "" {
			h.Raw(`<p class="pp-trap-line pp-trap-why" data-testid="trap-why">`)
			h.Text(t.Why)
			h.Raw(`</p>`)
		}
		h.Raw(` <p class="pp-trap-line pp-fixtext"><span class="pp-trap-tag">`)
		h.Text(T(l, "pp.trap.fix"))
		h.Raw(`</span> `)
		h.Text(t.Fix)
		h.Raw(`</p><div class="pp-actions">`)
		if b := t.Trigger; b != nil {
			h.Raw(`<button type="button" id="`)
			h.Text(b.ID)
			h.Raw(`" class="btn btn-small pp-try" data-testid="trap-trigger"`)
			disabled(h, p.ReadOnly)
			h.Raw(` ws-send hx-vals="`)
			h.Text(b.Vals)
			h.Raw(`"><span aria-hidden="true">▶</span> `)
			h.Text(b.Label)
			h.Raw(`</button> `)
		}
		for i := range t.Fixes {
			f := &t.Fixes[i]
			h.Raw(`<button type="button" id="`)
			h.Text(f.ID)
			h.Raw(`" class="btn btn-small pp-fix`)
			if f.Wrong {
				h.Raw(` pp-wrong`)
			}
			h.Raw(`" data-testid="trap-fix" data-fix="`)
			h.Text(f.Fix)
			h.Raw(`"`)
			disabled(h, p.ReadOnly || f.Done)
			h.Raw(` ws-send hx-vals="`)
			h.Text(f.Vals)
			if f.Wrong {
				h.Raw(`"><span aria-hidden="true">✗</span> `)
			} else {
				h.Raw(`"><span aria-hidden="true">✓</span> `)
			}
			h.Text(f.Label)
			h.Raw(`</button>`)
		}
		h.Raw(`</div></li>`)
		return h.Err()
	})
}

// disabled writes a button's disabled attribute when off.
func disabled(h *ui.HTML, off bool) {
	if off {
		h.Raw(` disabled`)
	}
}
