package reconcile

import (
	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the demo's state into its components' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// Props is the demo's state as its components lay it out.
type Props struct {
	Lang     ui.Lang
	Desired  int
	Max      int
	Pods     []PodProps
	Alive    int
	Running  int
	Pending  int
	Failed   int
	Diff     DiffProps
	Controls ui.ControlProps
	Clock    ui.ClockProps
	Last     *ReportProps
	Log      []ui.LogLine
	Chart    ui.ChartProps
	Live     string
	Error    string
	Snapshot string // JSON
}

// PodProps is one pod card.
type PodProps struct {
	Name  string
	Phase string  // the engine's String()
	ETA   *ui.ETA // while Pending: when it starts
}

// DiffProps is the diff line.
type DiffProps struct {
	Converged bool
	Key       string // catalog key of the headline
	Detail    string
	Hint      string // shown when the controller is off and a difference remains
}

// ReportProps is the last reconcile.
type ReportProps struct {
	Explain string
	Trigger string
	At      string
	Actions []ActionProps
}

// ActionProps is one action of a reconcile.
type ActionProps struct {
	Kind   string
	Target string
	Text   string
}

// props builds the demo's props in l, with the refusal errText shown.
func (d *Demo) props(l ui.Lang, errText string) *Props {
	now := d.Now()
	p := &Props{Lang: l, Desired: d.Desired(), Max: MaxDesired, Error: errText,
		Controls: ui.ControlProps{Prefix: Prefix, HasController: true, Controller: d.Controller(), Paused: d.Paused(),
			Speed: d.Speed().String(), StepText: ui.T(l, "ctl.step"), HasReset: true},
		Clock: ui.ClockProps{Prefix: Prefix, Ms: now.Milliseconds(), Paused: d.Paused(), Speed: d.Speed().String()}}
	for _, pod := range d.Pods() {
		pp := PodProps{Name: pod.Name, Phase: pod.Phase.String()}
		switch pod.Phase {
		case chapter.Running:
			p.Running++
		case chapter.Pending:
			p.Pending++
			pp.ETA = ui.StartsIn(l, now, pod.StartsIn)
		case chapter.Failed:
			p.Failed++
		}
		p.Pods = append(p.Pods, pp)
	}
	p.Alive = p.Running + p.Pending
	p.Chart = d.chart(l)
	p.Snapshot = demo.MustJSON(d.Snapshot())
	p.Diff = DiffProps{Converged: d.Converged(), Detail: F(l, "rc.diff.detail", p.Desired, p.Alive, p.Running)}
	f, c, x := d.Diff()
	switch {
	case p.Diff.Converged:
		p.Diff.Key = "rc.diff.converged"
	case f+c+x == 0:
		p.Diff.Key = "rc.diff.starting"
	default:
		p.Diff.Key = "rc.diff.need"
		if !d.Controller() {
			p.Diff.Hint = T(l, "rc.diff.off")
		}
	}
	if r, ok := d.Last(); ok {
		p.Last = reportProps(l, r)
		p.Live = F(l, "rc.live", ui.ClockText(r.At), p.Last.Trigger, p.Last.Explain, actionsText(l, p.Last.Actions))
	}
	p.Log = logLines(l, d.Log.Newest(ui.LogShown))
	return p
}

// explain says a reconcile in the chapter's words: 「3 あるべきところ 2 → 1 つ作る」.
func explain(l ui.Lang, r Report) string {
	var created, deleted int
	for _, a := range r.Actions {
		if a.Kind == "create" {
			created++
		} else {
			deleted++
		}
	}
	head := F(l, "rc.explain", r.Desired, r.Observed)
	if r.Failed > 0 {
		head += F(l, "rc.explain.failed", r.Failed)
		deleted -= r.Failed
	}
	var moves []string
	if created > 0 {
		moves = append(moves, F(l, "rc.explain.create", created))
	}
	if deleted > 0 {
		moves = append(moves, F(l, "rc.explain.delete", deleted))
	}
	if len(moves) == 0 && r.Failed == 0 {
		moves = append(moves, T(l, "rc.explain.noop"))
	}
	return head + " → " + ui.List(l, moves)
}

func reportProps(l ui.Lang, r Report) *ReportProps {
	p := &ReportProps{Explain: explain(l, r), Trigger: T(l, "trigger."+r.Trigger), At: ui.ClockText(r.At)}
	for _, a := range r.Actions {
		p.Actions = append(p.Actions, ActionProps{Kind: a.Kind, Target: a.Pod, Text: F(l, "rc.act."+a.Kind, a.Pod)})
	}
	return p
}

func actionsText(l ui.Lang, as []ActionProps) string {
	if len(as) == 0 {
		return T(l, "rc.explain.noop")
	}
	texts := make([]string, len(as))
	for i, a := range as {
		texts[i] = a.Text
	}
	return ui.List(l, texts)
}

func logLines(l ui.Lang, events []sim.Event) []ui.LogLine {
	out := make([]ui.LogLine, len(events))
	for i, e := range events {
		out[i] = ui.LogLine{Seq: e.Seq, At: ui.ClockText(e.At), Kind: e.Kind, Text: eventText(l, e)}
	}
	return out
}

// eventText says one log event.
func eventText(l ui.Lang, e sim.Event) string {
	key := "log." + e.Kind
	switch e.Kind {
	case EventDesired:
		return F(l, key, e.M, e.N)
	case EventCreate:
		return F(l, key, e.Name, e.N, e.M)
	case EventConverged:
		return F(l, key, e.N)
	case EventNoop:
		return F(l, key, e.N, e.M)
	case sim.EventWatchStart, sim.EventWatchStop, sim.EventReset, sim.EventRestored:
		return T(l, key)
	}
	return F(l, key, e.Name)
}

// chart draws desired against Running, Pending and Failed over the window.
func (d *Demo) chart(l ui.Lang) ui.ChartProps {
	series := []ui.Series{
		{Class: "s-desired", Label: T(l, "legend.desired")},
		{Class: "s-running", Label: T(l, "phase.Running")},
		{Class: "s-pending", Label: T(l, "phase.Pending")},
		{Class: "s-failed", Label: T(l, "phase.Failed")},
	}
	for i := range series {
		series[i].Steps = make([]ui.Step, d.hist.Len())
	}
	for j, h := range d.hist.All() {
		for i, v := range [...]int{h.Desired, h.Running, h.Pending, h.Failed} {
			series[i].Steps[j] = ui.Step{At: h.At, V: v}
		}
	}
	return ui.LineChart(Prefix, T(l, "rc.chart"), T(l, "rc.chart.desc"), d.Now(), d.Window(), series)
}
