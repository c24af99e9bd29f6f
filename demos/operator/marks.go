package operator

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/operator"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file is what the timeline marks of the demo on its own (the
// visitor's actions the framework marks already): where chapter 002's
// controller stopped at Degraded because the backup is missing, where it
// found its leader gone, and where the resource became Ready (again). Each
// single move (restore, create, elect) and each wait are left to the log.

// maxMarks bounds the notable events the demo remembers: the newest.
const maxMarks = 30

// markEvent is the timeline's kind of a demo's own mark.
const markEvent = "event"

// mark remembers a notable event for the timeline, at the current time.
func (d *Demo) mark(e sim.Event) { d.marks.Add(d.Now(), e) }

// Marks returns the notable events the demo remembers, oldest first, in
// language l: the newest maxMarks of EventOpNoBackup (only where the phase
// became Degraded), EventOpLeaderLost and EventOpReady. A reset keeps them,
// as the timeline keeps the actions before it.
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
	if e.Kind == EventOpNoBackup {
		return F(l, "op.mark.degraded", e.Name)
	}
	return eventText(l, e) // the leader gone, Ready: the log's words
}

// MarkState is a mark in a snapshot: when (virtual ms), what (an event
// kind of Marks) and whom (the backup, or the leader that was lost).
type MarkState struct {
	At   int64  `json:"at"`
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

func (d *Demo) markStates() []MarkState {
	es := d.marks.Peek()
	if len(es) == 0 {
		return nil
	}
	out := make([]MarkState, 0, len(es))
	for _, e := range es {
		out = append(out, MarkState{At: e.At.Milliseconds(), Kind: e.Kind, Name: e.Name})
	}
	return out
}

// restoreMarks checks a snapshot's marks (at most maxMarks, in time order,
// none after now, each of a kind this demo marks and naming what that kind
// names) and returns them as the demo remembers them.
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
		var ok bool
		switch m.Kind {
		case EventOpNoBackup:
			ok = m.Name == BackupName
		case EventOpLeaderLost:
			// A member of any world since: a reset numbers members again.
			ok = validMemberName(m.Name, chapter.MaxSeq)
		case EventOpReady:
			ok = m.Name == ""
		default:
			return log, fmt.Errorf("snapshot mark %d of unknown kind %q", i, m.Kind)
		}
		if !ok {
			return log, fmt.Errorf("snapshot mark %d (%s) names %q", i, m.Kind, m.Name)
		}
		log.Add(time.Duration(m.At)*time.Millisecond, sim.Event{Kind: m.Kind, Name: m.Name})
	}
	return log, nil
}

var _ demo.Marker = (*Demo)(nil)
