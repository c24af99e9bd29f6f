package triggers

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/templates"
)

// TestRefusals: every action the state does not allow is refused with a
// sentence in both languages, and changes nothing at all.
func TestRefusals(t *testing.T) {
	restarting := func() *Demo {
		d := NewDemo()
		apply(t, d, demo.Command{Action: "restart"})
		d.Advance(500 * ms)
		return d
	}
	tests := []struct {
		name   string
		build  func() *Demo
		cmd    demo.Command
		reason string
		says   string // in the English sentence
	}{
		{"kill a pod that never was", NewDemo, demo.Command{Action: "kill", Name: "pod-9"}, demo.ReasonUnknownTarget, "pod-9"},
		{"kill a name that is no pod", NewDemo, demo.Command{Action: "kill", Name: "<b>x</b>"}, demo.ReasonUnknownTarget, "<b>x</b>"},
		{"kill a pod Failed on both sides", func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "pause", On: true})
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			return d
		}, demo.Command{Action: "kill", Name: "pod-2"}, demo.ReasonUnknownTarget, "pod-2"},
		{"kill a pod gone from both sides", func() *Demo {
			d := NewDemo()
			apply(t, d, demo.Command{Action: "kill", Name: "pod-2"})
			untilQuiet(t, d, 100)
			return d
		}, demo.Command{Action: "kill", Name: "pod-2"}, demo.ReasonUnknownTarget, "pod-2"},
		{"more than ten replicas", func() *Demo {
			d := NewDemo()
			for range 7 {
				apply(t, d, demo.Command{Action: "replicas-inc"})
			}
			return d
		}, demo.Command{Action: "replicas-inc"}, demo.ReasonOutOfRange, "between 0 and 10"},
		{"fewer than none", func() *Demo {
			d := NewDemo()
			for range 3 {
				apply(t, d, demo.Command{Action: "replicas-dec"})
			}
			return d
		}, demo.Command{Action: "replicas-dec"}, demo.ReasonOutOfRange, "between 0 and 10"},
		{"a count past the bound, had the wire let it through", NewDemo, demo.Command{Action: "set-replicas", N: 11}, demo.ReasonOutOfRange, "between 0 and 10"},
		{"restart while restarting", restarting, demo.Command{Action: "restart"}, demo.ReasonOutOfRange, "restarting"},
		{"step while restarting", restarting, demo.Command{Action: "step"}, demo.ReasonOutOfRange, "restarting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.build()
			before, reconciles := d.Snapshot(), d.Reconciles()
			err := d.Apply(tt.cmd)
			var r *demo.Rejection
			if !errors.As(err, &r) {
				t.Fatalf("Apply(%+v) = %v, want a refusal", tt.cmd, err)
			}
			if r.Reason != tt.reason || !strings.Contains(r.Text(templates.En), tt.says) || r.Text(templates.Ja) == r.Text(templates.En) {
				t.Fatalf("refusal %s: %q / %q", r.Reason, r.Text(templates.Ja), r.Text(templates.En))
			}
			if !equalJSON(t, d.Snapshot(), before) || d.Reconciles() != reconciles {
				t.Fatal("a refused action changed the demo")
			}
		})
	}
}

// TestActions: each accepted action does what its button says, on both
// sides at once.
func TestActions(t *testing.T) {
	d := NewDemo()
	apply(t, d, demo.Command{Action: "drop-events", On: true})
	if !d.w.Drop() {
		t.Fatal("drop-events on: the switch is off")
	}
	apply(t, d, demo.Command{Action: "drop-events", On: false})
	if d.w.Drop() {
		t.Fatal("drop-events off: the switch is on")
	}
	apply(t, d, demo.Command{Action: "duplicate-next"})
	apply(t, d, demo.Command{Action: "swap-next"})
	for _, s := range sides {
		if v := d.w.View(s); !v.DuplicateArmed || !v.SwapArmed {
			t.Fatalf("%v stream not armed: %+v", s, v)
		}
	}
	apply(t, d, demo.Command{Action: "set-replicas", N: 7})
	if d.w.Desired() != 7 {
		t.Fatalf("set-replicas 7: desired %d", d.w.Desired())
	}
	apply(t, d, demo.Command{Action: "set-replicas", N: 3})
	apply(t, d, demo.Command{Action: "replicas-inc"})
	apply(t, d, demo.Command{Action: "replicas-inc"})
	apply(t, d, demo.Command{Action: "replicas-dec"})
	if d.w.Desired() != 4 {
		t.Fatalf("desired %d, want 4", d.w.Desired())
	}
	apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
	for _, s := range sides {
		if v := d.w.View(s); v.Failed != 1 {
			t.Fatalf("%v side: %d Failed after a kill", s, v.Failed)
		}
	}
	apply(t, d, demo.Command{Action: "restart"})
	if down, in := d.w.Restarting(); !down || in != 2*time.Second {
		t.Fatalf("restart: %v, %v", down, in)
	}
	if err := d.Apply(demo.Command{Action: "unknown"}); err == nil {
		t.Fatal("an action outside the set was accepted")
	}
}

// TestKindDecodesItsActions: the wire carries exactly the demo's actions,
// each validated before it reaches Apply.
func TestKindDecodesItsActions(t *testing.T) {
	ok := []string{
		`{"action":"kill","pod":"pod-1","HEADERS":{"HX-Trigger-Name":null}}`,
		`{"action":"replicas-inc"}`, `{"action":"replicas-dec"}`, `{"action":"set-replicas","replicas":"10"}`,
		`{"action":"drop-events","on":true}`, `{"action":"drop-events","on":"false"}`,
		`{"action":"duplicate-next"}`, `{"action":"swap-next"}`, `{"action":"restart"}`,
		`{"action":"step"}`, `{"action":"pause","paused":true}`, `{"action":"speed","speed":"2"}`, `{"action":"reset"}`,
	}
	for _, m := range ok {
		if c := demo.Decode(&Kind, []byte(m)); c.Reject != nil {
			t.Errorf("%s refused: %v", m, c.Reject)
		}
	}
	bad := []string{
		`{"action":"kill"}`, `{"action":"kill","pod":""}`, `{"action":"kill","pod":3}`,
		`{"action":"drop-events"}`, `{"action":"drop-events","on":null}`, `{"action":"drop-events","on":"yes"}`,
		`{"action":"restart","now":true}`, `{"action":"set-replicas","replicas":11}`, `{"action":"set-replicas","replicas":-1}`,
		`{"action":"set-replicas"}`, `{"action":"controller","on":true}`,
		`{"action":"speed","speed":"3"}`,
	}
	for _, m := range bad {
		if c := demo.Decode(&Kind, []byte(m)); c.Reject == nil {
			t.Errorf("%s accepted as %+v", m, c)
		}
	}
	// The load generator's steps are each answered by a frame.
	demotest.CheckLoad(t, Kind)
}
