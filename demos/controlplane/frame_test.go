package controlplane

import (
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// rendered returns the fragments a frame renders after act: those whose
// keys changed.
func rendered(t *testing.T, live *demo.Live, act func()) []string {
	t.Helper()
	r := live.Renderer(demo.View{Lang: ui.Ja})
	before := make([]uint64, r.Len())
	for i := range before {
		before[i] = r.Key(i)
	}
	act()
	var out []string
	for i, f := range live.Fragments() {
		if r.Key(i) != before[i] {
			out = append(out, f.ID)
		}
	}
	return out
}

// A frame costs what changed: the pace renders the clock, the controls and
// the snapshot (during the guide a pause not even the clock, which shows
// paused already); time that passes with nothing due, the clock and the
// snapshot; a node's kubelet stopped renders that node's card, not the
// others', nor kubectl's side, the tray, the quiz or the runtime.
func TestFramesRenderWhatChanged(t *testing.T) {
	pace := []string{"cp-clock", "cp-controls", "cp-snapshot"}
	for name, d := range map[string]*Demo{"guide": NewDemo(), "live": live(t)} {
		l := demo.Wrap(&Kind, d)
		apply := func(c demo.Command) func() { return func() { must(t, l.Apply(c)) } }
		if got := rendered(t, l, apply(demo.Command{Action: "speed", Speed: sim.Double})); !slices.Equal(got, pace) {
			t.Errorf("%s: the speed renders %q, want %q", name, got, pace)
		}
		want := pace
		if name == "guide" { // the clock shows paused already
			want = []string{"cp-controls", "cp-snapshot"}
		}
		if got := rendered(t, l, apply(demo.Command{Action: "pause", On: true})); !slices.Equal(got, want) {
			t.Errorf("%s: a pause renders %q, want %q", name, got, want)
		}
	}

	l := demo.Wrap(&Kind, live(t))
	if got, want := rendered(t, l, func() { l.Advance(time.Minute) }), []string{"cp-clock", "cp-snapshot"}; !slices.Equal(got, want) {
		t.Errorf("a quiet minute renders %q, want %q", got, want)
	}
	got := rendered(t, l, func() { must(t, l.Apply(demo.Command{Action: "node", Name: "node-3", On: false})) })
	if !slices.Contains(got, "cp-n-node-3") {
		t.Errorf("stopping node-3 renders %q, not its card", got)
	}
	for _, id := range []string{"cp-n-node-1", "cp-n-node-2", "cp-apply", "cp-objects", "cp-components", "cp-tray", "cp-quiz", "cp-runtime"} {
		if slices.Contains(got, id) {
			t.Errorf("stopping node-3 renders %s: %q", id, got)
		}
	}
	if n := node(l.Instance().(*Demo), "node-3"); n.Kubelet {
		t.Fatal("node-3 runs")
	}
}
