// Package reconcile is the demo of chapter 000 (and chapter 004's
// kill-a-pod simulator): the chapter's ReplicaSet-like controller
// (engine/reconcile) running on a virtual clock, with its commands, its
// snapshot, its view and its words. Everything a newcomer changes about
// this demo is in this folder.
package reconcile

import (
	"fmt"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "reconcile"
	Prefix = "rc"
)

// Kind describes the demo to the server.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "000, 004", OnIndex: true,
	Title:   func(l ui.Lang) string { return T(l, "rc.title") },
	Short:   func(l ui.Lang) string { return T(l, "rc.short") },
	Summary: func(l ui.Lang) string { return T(l, "rc.summary") },
	Actions: map[string]demo.Action{
		"kill":         demo.Name("pod"),
		"replicas-inc": {},
		"replicas-dec": {},
		"set-replicas": demo.Int("replicas", 0, MaxDesired),
		"controller":   demo.Controller,
		"step":         demo.Step,
		"pause":        demo.Pause,
		"speed":        demo.Speed,
		"reset":        demo.Reset,
	},
	New:     func(opt demo.Options) demo.Instance { return NewDemo(opt, 3, true) },
	Restore: demo.RestoreWith(RestoreDemo),
	Load: []demo.LoadStep{
		{Send: `{"action":"set-replicas","replicas":"4"}`, Expect: `data-testid="desired" data-value="4"`},
		{Send: `{"action":"set-replicas","replicas":"5"}`, Expect: `data-testid="desired" data-value="5"`},
	},
}

// Apply carries out a decoded command; a pod that is not there, or a count
// out of range, is refused and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
	if demo.ApplyPace(d, c) {
		return nil
	}
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

// Fragments renders every fragment of the demo, each owning its id.
func (d *Demo) Fragments(v demo.View) []demo.Fragment {
	p := d.props(v.Lang, v.Error)
	return []demo.Fragment{
		{ID: "rc-clock", Comp: ui.Clock(v.Lang, p.Clock)},
		{ID: "rc-desired", Comp: desiredPanel(p)},
		{ID: "rc-observed", Comp: observedPanel(p)},
		{ID: "rc-diff", Comp: diffLine(p)},
		{ID: "rc-controls", Comp: ui.Controls(v.Lang, p.Controls)},
		{ID: "rc-error", Comp: ui.ErrorBox(v.Lang, Prefix, p.Error)},
		{ID: "rc-actions", Comp: actionsPanel(p)},
		{ID: "rc-chart", Comp: ui.Chart(p.Chart)},
		{ID: "rc-log", Comp: ui.Log(v.Lang, Prefix, T(v.Lang, "rc.log"), p.Log)},
		{ID: "rc-live", Comp: ui.Live(Prefix, p.Live)},
		{ID: "rc-snapshot", Comp: ui.Snapshot(Prefix, v.SID, p.Snapshot)},
	}
}

// Section renders the whole demo for a page.
func (d *Demo) Section(v demo.View) templ.Component {
	p := d.props(v.Lang, v.Error)
	return section(ui.DemoProps{Kind: Name, Prefix: Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role, Kills: true,
		Title: T(v.Lang, "rc.title"), Intro: T(v.Lang, "rc.intro"), Clock: p.Clock}, p)
}

var _ demo.Instance = (*Demo)(nil)
