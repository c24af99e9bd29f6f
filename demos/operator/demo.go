// Package operator is the demo of chapter 002: the chapter's Operator
// (engine/operator) running on a virtual clock, with its commands, its
// snapshot, its view and its words. Everything a newcomer changes about
// this demo is in this folder.
package operator

import (
	"fmt"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "operator"
	Prefix = "op"
)

// Kind describes the demo to the server. Its controller starts off, so that
// each press of 「1回調整する」 shows one move, as in chapter 002.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "002", OnIndex: true,
	Title:   func(l ui.Lang) string { return T(l, "op.title") },
	Short:   func(l ui.Lang) string { return T(l, "op.short") },
	Summary: func(l ui.Lang) string { return T(l, "op.summary") },
	Actions: map[string]demo.Action{
		"kill-member": demo.Name("member"),
		"members-inc": {},
		"members-dec": {},
		"set-members": demo.Int("members", MinMembers, MaxMembers),
		"backup":      demo.Bool("present"),
		"controller":  demo.Controller,
		"step":        demo.Step,
		"pause":       demo.Pause,
		"speed":       demo.Speed,
		"reset":       demo.Reset,
	},
	New:     func(opt demo.Options) demo.Instance { return NewDemo(opt, false) },
	Restore: demo.RestoreWith(RestoreDemo),
	Load: []demo.LoadStep{
		{Send: `{"action":"set-members","members":"4"}`, Expect: `data-testid="spec-members" data-value="4"`},
		{Send: `{"action":"set-members","members":"5"}`, Expect: `data-testid="spec-members" data-value="5"`},
	},
}

// Apply carries out a decoded command; a member that is not there, or a
// count out of range, is refused and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
	if demo.ApplyPace(d, c) {
		return nil
	}
	switch c.Action {
	case "kill-member":
		if err := d.Kill(c.Name); err != nil {
			return demo.RefuseIn(words, demo.ReasonUnknownTarget, "err.member", c.Name)
		}
	case "members-inc", "members-dec", "set-members":
		n := c.N
		switch c.Action {
		case "members-inc":
			n = d.Resource().Spec.Members + 1
		case "members-dec":
			n = d.Resource().Spec.Members - 1
		}
		if err := d.SetMembers(n); err != nil {
			return demo.OutOfRange("members", MinMembers, MaxMembers)
		}
	case "backup":
		d.SetBackup(c.On)
	case "controller":
		d.SetController(c.On)
	case "step":
		d.Step()
	case "reset":
		d.Reset()
	default:
		return fmt.Errorf("operator: action %q is not one of the demo's", c.Action)
	}
	return nil
}

// Fragments renders every fragment of the demo, each owning its id.
func (d *Demo) Fragments(v demo.View) []demo.Fragment {
	p := d.props(v.Lang, v.Error)
	return []demo.Fragment{
		{ID: "op-clock", Comp: ui.Clock(v.Lang, p.Clock)},
		{ID: "op-spec", Comp: specPanel(p)},
		{ID: "op-status", Comp: statusPanel(p)},
		{ID: "op-members", Comp: membersPanel(p)},
		{ID: "op-next", Comp: nextLine(p)},
		{ID: "op-controls", Comp: ui.Controls(v.Lang, p.Controls)},
		{ID: "op-error", Comp: ui.ErrorBox(v.Lang, Prefix, p.Error)},
		{ID: "op-last", Comp: lastPanel(p)},
		{ID: "op-chart", Comp: ui.Chart(p.Chart)},
		{ID: "op-log", Comp: ui.Log(v.Lang, Prefix, T(v.Lang, "op.log"), p.Log)},
		{ID: "op-live", Comp: ui.Live(Prefix, p.Live)},
		{ID: "op-snapshot", Comp: ui.Snapshot(Prefix, v.SID, p.Snapshot)},
	}
}

// Section renders the whole demo for a page.
func (d *Demo) Section(v demo.View) templ.Component {
	p := d.props(v.Lang, v.Error)
	return section(ui.DemoProps{Kind: Name, Prefix: Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role, Kills: true,
		Title: T(v.Lang, "op.title"), Intro: T(v.Lang, "op.intro"), Clock: p.Clock}, p)
}

var _ demo.Instance = (*Demo)(nil)
