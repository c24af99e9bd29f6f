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
	"io"

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

// Its stylesheets: its own, and its projector layout.
var (
	//go:embed style.css
	css []byte
	//go:embed present.css
	presentCSS []byte
)

// Kind describes the demo to the server. It starts at the guide's first
// message: an empty cluster and the chapter's kubectl apply, unsent.
var Kind = demo.Kind{
	Name: Name, Prefix: Prefix, Chapter: "004", Kills: true,
	Title:    func(l ui.Lang) string { return T(l, "cp.title") },
	Short:    func(l ui.Lang) string { return T(l, "cp.short") },
	Summary:  func(l ui.Lang) string { return T(l, "cp.summary") },
	Intro:    func(l ui.Lang) string { return T(l, "cp.intro") },
	StepText: func(l ui.Lang) string { return T(l, "cp.step") },
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
		"skip": {},
	},
	Parts:      parts,
	New:        func(demo.Options) demo.Instance { return NewDemo() },
	Restore:    demo.RestoreWith(func(_ demo.Options, snap Snapshot) (*Demo, error) { return RestoreDemo(snap) }),
	Shared:     []string{"cluster.css"},
	CSS:        css,
	PresentCSS: presentCSS,
	// Replay 2: the engine's truth pass (taints, podIPs, readyReplicas,
	// slow start) and a clock that never goes back replay older links
	// otherwise.
	Replay: 2,
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

// parts declares the demo's section: the guide and the sequence diagram on
// one side, the cluster (kubectl's Deployment, the control plane, the nodes
// and their pods, what comes next, the pace) on the other; under them the
// quiz, the runtime stacks and the log. Each fragment's key is a hash of
// the facts it reads of the cluster (facts.go).
var parts = demo.Declare(
	demo.Box("cp-main",
		demo.Box("cp-story",
			demo.Fragment("cp-guide", func(d *Demo) uint64 { return d.facts().keys.guide }, (*Demo).guideFrag),
			note(NoteSlowStart),
			demo.Fragment("cp-sequence", func(d *Demo) uint64 { return d.facts().keys.sequence }, (*Demo).sequenceFrag),
			note(NoteHeartbeat),
			note(NoteInformer),
		),
		demo.Box("cp-cluster",
			demo.Around(func(demo.View) templ.Component { return desiredBox() },
				demo.Fragment("cp-apply", func(d *Demo) uint64 { return d.facts().keys.apply }, (*Demo).applyFrag),
				demo.Fragment("cp-objects", func(d *Demo) uint64 { return d.facts().keys.objects }, (*Demo).objectsFrag),
			),
			demo.Fragment("cp-components", func(d *Demo) uint64 { return d.facts().keys.components }, (*Demo).componentsFrag),
			note(NoteEviction),
			note(NoteBinding),
			demo.Around(func(v demo.View) templ.Component { return nodesBox(v.Lang) },
				demo.Fragment("cp-tray", func(d *Demo) uint64 { return d.facts().keys.tray }, (*Demo).trayFrag),
				demo.Around(func(demo.View) templ.Component { return nodeList() }, nodeParts()...),
			),
			note(NoteScheduler),
			note(NotePodLifecycle),
			note(NoteDeadline),
			note(NoteVersion),
			// The skip bar: the button and the line saying what comes
			// next, two fragments, so that the button stays put while
			// the line changes with every message.
			demo.Box("cp-next",
				demo.Fragment("cp-skip", func(d *Demo) uint64 { return d.facts().keys.skip }, (*Demo).skipFrag),
				demo.Fragment("cp-next-line", func(d *Demo) uint64 { return d.facts().keys.next }, (*Demo).nextFrag),
			),
			demo.Controls(),
			demo.Error(),
		),
	),
	demo.Box("cp-lower",
		demo.Fragment("cp-quiz", func(d *Demo) uint64 { return d.facts().keys.quiz }, (*Demo).quizFrag),
		demo.Box("cp-runtime-wrap",
			demo.Fragment("cp-runtime", func(d *Demo) uint64 { return d.facts().keys.runtime }, (*Demo).runtimeFrag),
			note(NoteRuntime),
		),
		demo.Log(Prefix, demo.LogSource[*Demo]{
			Key:   func(d *Demo) uint64 { return d.facts().keys.log },
			Lines: func(d *Demo, l ui.Lang) []ui.LogLine { return logLines(l, d.facts().events) },
			Title: func(l ui.Lang) string { return T(l, "cp.log") },
		}),
	),
	demo.LiveText(func(d *Demo) uint64 { return d.facts().keys.live }, (*Demo).liveText),
	demo.Snapshot(),
)

// nodeParts declares a fragment per node: its card.
func nodeParts() []demo.Part {
	nodes := make([]demo.Part, cp.NodeCount)
	for i, name := range cp.NodeNames() {
		nodes[i] = demo.Fragment("cp-n-"+name, func(d *Demo) uint64 { return d.facts().keys.nodes[i] },
			func(d *Demo, v demo.View) templ.Component { return d.nodeFrag(v, i) })
	}
	return nodes
}

// The topics of the one-line notes where the demo simplifies real
// Kubernetes: each stands once on the page, from its first load, next to
// the part it concerns (see parts), as data-testid="note" data-topic=….
const (
	NoteSlowStart    = "slow-start"    // the guide's POST Pod ×3 (under the guide)
	NoteHeartbeat    = "heartbeat"     // Lease renewals computed, not drawn (under the diagram)
	NoteInformer     = "informer"      // no informer cache, no echo of one's own writes (under the diagram)
	NoteEviction     = "eviction"      // the node controller evicts, not the taint-eviction-controller (under the control plane)
	NoteBinding      = "binding"       // one scheduling pass binds every pod (under the control plane)
	NoteScheduler    = "scheduler"     // taints and a pod count, no CPU or memory (under the nodes)
	NotePodLifecycle = "pod-lifecycle" // no probes, no grace period (under the nodes)
	NoteDeadline     = "deadline"      // exact deadlines, not the 5 s monitor period (under the nodes)
	NoteVersion      = "version"       // node-monitor-grace-period 50 s from 1.32, 40 s before (under the nodes)
	NoteRuntime      = "runtime"       // the runtime switch applies at once (under figure 4)
)

// Notes lists the notes' topics in the page's order.
var Notes = []string{NoteSlowStart, NoteHeartbeat, NoteInformer, NoteEviction, NoteBinding, NoteScheduler,
	NotePodLifecycle, NoteDeadline, NoteVersion, NoteRuntime}

// note is the one-line note of topic, rendered with the page only.
func note(topic string) demo.Part {
	return demo.Static(func(v demo.View) templ.Component { return noteLine(topic, T(v.Lang, "note."+topic)) })
}

// Frozen reports whether time stands still whatever the pace: during the
// guide, whose messages move only with its buttons, the page's clock shows
// paused.
func (d *Demo) Frozen() bool { return !d.Live() }

// SnapshotJSON returns the snapshot the page keeps.
func (d *Demo) SnapshotJSON() string { return demo.MustJSON(d.Snapshot()) }

// WriteSnapshotJSON writes SnapshotJSON as it encodes it.
func (d *Demo) WriteSnapshotJSON(w io.Writer) error { return demo.WriteJSON(w, d.Snapshot()) }

var (
	_ demo.Instance = (*Demo)(nil)
	_ demo.Freezer  = (*Demo)(nil)
	_ demo.Marker   = (*Demo)(nil)
)
