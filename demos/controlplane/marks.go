package controlplane

import (
	"time"

	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is the timeline's event marks: what the cluster did on its own
// that a reader of chapter 004 wants to jump back to — a node gone Unknown
// and back Ready, the unreachable taint, its pods evicted, a pod the
// scheduler could not place. The visitor's own actions (a node stopped, a
// preset) are marked by the framework already.
//
// The marks are read from the engine's log with the rest of the reading
// (facts.go), so they are what the log still holds: the newest
// cp.MaxEvents events. The log is not in the snapshot (a restored cluster
// starts it afresh with "restored"), nor kept across Reset or Back (a
// cluster replayed from its seed), so neither are the marks: after a
// restore the timeline marks only what happened since.

// maxMarks bounds the event marks: the newest.
const maxMarks = 30

// mark is one notable event of the log, in the demo's time. Evictions of
// one node's pods at one instant are one mark.
type mark struct {
	seq    int           // the Seq of its (first) event
	at     time.Duration // the demo's time
	kind   string        // a cp.Event* kind
	name   string        // the node, or the pod the scheduler could not place
	status string        // EventNodeReady: the Ready status (True or Unknown)
	n      int           // evictions: how many pods
}

// marksOf picks the notable events of the log (oldest first) and puts them
// in the demo's time: base later than the engine's.
func marksOf(events []cp.Event, base time.Duration) []mark {
	var out []mark
	for _, e := range events {
		m := mark{seq: e.Seq, at: base + e.At, kind: e.Kind, name: e.Name}
		switch e.Kind {
		case cp.EventNodeReady:
			// The kubelet reports Ready=True only on a node that was not
			// Ready: a node back, never a routine heartbeat.
			if e.Status != string(cp.ConditionUnknown) && e.Status != string(cp.ConditionTrue) {
				continue
			}
			m.status = e.Status
		case cp.EventTaint:
		case cp.EventPodTerminating:
			if e.Status != cp.ReasonEvict {
				continue // a visitor's kill, or too many replicas
			}
			m.name, m.n = e.Node, 1
			if n := len(out); n > 0 {
				if p := &out[n-1]; p.kind == cp.EventPodTerminating && p.at == m.at && p.name == m.name {
					p.n++
					continue
				}
			}
		case cp.EventFailedScheduling:
			if e.N != 1 {
				continue // a retry of a pod already marked
			}
		default:
			continue
		}
		out = append(out, m)
	}
	return out[max(0, len(out)-maxMarks):]
}

// Marks returns the notable events the log still holds, oldest first, in
// l: the timeline's event marks.
func (d *Demo) Marks(l ui.Lang) []ui.TimelineMark {
	ms := d.facts().marks
	out := make([]ui.TimelineMark, len(ms))
	for i, m := range ms {
		out[i] = ui.TimelineMark{At: m.at.Milliseconds(), Kind: "event", Label: m.label(l)}
	}
	return out
}

// MarksKey changes whenever Marks would: it is the hash of the marks, made
// with the reading, once per change of the cluster.
func (d *Demo) MarksKey() uint64 { return d.facts().keys.marks }

// label says the mark in l.
func (m mark) label(l ui.Lang) string {
	switch m.kind {
	case cp.EventNodeReady:
		if m.status == string(cp.ConditionUnknown) {
			return F(l, "cp.mark.unknown", m.name)
		}
		return F(l, "cp.mark.ready", m.name)
	case cp.EventTaint:
		return F(l, "cp.mark.taint", m.name)
	case cp.EventPodTerminating:
		return F(l, "cp.mark.evict", m.name, m.n)
	}
	return F(l, "cp.mark.failed-scheduling", m.name)
}

// marks hashes the marks as the timeline draws them.
func (h *sum) marks(ms []mark) {
	h.n(len(ms))
	for _, m := range ms {
		h.n(m.seq)
		h.d(m.at)
		h.s(m.kind)
		h.s(m.name)
		h.s(m.status)
		h.n(m.n)
	}
}
