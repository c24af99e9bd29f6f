package pipeline

import (
	"hash/maphash"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file declares the demo's section as parts, and what each fragment's
// key reads: a frame renders a fragment only when its key changed, so a
// key must change whenever the fragment's HTML would (the fuzzer checks
// it). A key is either the engine's small views themselves, hashed (the
// settings, the workers, the queue: a waiting key or a worker's next beat
// by when it is due), or numbers the engine keeps: the store's
// resourceVersion grows with every change of an object, the event log's
// numbers with every event, the counters with what they count. Within one
// world those numbers name a state for good; a reset starts them again, so
// the keys made of them mix in the demo's epoch. The language and the role
// are the viewer's, not inputs; countdown texts and the clock are the
// page's to draw.

// versions count what the engine does not number for the page: epoch grows
// with every fresh start of the world (a reset), acted with every command
// (any of which may stop, start or redeploy the controller, whose new
// informer lists the store again without a watch event).
type versions struct{ epoch, acted demo.Version }

// keySeed hashes the engine's small views (a worker, a queued key, the
// settings, an external record) into keys.
var keySeed = maphash.MakeSeed()

// parts declares the demo's section: the metrics strip, the five lanes
// (API server → informer cache → workqueue and its rate limiter → workers →
// writes back), the settings beside the pace, the refusal, the traps panel,
// the lab's report and the log. The notes on what the demo simplifies sit
// under the part each concerns, outside every fragment, so they are on the
// page from its first load whatever the settings.
var parts = demo.Declare(
	frag("pp-metrics", (*Demo).metricsKey, (*Demo).metricsFrag),
	notes("counters"),
	demo.Box("pp-lanes",
		demo.Box("pp-col pp-col-api", frag("pp-api", (*Demo).apiKey, (*Demo).apiFrag), notes("rv", "gc", "apf")),
		demo.Box("pp-col pp-col-cache", frag("pp-cache", (*Demo).cacheKey, (*Demo).cacheFrag), notes("delays", "resync")),
		demo.Box("pp-col pp-col-queue",
			frag("pp-queue", (*Demo).queueLaneKey, (*Demo).queueFrag),
			frag("pp-limiter", (*Demo).limiterKey, (*Demo).limiterFrag),
			notes("queue")),
		demo.Box("pp-col pp-col-workers", frag("pp-workers", (*Demo).workersKey, (*Demo).workersFrag), notes("observe-beat")),
		demo.Box("pp-col pp-col-writes", frag("pp-writes", (*Demo).writesKey, (*Demo).writesFrag), notes("identical-write", "ssa")),
	),
	demo.Box("pp-bar",
		frag("pp-settings", (*Demo).settingsKey, (*Demo).settingsFrag),
		demo.Controls(),
		notes("predicate-scope", "redeploy"),
	),
	demo.Error(),
	demo.Around(func(v demo.View) templ.Component { return trapsFrame(v.Lang) }, trapParts()...),
	frag("pp-report", (*Demo).reportKey, (*Demo).reportFrag),
	keptLog(demo.Log(Prefix, demo.LogSource[*Demo]{
		Key:    (*Demo).logKey,
		Lines:  (*Demo).logNewest,
		Items:  (*Demo).logItems,
		Newest: (*Demo).logTail,
		Title:  func(l ui.Lang) string { return T(l, "pp.log") },
	})),
	demo.LiveText((*Demo).liveKey, (*Demo).liveLine),
	demo.Snapshot(),
)

// frag declares a fragment whose starting state's HTML is kept (kept).
func frag(id string, key func(*Demo) uint64, comp func(*Demo, demo.View) templ.Component) demo.Part {
	return demo.Fragment(id, key, kept(id, comp))
}

// keptLog keeps the log's starting HTML as kept does a fragment's.
func keptLog(log demo.Part) demo.Part {
	comp := log.Comp
	k := kept(log.ID, func(d *Demo, v demo.View) templ.Component { return comp(d, v) })
	log.Comp = func(in demo.Instance, v demo.View) templ.Component { return k(in.(*Demo), v) }
	return log
}

// notes places the one-line notes on topics, in the page only (static).
func notes(topics ...string) demo.Part {
	return demo.Static(func(v demo.View) templ.Component { return noteList(v.Lang, topics) })
}

// Controller reports whether the controller process runs: the pace's
// controller switch.
func (d *Demo) Controller() bool { return d.World().ControllerOn() }

// metricsKey is the numbers the strip shows.
func (d *Demo) metricsKey() uint64 {
	m := d.World().Metrics()
	return demo.Mix(uint64(m.Reconciles()), uint64(m.ReconcileSuccess), uint64(m.ReconcileError),
		uint64(m.ReconcileRequeueAfter), uint64(m.ReconcileRequeue), demo.I(m.WorkqueueDepth), uint64(m.WorkqueueRetries), uint64(m.ExternalCalls),
		uint64(m.Conflicts), uint64(m.AlreadyExists), uint64(m.NotFound), uint64(m.TooManyRequests))
}

// apiKey: the store changes only with a new resourceVersion; the external
// records are few, and most calls leave them as they were.
func (d *Demo) apiKey() uint64 {
	w := d.World()
	k := demo.Mix(d.epoch.Key(), uint64(w.ResourceVersion()))
	for _, r := range w.External() {
		k = demo.Mix(k, maphash.Comparable(keySeed, r))
	}
	return k
}

// cacheKey: the cache and the watch events on their way change with the
// store (a write sends an event), with each event delivered, and with the
// controller's start (a fresh list). The lane of a stopped controller says
// only that.
func (d *Demo) cacheKey() uint64 {
	w := d.World()
	if !w.ControllerOn() {
		return 0
	}
	return demo.Mix(d.epoch.Key(), d.acted.Key(), uint64(w.ResourceVersion()), uint64(w.Metrics().WatchEvents))
}

// queueLaneKey is the workqueue as the engine shows it: its depth, its
// keys (a waiting one by when it is due) and the order of the ready ones.
func (d *Demo) queueLaneKey() uint64 {
	w := d.World()
	if !w.ControllerOn() {
		return 0
	}
	k := demo.Mix(demo.I(w.Metrics().WorkqueueDepth)) // never 0, a stopped controller's
	now := d.Now()
	for _, q := range w.Queue() {
		if q.Waiting {
			q.DueIn += now // the countdown's end, not its text
		}
		k = demo.Mix(k, maphash.Comparable(keySeed, q))
	}
	for _, key := range w.ReadyOrder() {
		k = demo.Mix(k, demo.Str(key))
	}
	return k
}

// limiterKey is the rate limiter as the engine shows it: its kind, the
// bucket's tokens (which refill with time alone: the key reads them as
// they are now) and each failing key's failures and next delay.
func (d *Demo) limiterKey() uint64 {
	r := d.World().RateLimiter()
	k := demo.Mix(demo.Str(r.Kind), demo.B(r.Bucket), uint64(int64(r.Tokens)))
	for _, key := range r.Keys {
		k = demo.Mix(k, maphash.Comparable(keySeed, key))
	}
	return k
}

// workersKey is the workers as the engine shows them, a busy one's next
// beat by when it is due: a reconcile moves to its next beat without an
// event of its own.
func (d *Demo) workersKey() uint64 {
	w := d.World()
	k := demo.Mix(demo.B(w.ControllerOn()), demo.I(w.Settings().Workers))
	now := d.Now()
	var buf [engine.MaxWorkers]engine.WorkerView
	for _, v := range w.AppendWorkers(buf[:0]) {
		if v.Busy {
			v.DueIn += now // the countdown's end, not its text
		}
		k = demo.Mix(k, maphash.Comparable(keySeed, v))
	}
	return k
}

// writesKey names the writes the lane lists: within a world, the newest of
// them and how many the log still holds.
func (d *Demo) writesKey() uint64 {
	newest, n, _ := d.shownEvents()
	if n == 0 {
		return 0 // "no writes yet", in any world
	}
	return demo.Mix(d.epoch.Key(), uint64(newest), demo.I(n))
}

// settingsKey: the dependency and the settings.
func (d *Demo) settingsKey() uint64 {
	w := d.World()
	return demo.Mix(demo.B(w.Dependency()), maphash.Comparable(keySeed, w.Settings()))
}

// reportKey: a row changes only when a reconcile finishes, and each one
// counts.
func (d *Demo) reportKey() uint64 {
	return demo.Mix(d.epoch.Key(), uint64(d.World().Metrics().Reconciles()))
}

// logKey: the log's newest event names its newest lines.
func (d *Demo) logKey() uint64 { return demo.Mix(d.epoch.Key(), uint64(newestSeq(d.World()))) }

// liveKey names the reconcile the live region says.
func (d *Demo) liveKey() uint64 {
	_, _, rec := d.shownEvents()
	if rec == 0 {
		return 0 // nothing to say, in any world
	}
	return demo.Mix(d.epoch.Key(), uint64(rec))
}

// newestSeq returns the number of the log's newest event, 0 for none.
func newestSeq(w *engine.World) int64 {
	for e := range w.NewestEvents() {
		return e.Seq
	}
	return 0
}

// shownEvents returns the number of the newest write the log holds and how
// many of its writes the writes lane lists (at most writeLines), and the
// number of its newest reconcile (0 for none): within a world, an event's
// number names it for good. It reads the log again only when an event was
// logged since it last did: a lab that writes nothing would otherwise walk
// the whole log for two keys of every frame.
func (d *Demo) shownEvents() (write int64, writes int, reconcile int64) {
	w, s := d.World(), &d.shown
	if mark := w.LogMark(); s.w != w || s.epoch != d.epoch.Key() || s.mark != mark {
		*s = shown{w: w, epoch: d.epoch.Key(), mark: mark}
		s.write, s.writes, s.reconcile = shownEvents(w)
	}
	return s.write, s.writes, s.reconcile
}

// shown is what shownEvents read, and of which world, in which epoch (a
// reset starts a new log in the same world) and at which mark.
type shown struct {
	w         *engine.World
	epoch     uint64
	mark      engine.LogMark
	write     int64
	writes    int
	reconcile int64
}

// shownEvents reads the log as Demo.shownEvents says.
func shownEvents(w *engine.World) (write int64, writes int, reconcile int64) {
	for seq, kind := range w.NewestKinds() {
		switch {
		case kind == engine.EventWrite && writes < writeLines:
			if writes == 0 {
				write = seq
			}
			writes++
		case kind == engine.EventReconcile && reconcile == 0:
			reconcile = seq
		}
		if writes == writeLines && reconcile != 0 {
			break
		}
	}
	return write, writes, reconcile
}
