package triggers

import (
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is what the timeline marks of the demo on its own (the
// visitor's actions the framework marks already): the events the edge side
// lost (取りこぼし), those it would have acted on (a pod died, desired
// changed), at the moment they were emitted. Losing one of these is what
// leaves the edge side wrong for good, the engine's RowMissed; the level
// side loses the same events and catches up, so its losses are not marked,
// nor are the edge side's other losses (created, running, deleted), which
// change at most what it remembers.
//
// The marks are read from the edge stream, which the snapshot keeps: they
// last as long as the stream shows the event (its last StreamShown), and a
// reset, which starts a new world, forgets them with the streams.

// maxMarks bounds the marks: the newest. The stream keeps fewer dropped
// events than this (a dropped event is never in flight, so only its last
// StreamShown are kept).
const maxMarks = 30

// markEvent is the timeline's kind of a demo's own mark.
const markEvent = "event"

// missed returns the events of a stream that the edge side lost and would
// have acted on, oldest first, at most maxMarks, and a key that changes
// whenever they do: it sums up every value a mark shows.
func missed(stream []engine.StreamEvent) ([]engine.Event, uint64) {
	var out []engine.Event
	for _, e := range stream {
		if e.Fate == engine.Dropped && (e.Kind == engine.PodDied || e.Kind == engine.DesiredChanged) {
			out = append(out, e.Event)
		}
	}
	out = out[max(0, len(out)-maxMarks):]
	k := demo.I(len(out))
	for _, e := range out {
		k = demo.Mix(k, uint64(e.EmittedAt.Milliseconds()), uint64(e.Kind), uint64(e.Pod), demo.I(e.Old),
			demo.I(e.New), uint64(e.Loss))
	}
	return out, k
}

// Marks returns the events the edge side lost and would have acted on, as
// long as its stream shows them, oldest first, in language l.
func (d *Demo) Marks(l ui.Lang) []ui.TimelineMark {
	f := d.keys()
	out := make([]ui.TimelineMark, len(f.missed))
	for i, e := range f.missed {
		out[i] = ui.TimelineMark{At: e.EmittedAt.Milliseconds(), Kind: markEvent,
			Label: F(l, "tr.mark.missed", eventText(l, e), T(l, "tr.loss."+e.Loss.String()))}
	}
	return out
}

// MarksKey changes whenever Marks would. It is read with the fragments'
// keys, once per change of the world.
func (d *Demo) MarksKey() uint64 { return d.keys().marks }

var _ demo.Marker = (*Demo)(nil)
