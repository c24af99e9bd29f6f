package pipeline

import (
	"slices"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is the timeline's event marks: the few moments of the
// controller's own that a reader of chapters 001 and 003 wants to jump back
// to, and not every reconcile:
//
//   - a backoff begins: a reconcile returned an error, or Requeue: true,
//     and the key's first failure sends it to the rate limiter (the
//     retries that follow, each waiting twice as long, are not marked: the
//     streak is one mark until a success Forgets the key);
//   - the informer's periodic resync.
//
// The visitor's actions (a step's resync among them) are marked by the
// framework already. A runaway reconcile is not marked: the log does not
// say which write a watch event came from, and a reconcile re-enqueued by
// its own write (once, after creating the child) is not yet a runaway.
//
// The marks are read from the engine's log, so they are what the log
// still holds: the newest engine.EventLogSize events. The log is not in
// the snapshot (a restored world starts a new one), nor kept across Reset,
// so neither are the marks: after a restore the timeline marks only what
// happened since.

// maxMarks bounds the event marks: the newest.
const maxMarks = 30

// mark is one notable event of the log.
type mark struct {
	seq  int64 // the number of its first event: a backoff's requeue, the resync
	at   time.Duration
	kind string // engine.EventRequeue (a backoff begins) or engine.EventResync
	// A backoff's key, and what its reconcile returned: error (with its
	// reason) or requeue.
	key, outcome, reason string
}

// markLog is what the demo has read of the engine's log for the marks. The
// log's events are numbered one by one within a world and an epoch, so the
// newest number read says what is left to read, and the numbers of the
// first and the last mark name the marks.
type markLog struct {
	w     *engine.World // the world read: start or the demo's own
	epoch uint64        // the demo's epoch when read: a reset starts a new log
	read  int64         // the newest event read
	marks []mark        // oldest first, at most maxMarks
	key   uint64
}

// marked brings the marks up to the engine's log, reading only the events
// logged since the last call, and returns them.
func (d *Demo) marked() *markLog {
	w, m := d.World(), &d.marks
	newest := newestSeq(w)
	if m.w != w || m.epoch != d.epoch.Key() || newest < m.read {
		*m = markLog{w: w, epoch: d.epoch.Key()}
		m.key = m.hash()
	}
	if newest == m.read {
		return m
	}
	// The new events, newest first. A backoff is two events, logged
	// together: the requeue, then the reconcile that returned; reading
	// backwards, the reconcile comes first and waits for its requeue.
	var found []mark // newest first
	var ret engine.Event
	returned := false
	for e := range w.NewestEvents() {
		if returned {
			if e.Kind == engine.EventRequeue && e.Verb == string(engine.RequeueBackoff) && e.N == 1 && e.Key == ret.Key {
				found = append(found, mark{seq: e.Seq, at: ret.At, kind: engine.EventRequeue, key: ret.Key,
					outcome: ret.Outcome, reason: ret.Reason})
			}
			returned = false
		}
		if e.Seq <= m.read {
			break
		}
		switch {
		case e.Kind == engine.EventReconcile && (e.Outcome == "error" || e.Outcome == "requeue"):
			ret, returned = e, true
		case e.Kind == engine.EventResync && e.Verb == "periodic":
			found = append(found, mark{seq: e.Seq, at: e.At, kind: engine.EventResync})
		}
	}
	m.read = newest
	for i := len(found) - 1; i >= 0; i-- {
		m.marks = append(m.marks, found[i])
	}
	// Keep what the log still holds (its events are numbered without
	// gaps), and the newest maxMarks of it.
	drop := 0
	for drop < len(m.marks) && (m.marks[drop].seq <= newest-engine.EventLogSize || len(m.marks)-drop > maxMarks) {
		drop++
	}
	if drop > 0 || len(found) > 0 {
		m.marks = slices.Delete(m.marks, 0, drop)
		m.key = m.hash()
	}
	return m
}

// hash names the marks: within an epoch, the numbers of the first and the
// last, and how many.
func (m *markLog) hash() uint64 {
	k := demo.Mix(m.epoch, demo.I(len(m.marks)))
	if n := len(m.marks); n > 0 {
		k = demo.Mix(k, uint64(m.marks[0].seq), uint64(m.marks[n-1].seq))
	}
	return k
}

// Marks returns the notable events the log still holds, oldest first, in
// l: the timeline's event marks.
func (d *Demo) Marks(l ui.Lang) []ui.TimelineMark {
	ms := d.marked().marks
	out := make([]ui.TimelineMark, len(ms))
	for i, m := range ms {
		out[i] = ui.TimelineMark{At: m.at.Milliseconds(), Kind: "event", Label: m.label(l)}
	}
	return out
}

// MarksKey changes whenever Marks would: read from the log's numbers,
// without saying anything.
func (d *Demo) MarksKey() uint64 { return d.marked().key }

// label says the mark in l.
func (m mark) label(l ui.Lang) string {
	switch {
	case m.kind == engine.EventResync:
		return T(l, "pp.mark.resync")
	case m.outcome == "requeue":
		return F(l, "pp.mark.requeue", m.key)
	case m.reason == "":
		return F(l, "pp.mark.error", m.key, m.outcome)
	}
	return F(l, "pp.mark.error", m.key, m.reason)
}

var _ demo.Marker = (*Demo)(nil)
