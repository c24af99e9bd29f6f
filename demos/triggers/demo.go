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

//go:embed style.css
var css []byte

// Kind describes the demo to the server. Its timings are the engine's
// (engine/triggers: StartDelay, Resync, DeliveryDelay, RestartTime), so the
// server's demo.Options do not apply to it.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "000",
	Title:   func(l ui.Lang) string { return T(l, "tr.title") },
	Short:   func(l ui.Lang) string { return T(l, "tr.short") },
	Summary: func(l ui.Lang) string { return T(l, "tr.summary") },
	Actions: map[string]demo.Action{
		"kill":           demo.Name("pod"),
		"replicas-inc":   {},
		"replicas-dec":   {},
		"set-replicas":   demo.Int("replicas", 0, engine.MaxDesired), // no button: for the load generator and scripts
		"drop-events":    demo.Bool("on"),
		"duplicate-next": {},
		"swap-next":      {},
		"restart":        {},
		"step":           demo.Step,
		"pause":          demo.Pause,
		"speed":          demo.Speed,
		"reset":          demo.Reset,
	},
	New:     func(demo.Options) demo.Instance { return NewDemo() },
	Restore: demo.RestoreWith(func(_ demo.Options, snap Snapshot) (*Demo, error) { return RestoreDemo(snap) }),
	CSS:     css,
	// The load generator changes the desired count: both controllers then
	// create or delete pods, through both event streams.
	Load: []demo.LoadStep{
		{Send: `{"action":"set-replicas","replicas":"4"}`, Expect: `data-testid="desired" data-value="4"`},
		{Send: `{"action":"set-replicas","replicas":"5"}`, Expect: `data-testid="desired" data-value="5"`},
	},
}

// Apply carries out a decoded command. A pod alive on neither side, a
// count out of range, and a step or restart while the controllers are
// restarting are refused and change nothing.
func (d *Demo) Apply(c demo.Command) error {
	if demo.ApplyPace(d, c) {
		return nil
	}
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

// Fragments renders every fragment of the demo, each owning its id.
func (d *Demo) Fragments(v demo.View) []demo.Fragment {
	p := d.props(v.Lang, v.Error)
	frags := []demo.Fragment{
		{ID: "tr-clock", Comp: ui.Clock(v.Lang, p.Clock)},
		{ID: "tr-desired", Comp: desiredPanel(p)},
		{ID: "tr-breakers", Comp: breakersPanel(p)},
		{ID: "tr-controls", Comp: ui.Controls(v.Lang, p.Controls)},
		{ID: "tr-error", Comp: ui.ErrorBox(v.Lang, Prefix, p.Error)},
	}
	for i := range p.Sides {
		s := &p.Sides[i]
		frags = append(frags,
			demo.Fragment{ID: s.ID + "-diff", Comp: diffLine(p.Lang, s)},
			demo.Fragment{ID: s.ID + "-observed", Comp: observedPanel(p.Lang, s)},
			demo.Fragment{ID: s.ID + "-stream", Comp: streamPanel(p.Lang, s)},
			demo.Fragment{ID: s.ID + "-log", Comp: ui.Log(v.Lang, s.ID, s.LogTitle, s.Log)},
		)
	}
	return append(frags,
		demo.Fragment{ID: "tr-lesson", Comp: lessonTable(p)},
		demo.Fragment{ID: "tr-live", Comp: ui.Live(Prefix, p.Live)},
		demo.Fragment{ID: "tr-snapshot", Comp: ui.Snapshot(Prefix, v.SID, p.Snapshot)},
	)
}

// Section renders the whole demo for a page.
func (d *Demo) Section(v demo.View) templ.Component {
	p := d.props(v.Lang, v.Error)
	return section(ui.DemoProps{Kind: Name, Prefix: Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role, Kills: true,
		Title: T(v.Lang, "tr.title"), Intro: T(v.Lang, "tr.intro"), Clock: p.Clock}, p)
}

var _ demo.Instance = (*Demo)(nil)
