package reconcile

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the demo's state into its components' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// Props is the demo's state as its components lay it out; each fragment
// fills only the fields it reads.
type Props struct {
	Lang    ui.Lang
	Desired int
	Max     int
	Pods    []PodProps // nil: the panel keeps the page's (podList)
	Count   int        // the pods
	Alive   int
	Running int
	Pending int
	Failed  int
	Diff    DiffProps
	Last    *ReportProps
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

func (d *Demo) desiredFrag(v demo.View) templ.Component {
	return desiredPanel(&Props{Lang: v.Lang, Desired: d.Desired(), Max: MaxDesired})
}

// observedFrag lays out the pods' counts, and their cards on a page only:
// frames send the cards apart (podsFrag).
func (d *Demo) observedFrag(v demo.View) templ.Component {
	return observedPanel(d.observed(v.Lang, v.InPage()))
}

// observedKey sums up the panel's counts. Every frame reads it: it
// allocates nothing.
func (d *Demo) observedKey() uint64 {
	c := d.podCounts()
	return demo.Mix(demo.I(c.pods), demo.I(c.running), demo.I(c.pending), demo.I(c.failed))
}

// podCounts are the pods by phase.
type podCounts struct{ pods, running, pending, failed int }

func (d *Demo) podCounts() (c podCounts) {
	var buf [2 * MaxDesired]chapter.Pod // the most a cluster holds but after a burst of kills
	for _, pod := range d.cluster.AppendPods(buf[:0]) {
		c.pods++
		switch pod.Phase {
		case chapter.Running:
			c.running++
		case chapter.Pending:
			c.pending++
		case chapter.Failed:
			c.failed++
		}
	}
	return c
}

// podsFrag renders the pods' cards, whole.
func (d *Demo) podsFrag(v demo.View) templ.Component {
	return podList(v.Lang, d.observed(v.Lang, true).Pods, false)
}

// podItems appends the pods' cards, formatting none: a pod's name within
// the state's epoch, and its phase with, while it is Pending, when it
// starts (the countdown's end, which is all the page is sent).
func (d *Demo) podItems(items []demo.Item) []demo.Item {
	var buf [2 * MaxDesired]chapter.Pod
	now, ep := d.Now(), d.epoch.Key()
	for _, pod := range d.cluster.AppendPods(buf[:0]) {
		k := demo.I(int(pod.Phase))
		if pod.Phase == chapter.Pending {
			in, _ := d.StartsIn(pod.Name)
			k = demo.Mix(k, uint64((now + in).Milliseconds()))
		}
		items = append(items, demo.Item{ID: demo.Mix(ep, demo.Str(pod.Name)), Key: k})
	}
	return items
}

// podRow renders pod j's card (of podItems).
func (d *Demo) podRow(l ui.Lang, j int) templ.Component {
	return podRows(l, d.observed(l, true).Pods[j:j+1])
}

// observed counts the pods by phase and, with pods, lays them out as
// cards: the diff line reads only the counts.
func (d *Demo) observed(l ui.Lang, pods bool) *Props {
	c := d.podCounts()
	p := &Props{Lang: l, Desired: d.Desired(), Count: c.pods, Running: c.running, Pending: c.pending, Failed: c.failed,
		Alive: c.running + c.pending}
	if !pods {
		return p
	}
	now := d.Now()
	var buf [2 * MaxDesired]chapter.Pod
	all := d.cluster.AppendPods(buf[:0])
	p.Pods = make([]PodProps, 0, len(all))
	for _, pod := range all {
		pp := PodProps{Name: pod.Name, Phase: pod.Phase.String()}
		if pod.Phase == chapter.Pending {
			in, _ := d.StartsIn(pod.Name)
			pp.ETA = ui.StartsIn(l, now, in)
		}
		p.Pods = append(p.Pods, pp)
	}
	return p
}

func (d *Demo) diffFrag(v demo.View) templ.Component {
	l := v.Lang
	p := d.observed(l, false)
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
	return diffLine(p)
}

func (d *Demo) actionsFrag(v demo.View) templ.Component {
	p := &Props{Lang: v.Lang}
	if r, ok := d.Last(); ok {
		p.Last = reportProps(v.Lang, r)
	}
	return actionsPanel(p)
}

// chartFrag writes the chart: whole on the page, and else its axes and
// legend around the plot and the table the page has (plotFrag, tableFrag).
func (d *Demo) chartFrag(v demo.View) templ.Component {
	parts := ui.ChartAxes
	if v.InPage() {
		parts = ui.ChartWhole
	}
	return d.chartPart(v, parts, func(c ui.ChartProps) templ.Component { return ui.ChartHolding(c, v.InPage()) })
}

// plotFrag writes the chart's plot: its lines.
func (d *Demo) plotFrag(v demo.View) templ.Component {
	return d.chartPart(v, ui.ChartLines, ui.ChartPlot)
}

// tableFrag writes the chart's table, for screen readers.
func (d *Demo) tableFrag(v demo.View) templ.Component {
	return d.chartPart(v, ui.ChartRows, ui.ChartData)
}

// chartPart writes part of the chart, drawing only what it shows of it,
// with its lines' points in an array from pointsPool, given back once the
// part is written.
func (d *Demo) chartPart(v demo.View, parts ui.ChartParts, part func(ui.ChartProps) templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		points := pointsPool.Get().(*[]byte)
		defer pointsPool.Put(points)
		return part(d.chart(v.Lang, parts, points)).Render(ctx, w)
	})
}

// linesKey stands for the chart's plot and table: the history they draw.
func (d *Demo) linesKey() uint64 { return demo.Mix(d.epoch.Key(), d.hist.Version()) }

// chartKey stands for the chart around its plot and table: its scale, the
// largest value (at least 5, as LineChart's) and the time the axis spans.
func (d *Demo) chartKey() uint64 {
	top := 5
	var origin time.Duration
	for _, h := range d.hist.All() {
		top = max(top, h.Desired, h.Running, h.Pending, h.Failed)
		origin = h.At
	}
	return demo.Mix(d.epoch.Key(), demo.I(top), uint64(ui.ChartSpan(origin, d.Window())))
}

// pointsPool holds the arrays of the chart's points between frames.
var pointsPool = sync.Pool{New: func() any { return new([]byte) }}

// liveText says the last reconcile in one sentence, for the live region.
func (d *Demo) liveText(l ui.Lang) string {
	r, ok := d.Last()
	if !ok {
		return ""
	}
	last := reportProps(l, r)
	return F(l, "rc.live", ui.ClockText(r.At), last.Trigger, last.Explain, actionsText(l, last.Actions))
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
func (d *Demo) chart(l ui.Lang, parts ui.ChartParts, points *[]byte) ui.ChartProps {
	series := []ui.Series{
		{Class: "s-desired", Label: T(l, "legend.desired")},
		{Class: "s-running", Label: T(l, "phase.Running")},
		{Class: "s-pending", Label: T(l, "phase.Pending")},
		{Class: "s-failed", Label: T(l, "phase.Failed")},
	}
	// The steps are read while the chart is laid out, not after: their
	// array goes back to the pool.
	n := d.hist.Len()
	steps := stepPool.Get().(*[]ui.Step)
	defer stepPool.Put(steps)
	*steps = slices.Grow((*steps)[:0], len(series)*n)[:len(series)*n]
	for i := range series {
		series[i].Steps = (*steps)[i*n : (i+1)*n : (i+1)*n]
	}
	for j, h := range d.hist.All() {
		for i, v := range [...]int{h.Desired, h.Running, h.Pending, h.Failed} {
			series[i].Steps[j] = ui.Step{At: h.At, V: v}
		}
	}
	return ui.LineChartOf(parts, Prefix, T(l, "rc.chart"), T(l, "rc.chart.desc"), d.Window(), series, points)
}

// stepPool holds the arrays of the chart's steps between frames.
var stepPool = sync.Pool{New: func() any { return new([]ui.Step) }}

// podRows writes the observed pods (ui.WritePod).
func podRows(l ui.Lang, pods []PodProps) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		h := ui.NewHTML(w)
		for _, pod := range pods {
			ui.WritePod(h, &ui.PodRow{Name: pod.Name, Phase: pod.Phase, PhaseText: T(l, "phase."+pod.Phase), ETA: pod.ETA,
				IDPrefix: "rc", KillLabel: F(l, "rc.kill.label", pod.Name), Kill: T(l, "rc.kill")})
		}
		return h.Err()
	})
}
