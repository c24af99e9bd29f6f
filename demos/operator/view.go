package operator

import (
	"strings"

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

func (d *Demo) chartFrag(v demo.View) templ.Component { return ui.Chart(d.chart(v.Lang)) }

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
