package operator

import (
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Props is the demo's state as its components lay it out; each fragment
// fills only the fields it reads.
type Props struct {
	Lang        ui.Lang
	SpecMembers int
	MinMembers  int
	MaxMembers  int
	RestoreFrom string
	Backup      bool
	Phase       string
	Ready       int
	Leader      string
	Restored    bool
	Conditions  []ConditionProps
	Members     []MemberProps
	Next        NextProps
	Last        *ReportProps
}

// ConditionProps is one condition row.
type ConditionProps struct {
	Type    string
	Status  string
	Reason  string
	Message string
	Since   string
}

// MemberProps is one member card.
type MemberProps struct {
	Name   string
	Ready  bool
	Leader bool
	ETA    *ui.ETA // while starting: when it is ready
}

// NextProps is the difference the next reconcile will fill.
type NextProps struct {
	Kind string
	Text string
}

// ReportProps is the last reconcile.
type ReportProps struct {
	Explain string
	Trigger string
	At      string
	Actions []ActionProps
}

// ActionProps is the chapter's Action of a reconcile.
type ActionProps struct {
	Kind   string
	Target string
	Text   string
}

func (d *Demo) specFrag(v demo.View) templ.Component {
	r := d.Resource()
	return specPanel(&Props{Lang: v.Lang, SpecMembers: r.Spec.Members, MinMembers: MinMembers, MaxMembers: MaxMembers,
		RestoreFrom: r.Spec.RestoreFrom, Backup: d.Backup()})
}

func (d *Demo) statusFrag(v demo.View) templ.Component {
	r := d.Resource()
	p := &Props{Lang: v.Lang, SpecMembers: r.Spec.Members, Phase: r.Status.Phase.String(), Ready: r.Status.Members,
		Leader: r.Status.Leader, Restored: r.Status.Restored}
	for _, c := range d.Conditions() {
		p.Conditions = append(p.Conditions, ConditionProps{Type: c.Type, Status: string(c.Status), Reason: c.Reason,
			Message: c.Message, Since: ui.ClockText(c.LastTransitionTime)})
	}
	return statusPanel(p)
}

func (d *Demo) membersFrag(v demo.View) templ.Component {
	now := d.Now()
	p := &Props{Lang: v.Lang}
	for _, m := range d.Members() {
		mp := MemberProps{Name: m.Name, Ready: m.Ready, Leader: m.Leader}
		if !m.Ready {
			mp.ETA = ui.StartsIn(v.Lang, now, m.StartsIn)
		}
		p.Members = append(p.Members, mp)
	}
	return membersPanel(p)
}

func (d *Demo) nextFrag(v demo.View) templ.Component {
	next := d.Next()
	return nextLine(&Props{Lang: v.Lang, Next: NextProps{Kind: next.Kind, Text: T(v.Lang, "op.next."+next.Kind)}})
}

func (d *Demo) lastFrag(v demo.View) templ.Component {
	return lastPanel(&Props{Lang: v.Lang, Last: d.lastReport(v.Lang)})
}

// lastReport says the last reconcile's move; nil before the first.
func (d *Demo) lastReport(l ui.Lang) *ReportProps {
	rep, ok := d.Last()
	if !ok {
		return nil
	}
	last := &ReportProps{At: ui.ClockText(rep.At), Trigger: T(l, "trigger."+rep.Trigger), Explain: T(l, "op.next."+rep.Plan.Kind)}
	text := T(l, "op.act.noop")
	if rep.Action.Kind != "noop" {
		text = F(l, "op.act."+rep.Action.Kind, rep.Action.Target)
	}
	last.Actions = []ActionProps{{Kind: rep.Action.Kind, Target: rep.Action.Target, Text: text}}
	return last
}

// liveText says the last reconcile in one sentence, for the live region.
func (d *Demo) liveText(l ui.Lang) string {
	last := d.lastReport(l)
	if last == nil {
		return ""
	}
	rep, _ := d.Last()
	return F(l, "op.live", last.At, last.Trigger, last.Actions[0].Text, T(l, "opphase."+rep.Phase.String()))
}

// chartFrag writes the chart: whole on the page, and else its axis and
// legend around the plot and the table the page has (plotFrag, tableFrag).
func (d *Demo) chartFrag(v demo.View) templ.Component {
	return ui.ChartHolding(d.chart(v.Lang), v.InPage())
}

// plotFrag writes the chart's plot: its bands.
func (d *Demo) plotFrag(v demo.View) templ.Component { return ui.ChartPlot(d.chart(v.Lang)) }

// tableFrag writes the chart's table, for screen readers.
func (d *Demo) tableFrag(v demo.View) templ.Component { return ui.ChartData(d.chart(v.Lang)) }

// bandsKey stands for the chart's plot and table: the history they draw.
func (d *Demo) bandsKey() uint64 { return demo.Mix(d.epoch.Key(), d.hist.Version()) }

// chartKey stands for the chart around its plot and table: the time its
// axis spans, and its legend, the phases in the order the history first
// has them (BandChart's).
func (d *Demo) chartKey() uint64 {
	var origin time.Duration
	var seen [8]string
	legend, n := d.epoch.Key(), 0
	for _, h := range d.hist.All() {
		origin = h.At
		if !slices.Contains(seen[:n], h.Phase) {
			if n < len(seen) {
				seen[n], n = h.Phase, n+1
			}
			legend = demo.Mix(legend, demo.Str(h.Phase))
		}
	}
	return demo.Mix(legend, uint64(ui.ChartSpan(origin, d.Window())))
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
	case EventSpecMembers:
		return F(l, key, e.M, e.N)
	case EventOpWait:
		return F(l, key, e.N, e.M)
	case EventBackup:
		if e.N == 1 {
			return F(l, "log.backup.on", e.Name)
		}
		return F(l, "log.backup.off", e.Name)
	case sim.EventWatchStart, sim.EventWatchStop, sim.EventReset, sim.EventRestored, EventOpNoop, EventOpReady:
		return T(l, key)
	}
	return F(l, key, e.Name)
}

// chart draws Status.phase over the window as bands.
func (d *Demo) chart(l ui.Lang) ui.ChartProps {
	var spans []ui.Span
	for _, h := range d.hist.All() {
		spans = append(spans, ui.Span{At: h.At, Class: "b-" + strings.ToLower(h.Phase), Label: T(l, "opphase."+h.Phase)})
	}
	return ui.BandChart(Prefix, T(l, "op.chart"), T(l, "op.chart.desc"), d.Window(), spans, "phase")
}
