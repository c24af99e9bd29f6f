// Package operator is the demo of chapter 002: the chapter's Operator
// (engine/operator) running on a virtual clock, with its commands, its
// snapshot, its view and its words. Everything a newcomer changes about
// this demo is in this folder.
package operator

import (
	_ "embed"
	"fmt"
	"io"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "operator"
	Prefix = "op"
)

// Its stylesheets: its own, and its projector layout.
var (
	//go:embed style.css
	css []byte
	//go:embed present.css
	presentCSS []byte
)

// Kind describes the demo to the server. Its controller starts off, so that
// each press of 「1回調整する」 shows one move, as in chapter 002.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "002", OnIndex: true, Controller: true, Kills: true,
	Title:    func(l ui.Lang) string { return T(l, "op.title") },
	Short:    func(l ui.Lang) string { return T(l, "op.short") },
	Summary:  func(l ui.Lang) string { return T(l, "op.summary") },
	Intro:    func(l ui.Lang) string { return T(l, "op.intro") },
	StepText: func(l ui.Lang) string { return T(l, "op.step") },
	Actions: map[string]demo.Action{
		"kill-member": demo.Name("member"),
		"members-inc": {},
		"members-dec": {},
		"set-members": demo.Int("members", MinMembers, MaxMembers),
		"backup":      demo.Bool("present"),
	},
	Parts:      parts,
	New:        func(opt demo.Options) demo.Instance { return NewDemo(opt, false) },
	Restore:    demo.RestoreWith(RestoreDemo),
	Shared:     []string{"cluster.css", "chart.css", "chart.js"},
	CSS:        css,
	PresentCSS: presentCSS,
	Load: []demo.LoadStep{
		{Send: `{"action":"set-members","members":"4"}`, Expect: `data-testid="spec-members" data-value="4"`},
		{Send: `{"action":"set-members","members":"5"}`, Expect: `data-testid="spec-members" data-value="5"`},
	},
}

// Apply carries out a decoded command; a member that is not there, or a
// count out of range, is refused and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
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

// parts declares the demo's section: the Spec beside the Status, the
// members, the notes where the demo simplifies, the next difference, the
// pace, the last move beside the phase history, the log. The Spec panel
// reads only the declared count and the backup; the rest read the state's
// version.
var parts = demo.Declare(
	demo.Box("op-state",
		demo.Fragment("op-spec", func(d *Demo) uint64 { return demo.Mix(demo.I(d.res.Spec.Members), demo.B(d.Backup())) }, (*Demo).specFrag),
		demo.Fragment("op-status", func(d *Demo) uint64 { return demo.Mix(d.stateKey(), demo.I(d.res.Spec.Members)) }, (*Demo).statusFrag),
	),
	demo.Fragment("op-members", (*Demo).stateKey, (*Demo).membersFrag),
	// Beside the Spec, the Status and the members, before the next
	// move and the pace: how a real operator differs.
	demo.Box("notes",
		demo.Note("crd", func(l ui.Lang) string { return T(l, "op.note.crd") }),
		demo.Note("world", func(l ui.Lang) string { return T(l, "op.note.world") }),
		demo.Note("scale-down", func(l ui.Lang) string { return T(l, "op.note.scale-down") }),
		demo.Note("one-move", func(l ui.Lang) string { return T(l, "op.note.one-move") }),
		demo.Note("watch", func(l ui.Lang) string { return T(l, "op.note.watch") }),
	),
	demo.Fragment("op-next", func(d *Demo) uint64 { return demo.Mix(d.stateKey(), demo.I(d.res.Spec.Members), demo.B(d.Backup())) }, (*Demo).nextFrag),
	demo.Controls(),
	demo.Error(),
	demo.Box("lower",
		demo.Fragment("op-last", func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.lastV.Key()) }, (*Demo).lastFrag),
		// The chart's axis and legend change with its span and the phases
		// it has met; its bands and table with each phase.
		demo.Holding(demo.Fragment("op-chart", (*Demo).chartKey, (*Demo).chartFrag),
			demo.Fragment("op-chart-plot", (*Demo).bandsKey, (*Demo).plotFrag),
			demo.Fragment("op-chart-table", (*Demo).bandsKey, (*Demo).tableFrag)),
	),
	demo.Log(Prefix, demo.EventLog(func(d *Demo) *sim.Log { return &d.Log }, func(d *Demo) uint64 { return d.epoch.Key() },
		logLines, func(l ui.Lang) string { return T(l, "op.log") })),
	demo.LiveText(func(d *Demo) uint64 { return demo.Mix(d.epoch.Key(), d.lastV.Key()) }, (*Demo).liveText),
	demo.Snapshot(),
)

// stateKey is the state's version, with the epoch a reset moves on.
func (d *Demo) stateKey() uint64 { return demo.Mix(d.epoch.Key(), d.ver.Key()) }

// SnapshotJSON returns the snapshot the page keeps.
func (d *Demo) SnapshotJSON() string { return demo.MustJSON(d.Snapshot()) }

// WriteSnapshotJSON writes SnapshotJSON as it encodes it.
func (d *Demo) WriteSnapshotJSON(w io.Writer) error { return demo.WriteJSON(w, d.Snapshot()) }

var _ demo.Instance = (*Demo)(nil)
