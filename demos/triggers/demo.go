// Package triggers is the demo of chapter 000 ③: edge-triggered against
// level-triggered, side by side. Two mirrored clusters receive the same
// changes; chapter 000's Reconcile watches one, a naive event-driven twin
// the other, each through its own event stream, which the visitor can break
// (drop, duplicate, swap, restart). The engine is engine/triggers; this
// package holds its timing, commands, snapshot, view and words.
package triggers

import (
	_ "embed"
	"errors"
	"fmt"
	"io"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "triggers"
	Prefix = "tr"
)

// Its stylesheets: its own, and its projector layout.
var (
	//go:embed style.css
	css []byte
	//go:embed present.css
	presentCSS []byte
)

// Kind describes the demo to the server. Its timings are the engine's
// (engine/triggers: StartDelay, Resync, DeliveryDelay, RestartTime), so the
// server's demo.Options do not apply to it.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "000", Kills: true,
	Title:    func(l ui.Lang) string { return T(l, "tr.title") },
	Short:    func(l ui.Lang) string { return T(l, "tr.short") },
	Summary:  func(l ui.Lang) string { return T(l, "tr.summary") },
	Intro:    func(l ui.Lang) string { return T(l, "tr.intro") },
	StepText: func(l ui.Lang) string { return T(l, "tr.step") },
	Actions: map[string]demo.Action{
		"kill":           demo.Name("pod"),
		"replicas-inc":   {},
		"replicas-dec":   {},
		"set-replicas":   demo.Int("replicas", 0, engine.MaxDesired), // no button: for the load generator and scripts
		"drop-events":    demo.Bool("on"),
		"duplicate-next": {},
		"swap-next":      {},
		"restart":        {},
	},
	Parts:      parts,
	New:        func(demo.Options) demo.Instance { return NewDemo() },
	Restore:    demo.RestoreWith(func(_ demo.Options, snap Snapshot) (*Demo, error) { return RestoreDemo(snap) }),
	Shared:     []string{"cluster.css", "diff.css"},
	CSS:        css,
	PresentCSS: presentCSS,
	// The load generator changes the desired count: both controllers then
	// create or delete pods, through both event streams.
	Load: []demo.LoadStep{
		{Send: `{"action":"set-replicas","replicas":"4"}`, Expect: `data-testid="desired" data-value="4"`},
		{Send: `{"action":"set-replicas","replicas":"5"}`, Expect: `data-testid="desired" data-value="5"`},
	},
}

// Apply carries out a decoded command: the demo's own, step and reset
// (the framework carries out pause and speed on the demo's clock). A pod
// alive on neither side, a count out of range, and a step or restart while
// the controllers are restarting are refused and change nothing.
func (d *Demo) Apply(c demo.Command) error {
	switch c.Action {
	case "kill":
		if err := d.Kill(c.Name); err != nil {
			return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.pod", demo.Clip(c.Name))
		}
	case "replicas-inc", "replicas-dec", "set-replicas":
		n := c.N
		switch c.Action {
		case "replicas-inc":
			n = d.w.Desired() + 1
		case "replicas-dec":
			n = d.w.Desired() - 1
		}
		if err := d.SetDesired(n); err != nil {
			return demo.OutOfRange("replicas", 0, engine.MaxDesired)
		}
	case "drop-events":
		d.SetDrop(c.On)
	case "duplicate-next":
		d.DuplicateNext()
	case "swap-next":
		d.SwapNext()
	case "restart":
		if err := d.Restart(); err != nil {
			return refuseRestarting(err)
		}
	case "step":
		if _, err := d.Step(); err != nil {
			return refuseRestarting(err)
		}
	case "reset":
		d.Reset()
	default:
		return fmt.Errorf("triggers: action %q is not one of the demo's", c.Action)
	}
	return nil
}

func refuseRestarting(err error) error {
	if errors.Is(err, ErrRestarting) {
		return demo.RefuseIn(words, demo.ReasonOutOfRange, "tr.err.restarting")
	}
	return err
}

// parts declares the demo's section: the change both clusters receive
// and the ways to break their streams, the pace, the two columns (edge |
// level), each with its diff line, pods, stream, controller log and notes,
// the notes on both streams, then the chapter's table. A side's fragments
// key on what that side shows (keys.go), so an event delivered to one side
// renders only its own.
var parts = demo.Declare(
	demo.Box("tr-shared",
		demo.Fragment("tr-desired", func(d *Demo) uint64 { return demo.I(d.w.Desired()) }, (*Demo).desiredFrag),
		demo.Fragment("tr-breakers", (*Demo).breakersKey, (*Demo).breakersFrag),
	),
	demo.Controls(),
	demo.Error(),
	demo.Box("tr-sides",
		sideParts(edgeSide, demo.Box("notes",
			demo.Note("relist", func(l ui.Lang) string { return T(l, "tr.note.relist") }),
			demo.Note("quota", func(l ui.Lang) string { return T(l, "tr.note.quota") }))),
		sideParts(levelSide, demo.Box("notes",
			demo.Note("resync", func(l ui.Lang) string { return T(l, "tr.note.resync") }))),
	),
	// Under both streams: how real events travel, and what a real
	// ReplicaSet does with a Failed pod.
	demo.Box("notes",
		demo.Note("delivery", func(l ui.Lang) string { return T(l, "tr.note.delivery") }),
		demo.Note("failed-pods", func(l ui.Lang) string { return T(l, "tr.note.failed-pods") }),
	),
	demo.Fragment("tr-lesson", (*Demo).lessonKey, (*Demo).lessonFrag),
	demo.LiveText((*Demo).liveKey, (*Demo).liveText),
	// Last: writing the snapshot ends a frame's reading of the world.
	demo.Snapshot(),
)

// sideParts declares side i's column (of sides): its heading around its
// four fragments, then its notes.
func sideParts(i int, notes demo.Part) demo.Part {
	s := sides[i]
	id := Prefix + "-" + s.String()
	keys := func(d *Demo) *sideKeys { return &d.keys().side[i] }
	parts := []demo.Part{
		demo.Fragment(id+"-diff", func(d *Demo) uint64 { return keys(d).diff },
			func(d *Demo, v demo.View) templ.Component { return d.diffFrag(v.Lang, i) }),
		demo.Holding(demo.Fragment(id+"-observed", func(d *Demo) uint64 { return keys(d).counts },
			func(d *Demo, v demo.View) templ.Component { return d.observedFrag(v, i) }),
			demo.List(id+"-pods", demo.ListSource[*Demo]{
				Key:   func(d *Demo) uint64 { return keys(d).observed },
				Items: func(d *Demo, items []demo.Item) []demo.Item { return d.podItems(i, items) },
				Whole: func(d *Demo, v demo.View) templ.Component { return d.podsFrag(v.Lang, i) },
				Item:  func(d *Demo, l ui.Lang, j int) templ.Component { return d.podRow(l, i, j) },
			})),
		demo.Holding(demo.Fragment(id+"-stream", func(d *Demo) uint64 { return keys(d).stream },
			func(d *Demo, v demo.View) templ.Component { return d.streamFrag(v, i) }),
			demo.List(id+"-lane", demo.ListSource[*Demo]{
				Key:   func(d *Demo) uint64 { return keys(d).lane },
				Items: func(d *Demo, items []demo.Item) []demo.Item { return d.laneItems(i, items) },
				Whole: func(d *Demo, v demo.View) templ.Component { return d.laneFrag(v.Lang, i) },
				Item:  func(d *Demo, l ui.Lang, j int) templ.Component { return d.laneRow(l, i, j) },
			})),
		demo.Log(id, demo.LogSource[*Demo]{
			Key:         func(d *Demo) uint64 { return keys(d).log },
			Lines:       func(d *Demo, l ui.Lang) []ui.LogLine { return d.logFrag(l, i) },
			Title:       func(l ui.Lang) string { return T(l, "tr.log."+s.String()) },
			NewestFirst: true,
			Items:       func(d *Demo, keys []uint64) []uint64 { return d.logItems(i, keys) },
			Newest:      func(d *Demo, l ui.Lang, n int) []ui.LogLine { return d.logNewest(l, i, n) },
		}),
	}
	return demo.Around(func(v demo.View) templ.Component { return sideColumn(sideHead(v.Lang, s)) },
		append(parts, notes)...)
}

// SnapshotJSON returns the snapshot the page keeps. Its fragment comes
// after every fragment that reads the world, and any frame in which one of
// them changed writes it (its key sums theirs): so it also lets go of the
// frame's reading of the world.
func (d *Demo) SnapshotJSON() string {
	d.release()
	return demo.MustJSON(d.Snapshot())
}

// WriteSnapshotJSON writes SnapshotJSON as it encodes it (and lets go of
// the frame's reading of the world, as SnapshotJSON does).
func (d *Demo) WriteSnapshotJSON(w io.Writer) error {
	d.release()
	x := writtenPool.Get().(*written)
	defer writtenPool.Put(x)
	d.w.SnapshotInto(&x.snap)
	x.b = appendSnapshot(x.b[:0], d.Envelope(Name), &x.snap)
	_, err := w.Write(x.b)
	return err
}

var _ demo.Instance = (*Demo)(nil)
