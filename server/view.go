package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	t "github.com/reconcile-demo/reconcile-demo/templates"
)

// This file turns the engines' state into the templates' props: every
// sentence comes from the catalog, so the same state reads in either
// language.

// clockText formats virtual time as mm:ss.s.
func clockText(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	m := int(d / time.Minute)
	s := float64(d%time.Minute) / float64(time.Second)
	return fmt.Sprintf("%02d:%04.1f", m, s)
}

func secondsText(l t.Lang, key string, d time.Duration) string {
	return t.F(l, key, d.Seconds())
}

func controlProps(prefix string, on, paused bool, speed sim.Speed, now time.Duration, stepKey string) t.ControlProps {
	return t.ControlProps{Prefix: prefix, Controller: on, Paused: paused, Speed: speed.String(),
		Now: clockText(now), StepKey: stepKey}
}

// reconcileProps builds the reconcile demo's props. Without all, it builds
// only what time alone changes (clock, pods' start countdowns, chart,
// snapshot), for the frames of a scrolling chart.
func reconcileProps(l t.Lang, d *sim.ReplicaDemo, errText string, all bool) *t.ReconcileProps {
	p := &t.ReconcileProps{Lang: l, Desired: d.Desired(), Max: sim.MaxDesired, Error: errText,
		Controls: controlProps("rc", d.Controller(), d.Paused(), d.Speed(), d.Now(), "ctl.step")}
	for _, pod := range d.Pods() {
		pp := t.PodProps{Name: pod.Name, Phase: pod.Phase.String()}
		switch pod.Phase {
		case reconcile.Running:
			p.Running++
		case reconcile.Pending:
			p.Pending++
			pp.StartsIn = secondsText(l, "rc.startsin", pod.StartsIn)
		case reconcile.Failed:
			p.Failed++
		}
		p.Pods = append(p.Pods, pp)
	}
	p.Alive = p.Running + p.Pending
	p.Chart = replicaChart(l, d.History(), d.Now(), d.Window())
	p.Snapshot = mustJSON(d.Snapshot())
	if !all {
		return p
	}
	p.Diff = t.DiffProps{Converged: d.Converged(),
		Detail: t.F(l, "rc.diff.detail", p.Desired, p.Alive, p.Running)}
	f, c, x := d.Diff()
	switch {
	case p.Diff.Converged:
		p.Diff.Key = "rc.diff.converged"
	case f+c+x == 0:
		p.Diff.Key = "rc.diff.starting"
	default:
		p.Diff.Key = "rc.diff.need"
		if !d.Controller() {
			p.Diff.Hint = t.T(l, "rc.diff.off")
		}
	}
	if r, ok := d.Last(); ok {
		p.Last = reportProps(l, r)
		p.Live = t.F(l, "rc.live", clockText(r.At), p.Last.Trigger, p.Last.Explain, actionsText(l, p.Last.Actions))
	}
	p.Log = logLines(l, d.Events())
	return p
}

// explain says a reconcile in the chapter's words: 「3 あるべきところ 2 → 1 つ作る」.
func explain(l t.Lang, r sim.Report) string {
	var created, deleted int
	for _, a := range r.Actions {
		if a.Kind == "create" {
			created++
		} else {
			deleted++
		}
	}
	head := t.F(l, "rc.explain", r.Desired, r.Observed)
	if r.Failed > 0 {
		head += t.F(l, "rc.explain.failed", r.Failed)
		deleted -= r.Failed
	}
	var moves []string
	if created > 0 {
		moves = append(moves, t.F(l, "rc.explain.create", created))
	}
	if deleted > 0 {
		moves = append(moves, t.F(l, "rc.explain.delete", deleted))
	}
	if len(moves) == 0 && r.Failed == 0 {
		moves = append(moves, t.T(l, "rc.explain.noop"))
	}
	return head + " → " + t.List(l, moves)
}

func reportProps(l t.Lang, r sim.Report) *t.ReportProps {
	p := &t.ReportProps{Explain: explain(l, r), Trigger: t.T(l, "rc.trigger."+r.Trigger), At: clockText(r.At)}
	for _, a := range r.Actions {
		p.Actions = append(p.Actions, t.ActionProps{Kind: a.Kind, Target: a.Pod, Text: t.F(l, "rc.act."+a.Kind, a.Pod)})
	}
	return p
}

func actionsText(l t.Lang, as []t.ActionProps) string {
	if len(as) == 0 {
		return t.T(l, "rc.explain.noop")
	}
	texts := make([]string, len(as))
	for i, a := range as {
		texts[i] = a.Text
	}
	return t.List(l, texts)
}

func logLines(l t.Lang, events []sim.Event) []t.LogLine {
	out := make([]t.LogLine, len(events))
	for i, e := range events {
		out[i] = t.LogLine{Seq: e.Seq, At: clockText(e.At), Kind: e.Kind, Text: eventText(l, e)}
	}
	return out
}

// eventText says one log event.
func eventText(l t.Lang, e sim.Event) string {
	key := "log." + e.Kind
	switch e.Kind {
	case sim.EventDesired, sim.EventSpecMembers:
		return t.F(l, key, e.M, e.N)
	case sim.EventCreate:
		return t.F(l, key, e.Name, e.N, e.M)
	case sim.EventConverged:
		return t.F(l, key, e.N)
	case sim.EventNoop:
		return t.F(l, key, e.N, e.M)
	case sim.EventOpWait:
		return t.F(l, key, e.N, e.M)
	case sim.EventBackup:
		if e.N == 1 {
			return t.F(l, "log.backup.on", e.Name)
		}
		return t.F(l, "log.backup.off", e.Name)
	case sim.EventWatchStart, sim.EventWatchStop, sim.EventReset, sim.EventRestored, sim.EventOpNoop, sim.EventOpReady:
		return t.T(l, key)
	}
	return t.F(l, key, e.Name)
}

// operatorProps builds the operator demo's props; without all, only what
// time alone changes, as reconcileProps.
func operatorProps(l t.Lang, d *sim.OperatorDemo, errText string, all bool) *t.OperatorProps {
	r := d.Resource()
	p := &t.OperatorProps{Lang: l, SpecMembers: r.Spec.Members, MinMembers: sim.MinMembers, MaxMembers: sim.MaxMembers,
		RestoreFrom: r.Spec.RestoreFrom, Backup: d.Backup(), Phase: r.Status.Phase.String(), Ready: r.Status.Members,
		Leader: r.Status.Leader, Restored: r.Status.Restored, Error: errText,
		Controls: controlProps("op", d.Controller(), d.Paused(), d.Speed(), d.Now(), "ctl.step.op")}
	for _, m := range d.Members() {
		mp := t.MemberProps{Name: m.Name, Ready: m.Ready, Leader: m.Leader}
		if !m.Ready {
			mp.StartsIn = secondsText(l, "rc.startsin", m.StartsIn)
		}
		p.Members = append(p.Members, mp)
	}
	p.Chart = phaseChart(l, d.History(), d.Now(), d.Window())
	p.Snapshot = mustJSON(d.Snapshot())
	if !all {
		return p
	}
	for _, c := range d.Conditions() {
		p.Conditions = append(p.Conditions, t.ConditionProps{Type: c.Type, Status: string(c.Status), Reason: c.Reason,
			Message: c.Message, Since: clockText(c.LastTransitionTime)})
	}
	next := d.Next()
	p.Next = t.NextProps{Kind: next.Kind, Text: t.T(l, "op.next."+next.Kind)}
	if rep, ok := d.Last(); ok {
		p.Last = &t.ReportProps{At: clockText(rep.At), Trigger: t.T(l, "rc.trigger."+rep.Trigger),
			Explain: t.T(l, "op.next."+rep.Plan.Kind)}
		text := t.T(l, "op.act.noop")
		if rep.Action.Kind != "noop" {
			text = t.F(l, "op.act."+rep.Action.Kind, rep.Action.Target)
		}
		p.Last.Actions = []t.ActionProps{{Kind: rep.Action.Kind, Target: rep.Action.Target, Text: text}}
		p.Live = t.F(l, "op.live", p.Last.At, p.Last.Trigger, text, t.T(l, "opphase."+rep.Phase.String()))
	}
	p.Log = logLines(l, d.Events())
	return p
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("server: snapshot: " + err.Error()) // snapshots are plain structs
	}
	return string(b)
}

// errorText is the visitor's sentence for a rejection.
func errorText(l t.Lang, r *rejection) string {
	if r == nil {
		return ""
	}
	return strings.TrimSpace(t.F(l, r.Key, r.Args...))
}
