package operator

import (
	"strings"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// Props is the demo's state as its components lay it out.
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
	Controls    ui.ControlProps
	Clock       ui.ClockProps
	Last        *ReportProps
	Log         []ui.LogLine
	Chart       ui.ChartProps
	Live        string
	Error       string
	Snapshot    string
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

// props builds the demo's props in l, with the refusal errText shown.
func (d *Demo) props(l ui.Lang, errText string) *Props {
	r := d.Resource()
	now := d.Now()
	p := &Props{Lang: l, SpecMembers: r.Spec.Members, MinMembers: MinMembers, MaxMembers: MaxMembers,
		RestoreFrom: r.Spec.RestoreFrom, Backup: d.Backup(), Phase: r.Status.Phase.String(), Ready: r.Status.Members,
		Leader: r.Status.Leader, Restored: r.Status.Restored, Error: errText,
		Controls: ui.ControlProps{Prefix: Prefix, HasController: true, Controller: d.Controller(), Paused: d.Paused(),
			Speed: d.Speed().String(), StepText: T(l, "op.step"), HasReset: true},
		Clock: ui.ClockProps{Prefix: Prefix, Ms: now.Milliseconds(), Paused: d.Paused(), Speed: d.Speed().String()}}
	for _, m := range d.Members() {
		mp := MemberProps{Name: m.Name, Ready: m.Ready, Leader: m.Leader}
		if !m.Ready {
			mp.ETA = ui.StartsIn(l, now, m.StartsIn)
		}
		p.Members = append(p.Members, mp)
	}
	p.Chart = d.chart(l)
	p.Snapshot = demo.MustJSON(d.Snapshot())
	for _, c := range d.Conditions() {
		p.Conditions = append(p.Conditions, ConditionProps{Type: c.Type, Status: string(c.Status), Reason: c.Reason,
			Message: c.Message, Since: ui.ClockText(c.LastTransitionTime)})
	}
	next := d.Next()
	p.Next = NextProps{Kind: next.Kind, Text: T(l, "op.next."+next.Kind)}
	if rep, ok := d.Last(); ok {
		p.Last = &ReportProps{At: ui.ClockText(rep.At), Trigger: T(l, "trigger."+rep.Trigger),
			Explain: T(l, "op.next."+rep.Plan.Kind)}
		text := T(l, "op.act.noop")
		if rep.Action.Kind != "noop" {
			text = F(l, "op.act."+rep.Action.Kind, rep.Action.Target)
		}
		p.Last.Actions = []ActionProps{{Kind: rep.Action.Kind, Target: rep.Action.Target, Text: text}}
		p.Live = F(l, "op.live", p.Last.At, p.Last.Trigger, text, T(l, "opphase."+rep.Phase.String()))
	}
	p.Log = logLines(l, d.Log.Newest(ui.LogShown))
	return p
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
