// Package reconcile is the demo of chapter 000 (and chapter 004's
// kill-a-pod simulator): the chapter's ReplicaSet-like controller
// (engine/reconcile) running on a virtual clock, with its commands, its
// snapshot, its view and its words. Everything a newcomer changes about
// this demo is in this folder.
package reconcile

import (
	_ "embed"
	"fmt"
	"io"
	"sync"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "reconcile"
	Prefix = "rc"
)

// Its stylesheets: its own, and its projector layout.
var (
	//go:embed style.css
	css []byte
	//go:embed present.css
	presentCSS []byte
)

// Kind describes the demo to the server.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "000, 004", OnIndex: true, Controller: true, Kills: true,
	Title:   func(l ui.Lang) string { return T(l, "rc.title") },
	Short:   func(l ui.Lang) string { return T(l, "rc.short") },
	Summary: func(l ui.Lang) string { return T(l, "rc.summary") },
	Intro:   func(l ui.Lang) string { return T(l, "rc.intro") },
	Actions: map[string]demo.Action{
		"kill":         demo.Name("pod"),
		"replicas-inc": {},
		"replicas-dec": {},
		"set-replicas": demo.Int("replicas", 0, MaxDesired),
	},
	Parts:      parts,
	New:        func(opt demo.Options) demo.Instance { return NewDemo(opt, 3, true) },
	Restore:    demo.RestoreWith(RestoreDemo),
	Shared:     []string{"cluster.css", "diff.css", "chart.css", "chart.js"},
	CSS:        css,
	PresentCSS: presentCSS,
	Load: []demo.LoadStep{
		{Send: `{"action":"set-replicas","replicas":"4"}`, Expect: `data-testid="desired" data-value="4"`},
		{Send: `{"action":"set-replicas","replicas":"5"}`, Expect: `data-testid="desired" data-value="5"`},
	},
}

// Apply carries out a decoded command; a pod that is not there, or a count
// out of range, is refused and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
	switch c.Action {
	case "kill":
		if err := d.Kill(c.Name); err != nil {
			return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.pod", c.Name)
		}
	case "replicas-inc", "replicas-dec", "set-replicas":
		n := c.N
		switch c.Action {
		case "replicas-inc":
			n = d.Desired() + 1
		case "replicas-dec":
			n = d.Desired() - 1
		}
		if err := d.SetDesired(n); err != nil {
			return demo.OutOfRange("replicas", 0, MaxDesired)
		}
	case "controller":
		d.SetController(c.On)
	case "step":
		d.Step()
	case "reset":
		d.Reset()
	default:
		return fmt.Errorf("reconcile: action %q is not one of the demo's", c.Action)
	}
	return nil
}

// parts declares the demo's section: desired and observed side by side,
// the diff line, the pace, the last reconcile beside the chart, the notes
// where the demo simplifies, the log.
// Each fragment's key is what it reads: the declared count, the state's
// version, the last report's, the history's, the log's newest event.
var parts = demo.Declare(
	demo.Box("rc-state",
		demo.Fragment("rc-desired", func(d *Demo) uint64 { return uint64(d.Desired()) }, (*Demo).desiredFrag),
		demo.Holding(demo.Fragment("rc-observed", (*Demo).observedKey, (*Demo).observedFrag),
			demo.List("rc-pods", demo.ListSource[*Demo]{
				Key:   func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.ver.Key()) },
				Items: (*Demo).podItems,
				Whole: (*Demo).podsFrag,
				Item:  (*Demo).podRow,
			})),
	),
	demo.Fragment("rc-diff", func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.ver.Key(), demo.B(d.Controller())) }, (*Demo).diffFrag),
	demo.Controls(),
	demo.Error(),
	demo.Box("lower",
		demo.Fragment("rc-actions", func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.lastV.Key()) }, (*Demo).actionsFrag),
		// The chart's axes and legend change with its scale; its plot and
		// table with each value.
		demo.Holding(demo.Fragment("rc-chart", (*Demo).chartKey, (*Demo).chartFrag),
			demo.Fragment("rc-chart-plot", (*Demo).linesKey, (*Demo).plotFrag),
			demo.Fragment("rc-chart-table", (*Demo).linesKey, (*Demo).tableFrag)),
	),
	// Beside what the controller just did: how a real one differs.
	demo.Box("notes",
		demo.Note("failed-pods", func(l ui.Lang) string { return T(l, "rc.note.failed-pods") }),
		demo.Note("scale-down", func(l ui.Lang) string { return T(l, "rc.note.scale-down") }),
		demo.Note("resync", func(l ui.Lang) string { return T(l, "rc.note.resync") }),
	),
	demo.Log(Prefix, demo.EventLog(func(d *Demo) *sim.Log { return &d.Log }, func(d *Demo) uint64 { return d.epoch.Key() },
		logLines, func(l ui.Lang) string { return T(l, "rc.log") })),
	demo.LiveText(func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.lastV.Key()) }, (*Demo).liveText),
	demo.Snapshot(),
)

// SnapshotJSON returns the snapshot the page keeps.
func (d *Demo) SnapshotJSON() string { return demo.MustJSON(d.Snapshot()) }

// WriteSnapshotJSON writes SnapshotJSON, written by hand from the demo
// (appendSnapshot) into a pooled array: it comes with every action's
// frame, and encoding/json walked a Snapshot made for it by reflection.
func (d *Demo) WriteSnapshotJSON(w io.Writer) error {
	b := snapshotBufs.Get().(*[]byte)
	defer snapshotBufs.Put(b)
	*b = d.appendSnapshot((*b)[:0])
	_, err := w.Write(*b)
	return err
}

var snapshotBufs = sync.Pool{New: func() any { return new([]byte) }}

var _ demo.Instance = (*Demo)(nil)
