package reconcile

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is what the timeline marks of the demo on its own (the
// visitor's actions the framework marks already): the two moments the
// chapters are about. Chapter 000: the loop converges, "observed caught up
// with desired"; chapters 000 and 004: a killed pod is made again by the
// same loop (self-healing). Pods starting, a step that finds nothing and the
// visitor's own changes are left to the log.

// maxMarks bounds the notable events the demo remembers: the newest.
const maxMarks = 30

// MarkReplaced is a reconcile that created pods in place of Failed ones:
// N of its creates replaced a Failed pod. It is a mark, not a log line (the
// log says each create and delete).
const MarkReplaced = "replaced"

// markEvent is the timeline's kind of a demo's own mark.
const markEvent = "event"

// mark remembers a notable event for the timeline, at the current time.
func (d *Demo) mark(e sim.Event) { d.marks.Add(d.Now(), e) }

// Marks returns the notable events the demo remembers, oldest first, in
// language l: the moments it converged and the reconciles that replaced
// Failed pods, the newest maxMarks of them. A reset keeps them, as the
// timeline keeps the actions before it.
func (d *Demo) Marks(l ui.Lang) []ui.TimelineMark {
	es := d.marks.Peek() // read here, written never
	out := make([]ui.TimelineMark, len(es))
	for i, e := range es {
		out[i] = ui.TimelineMark{At: e.At.Milliseconds(), Kind: markEvent, Label: markLabel(l, e)}
	}
	return out
}

// MarksKey changes whenever Marks would: marks are only ever added, and
// each addition numbers it.
func (d *Demo) MarksKey() uint64 { return uint64(d.marks.Seq()) }

func markLabel(l ui.Lang, e sim.Event) string {
	if s, ok := markLabels[markLabelKey{l, e.Kind, e.N}]; ok {
		return s
	}
	return writeMarkLabel(l, e)
}

func writeMarkLabel(l ui.Lang, e sim.Event) string {
	if e.Kind == MarkReplaced {
		return F(l, "rc.mark.replaced", e.N)
	}
	return eventText(l, e) // converged: the log's words
}

// markLabelKey is what a mark's label says: its language, kind and count.
type markLabelKey struct {
	lang ui.Lang
	kind string
	n    int
}

// markLabels are the labels of the marks a demo makes, written once: a
// frame lists every mark the timeline shows, with its label, whenever a
// mark or an action is added. A converged mark counts the desired pods
// (at most MaxDesired), a replaced one the pods replaced (fewer).
var markLabels = func() map[markLabelKey]string {
	m := map[markLabelKey]string{}
	for _, l := range []ui.Lang{ui.Ja, ui.En} {
		for n := 0; n <= MaxDesired; n++ {
			for _, kind := range []string{EventConverged, MarkReplaced} {
				m[markLabelKey{l, kind, n}] = writeMarkLabel(l, sim.Event{Kind: kind, N: n})
			}
		}
	}
	return m
}()

// MarkState is a mark in a snapshot: when (virtual ms), what (converged or
// replaced) and its count (desired, or the pods replaced).
type MarkState struct {
	At   int64  `json:"at"`
	Kind string `json:"kind"`
	N    int    `json:"n"`
}

func (d *Demo) markStates() []MarkState {
	es := d.marks.Peek()
	if len(es) == 0 {
		return nil
	}
	out := make([]MarkState, 0, len(es))
	for _, e := range es {
		out = append(out, MarkState{At: e.At.Milliseconds(), Kind: e.Kind, N: e.N})
	}
	return out
}

// restoreMarks checks a snapshot's marks (at most maxMarks, in time order,
// none after now, each of a kind and count this demo writes) and returns
// them as the demo remembers them.
func restoreMarks(ms []MarkState, now int64) (sim.Log, error) {
	log := sim.NewLog(maxMarks)
	if len(ms) > maxMarks {
		return log, fmt.Errorf("snapshot has %d marks, at most %d", len(ms), maxMarks)
	}
	last := int64(0)
	for i, m := range ms {
		if m.At < last || m.At > now {
			return log, fmt.Errorf("snapshot mark %d at %dms, out of order or after %dms", i, m.At, now)
		}
		last = m.At
		lo := 0
		switch m.Kind {
		case EventConverged:
		case MarkReplaced:
			lo = 1
		default:
			return log, fmt.Errorf("snapshot mark %d of unknown kind %q", i, m.Kind)
		}
		if m.N < lo || m.N > MaxDesired {
			return log, fmt.Errorf("snapshot mark %d (%s) counts %d, out of range [%d, %d]", i, m.Kind, m.N, lo, MaxDesired)
		}
		log.Add(time.Duration(m.At)*time.Millisecond, sim.Event{Kind: m.Kind, N: m.N})
	}
	return log, nil
}

var _ demo.Marker = (*Demo)(nil)
