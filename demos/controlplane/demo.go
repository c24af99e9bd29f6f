// Package controlplane is the demo of chapter 004: the chapter's cluster
// (engine/controlplane) from kubectl apply to three pods Running, one
// message at a time as the chapter's sequence diagram, and then live on a
// virtual clock — stop the scheduler, the controller-manager or a node and
// watch who notices. Its commands, its snapshot, its view (the sequence
// diagram is drawn here, in SVG) and its words are in this folder.
package controlplane

import (
	"errors"
	"fmt"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	ui "github.com/reconcile-demo/reconcile-demo/templates"

	_ "embed"
)

// The demo's name (routes, test ids, the socket's ?demo=) and the id prefix
// of its fragments.
const (
	Name   = "controlplane"
	Prefix = "cp"
)

//go:embed style.css
var css []byte

// Kind describes the demo to the server. It starts at the guide's first
// message: an empty cluster and the chapter's kubectl apply, unsent.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "004",
	Title:   func(l ui.Lang) string { return T(l, "cp.title") },
	Short:   func(l ui.Lang) string { return T(l, "cp.short") },
	Summary: func(l ui.Lang) string { return T(l, "cp.summary") },
	Actions: map[string]demo.Action{
		"guided-next":   {},
		"guided-back":   {},
		"guided-finish": {},
		"replicas-inc":  {},
		"replicas-dec":  {},
		"set-replicas":  demo.Int("replicas", 0, cp.MaxReplicas),
		"kill":          demo.Name("pod"),
		"component": {Fields: []string{"component", "on"}, Read: func(m demo.Message, c *demo.Command) (err error) {
			if c.Name, err = m.Choice("component", cp.ProcessScheduler, cp.ProcessControllerManager); err != nil {
				return err
			}
			c.On, err = m.Bool("on")
			return err
		}},
		"node": {Fields: []string{"node", "on"}, Read: func(m demo.Message, c *demo.Command) (err error) {
			if c.Name, err = m.Choice("node", cp.NodeNames()...); err != nil {
				return err
			}
			c.On, err = m.Bool("on")
			return err
		}},
		"runtime": {Fields: []string{"runtime"}, Read: func(m demo.Message, c *demo.Command) (err error) {
			c.Name, err = m.Choice("runtime", string(cp.RuntimeContainerd), string(cp.RuntimeDockershim))
			return err
		}},
		"preset": {Fields: []string{"preset"}, Read: func(m demo.Message, c *demo.Command) (err error) {
			c.Name, err = m.Choice("preset", QuizScheduler, QuizNode)
			return err
		}},
		"skip":  {},
		"step":  demo.Step,
		"pause": demo.Pause,
		"speed": demo.Speed,
		"reset": demo.Reset,
	},
	New:     func(demo.Options) demo.Instance { return NewDemo() },
	Restore: demo.RestoreWith(func(_ demo.Options, snap Snapshot) (*Demo, error) { return RestoreDemo(snap) }),
	CSS:     css,
	// The load generator sends the guide's first message and takes it back:
	// each Back replays the guide from the empty cluster.
	Load: []demo.LoadStep{
		{Send: `{"action":"guided-next"}`, Expect: `data-testid="guided-step" data-value="1"`},
		{Send: `{"action":"guided-back"}`, Expect: `data-testid="guided-step" data-value="0"`},
	},
}

// Apply carries out a decoded command. A live control during the guide, a
// pod that is not there, a count out of range, a guide step that is not
// there, or a skip with nothing due is refused and changes nothing.
func (d *Demo) Apply(c demo.Command) error {
	if demo.ApplyPace(d, c) {
		return nil
	}
	refuse := func(key string, args ...any) error {
		return demo.RefuseIn(words, demo.ReasonUnknownTarget, key, args...)
	}
	switch c.Action {
	case "guided-next":
		if _, err := d.Next(); err != nil {
			return refuse("err.guide-over")
		}
		return nil
	case "guided-back":
		if err := d.Back(); err != nil {
			return refuse("err.no-back")
		}
		return nil
	case "guided-finish":
		if err := d.FinishGuide(); err != nil {
			return refuse("err.guide-over")
		}
		return nil
	case "step":
		if err := d.Step(); err != nil {
			return refuse("err.nothing-due")
		}
		return nil
	case "preset":
		if err := d.Preset(c.Name); err != nil {
			return refuse("err.preset-node")
		}
		return nil
	case "runtime":
		if err := d.SetRuntime(cp.Runtime(c.Name)); err != nil {
			return refuse("err.runtime", c.Name)
		}
		return nil
	case "reset":
		d.Reset()
		return nil
	}
	// The live cluster's controls wait for the guide's end.
	if !d.Live() {
		switch c.Action {
		case "replicas-inc", "replicas-dec", "set-replicas", "kill", "component", "node", "skip":
			return refuse("err.guide")
		}
	}
	switch c.Action {
	case "replicas-inc", "replicas-dec", "set-replicas":
		n := c.N
		switch c.Action {
		case "replicas-inc":
			n = d.cl().Replicas() + 1
		case "replicas-dec":
			n = d.cl().Replicas() - 1
		}
		if err := d.SetReplicas(n); err != nil {
			return demo.OutOfRange("replicas", 0, cp.MaxReplicas)
		}
	case "kill":
		if err := d.KillPod(c.Name); err != nil {
			return refuse("err.pod", c.Name)
		}
	case "component":
		if err := d.SetComponent(c.Name, c.On); err != nil {
			return refuse("err.component", c.Name)
		}
	case "node":
		if err := d.SetNode(c.Name, c.On); err != nil {
			return refuse("err.node", c.Name)
		}
	case "skip":
		if err := d.Skip(); err != nil {
			if errors.Is(err, cp.ErrGuide) {
				return refuse("err.guide")
			}
			return refuse("err.nothing-due")
		}
	default:
		return fmt.Errorf("controlplane: action %q is not one of the demo's", c.Action)
	}
	return nil
}

// Fragments renders every fragment of the demo, each owning its id.
func (d *Demo) Fragments(v demo.View) []demo.Fragment {
	p := d.props(v.Lang, v.Error)
	frags := []demo.Fragment{
		{ID: "cp-clock", Comp: ui.Clock(v.Lang, p.Clock)},
		{ID: "cp-guide", Comp: guidePanel(p)},
		{ID: "cp-sequence", Comp: sequencePanel(p)},
		{ID: "cp-apply", Comp: applyPanel(p)},
		{ID: "cp-objects", Comp: objectsList(p)},
		{ID: "cp-components", Comp: componentsPanel(p)},
		{ID: "cp-tray", Comp: trayPanel(p)},
	}
	for _, n := range p.Nodes {
		frags = append(frags, demo.Fragment{ID: "cp-n-" + n.Name, Comp: nodeCard(p, n)})
	}
	return append(frags,
		demo.Fragment{ID: "cp-skip", Comp: skipButton(p)},
		demo.Fragment{ID: "cp-next-line", Comp: nextLine(p)},
		demo.Fragment{ID: "cp-controls", Comp: ui.Controls(v.Lang, p.Controls)},
		demo.Fragment{ID: "cp-error", Comp: ui.ErrorBox(v.Lang, Prefix, p.Error)},
		demo.Fragment{ID: "cp-quiz", Comp: quizPanel(p)},
		demo.Fragment{ID: "cp-runtime", Comp: runtimePanel(p)},
		demo.Fragment{ID: "cp-log", Comp: ui.Log(v.Lang, Prefix, T(v.Lang, "cp.log"), p.Log)},
		demo.Fragment{ID: "cp-live", Comp: ui.Live(Prefix, p.LiveText)},
		demo.Fragment{ID: "cp-snapshot", Comp: ui.Snapshot(Prefix, v.SID, p.Snapshot)},
	)
}

// Section renders the whole demo for a page.
func (d *Demo) Section(v demo.View) templ.Component {
	p := d.props(v.Lang, v.Error)
	return section(ui.DemoProps{Kind: Name, Prefix: Prefix, Lang: v.Lang, SID: v.SID, WSURL: v.WSURL, Role: v.Role, Kills: true,
		Title: T(v.Lang, "cp.title"), Intro: T(v.Lang, "cp.intro"), Clock: p.Clock}, p)
}

var _ demo.Instance = (*Demo)(nil)
