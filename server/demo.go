package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	t "github.com/reconcile-demo/reconcile-demo/templates"
)

// demo is what a session needs of either simulation: time, commands, and
// its state as fragments. Implementations are owned by one session
// goroutine and never shared.
type demo interface {
	Advance(d time.Duration)
	NextDue() (time.Duration, bool)
	Now() time.Duration
	Paused() bool
	reconciles() int
	// LastChange and Window tell until when the chart still scrolls.
	LastChange() time.Duration
	Window() time.Duration
	// apply carries out a validated command; a rejection changes nothing.
	apply(c command) *rejection
	// fragments returns the demo's top-level fragments, each owning its id:
	// all of them, or (all false) only those time alone changes.
	fragments(l t.Lang, sid, errText string, all bool) []fragment
	// EventSeq counts the demo's log events; every change that is not a
	// command (a start, a reconcile) logs one.
	EventSeq() int
}

// fragment is one top-level element of a frame, by id.
type fragment struct {
	id   string
	comp templ.Component
}

// newDemo returns the starting state of a demo kind.
func newDemo(kind string, opt sim.Options) demo {
	if kind == "operator" {
		return &opDemo{sim.NewOperatorDemo(opt, false)}
	}
	return &rcDemo{sim.NewReplicaDemo(opt, 3, true)}
}

// restoreDemo rebuilds a demo from a snapshot sent by the page.
func restoreDemo(kind string, opt sim.Options, raw json.RawMessage) (demo, error) {
	if kind == "operator" {
		var snap sim.OperatorSnapshot
		if err := strictUnmarshal(raw, &snap); err != nil {
			return nil, err
		}
		d, err := sim.RestoreOperatorDemo(opt, snap)
		if err != nil {
			return nil, err
		}
		return &opDemo{d}, nil
	}
	var snap sim.ReplicaSnapshot
	if err := strictUnmarshal(raw, &snap); err != nil {
		return nil, err
	}
	d, err := sim.RestoreReplicaDemo(opt, snap)
	if err != nil {
		return nil, err
	}
	return &rcDemo{d}, nil
}

func strictUnmarshal(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode snapshot: %w", err)
	}
	return nil
}

// pace is what both simulations share: the controller switch, pause, speed
// and reset.
type pace interface {
	SetController(on bool)
	SetPaused(paused bool)
	SetSpeed(sp sim.Speed)
	Reset()
}

// applyPace carries out the commands both demos share.
func applyPace(d pace, c command) {
	switch c.Action {
	case "controller":
		d.SetController(c.On)
	case "pause":
		d.SetPaused(c.On)
	case "speed":
		d.SetSpeed(c.Speed)
	case "reset":
		d.Reset()
	}
}

type rcDemo struct{ *sim.ReplicaDemo }

func (d *rcDemo) reconciles() int { return d.Reconciles() }

func (d *rcDemo) apply(c command) *rejection {
	switch c.Action {
	case "kill":
		if err := d.Kill(c.Name); err != nil {
			return &rejection{Reason: reasonUnknownTarget, Key: "err.pod", Args: []any{c.Name}}
		}
	case "replicas-inc", "replicas-dec", "set-replicas":
		n := c.N
		switch c.Action {
		case "replicas-inc":
			n = d.Desired() + 1
		case "replicas-dec":
			n = d.Desired() - 1
		}
		if err := d.SetDesired(n); err != nil {
			return &rejection{Reason: reasonOutOfRange, Key: "err.range", Args: []any{"replicas", 0, sim.MaxDesired}}
		}
	case "step":
		d.Step()
	default:
		applyPace(d, c)
	}
	return nil
}

func (d *rcDemo) fragments(l t.Lang, sid, errText string, all bool) []fragment {
	p := reconcileProps(l, d.ReplicaDemo, errText, all)
	if !all {
		return []fragment{
			{"rc-clock", t.Clock(l, "rc", p.Controls.Now, d.Now().Milliseconds(), p.Controls.Paused)},
			{"rc-observed", t.RcObserved(p)},
			{"rc-chart", t.Chart("rc", p.Chart)},
			{"rc-snapshot", t.Snapshot("rc", sid, p.Snapshot)},
		}
	}
	return []fragment{
		{"rc-clock", t.Clock(l, "rc", p.Controls.Now, d.Now().Milliseconds(), p.Controls.Paused)},
		{"rc-desired", t.RcDesired(p)},
		{"rc-observed", t.RcObserved(p)},
		{"rc-diff", t.RcDiff(p)},
		{"rc-controls", t.Controls(l, p.Controls)},
		{"rc-error", t.ErrorBox(l, "rc", p.Error)},
		{"rc-actions", t.RcActions(p)},
		{"rc-chart", t.Chart("rc", p.Chart)},
		{"rc-log", t.Log(l, "rc", "rc.log", p.Log)},
		{"rc-live", t.Live("rc", p.Live)},
		{"rc-snapshot", t.Snapshot("rc", sid, p.Snapshot)},
	}
}

type opDemo struct{ *sim.OperatorDemo }

func (d *opDemo) reconciles() int { return d.Reconciles() }

func (d *opDemo) apply(c command) *rejection {
	switch c.Action {
	case "kill-member":
		if err := d.Kill(c.Name); err != nil {
			return &rejection{Reason: reasonUnknownTarget, Key: "err.member", Args: []any{c.Name}}
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
			return &rejection{Reason: reasonOutOfRange, Key: "err.range", Args: []any{"members", sim.MinMembers, sim.MaxMembers}}
		}
	case "backup":
		d.SetBackup(c.On)
	case "step":
		d.Step()
	default:
		applyPace(d, c)
	}
	return nil
}

func (d *opDemo) fragments(l t.Lang, sid, errText string, all bool) []fragment {
	p := operatorProps(l, d.OperatorDemo, errText, all)
	if !all {
		return []fragment{
			{"op-clock", t.Clock(l, "op", p.Controls.Now, d.Now().Milliseconds(), p.Controls.Paused)},
			{"op-members", t.OpMembers(p)},
			{"op-chart", t.Chart("op", p.Chart)},
			{"op-snapshot", t.Snapshot("op", sid, p.Snapshot)},
		}
	}
	return []fragment{
		{"op-clock", t.Clock(l, "op", p.Controls.Now, d.Now().Milliseconds(), p.Controls.Paused)},
		{"op-spec", t.OpSpec(p)},
		{"op-status", t.OpStatus(p)},
		{"op-members", t.OpMembers(p)},
		{"op-next", t.OpNext(p)},
		{"op-controls", t.Controls(l, p.Controls)},
		{"op-error", t.ErrorBox(l, "op", p.Error)},
		{"op-last", t.OpLast(p)},
		{"op-chart", t.Chart("op", p.Chart)},
		{"op-log", t.Log(l, "op", "op.log", p.Log)},
		{"op-live", t.Live("op", p.Live)},
		{"op-snapshot", t.Snapshot("op", sid, p.Snapshot)},
	}
}

// demoProps is the page's view of a fresh demo: the same props the session
// will render, so the page and the session's first frame agree.
func demoProps(kind string, l t.Lang, sid, wsURL string, d demo) t.DemoProps {
	p := t.DemoProps{Kind: kind, SID: sid, WSURL: wsURL}
	switch d := d.(type) {
	case *rcDemo:
		p.Reconcile = reconcileProps(l, d.ReplicaDemo, "", true)
	case *opDemo:
		p.Operator = operatorProps(l, d.OperatorDemo, "", true)
	}
	return p
}
