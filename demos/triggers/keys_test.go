package triggers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestAnEventRendersOnlyItsSide: once the sides differ, what happens on
// one side (a resync, a pod that starts, an event that arrives) renders
// that side's fragments and none of the other side's.
func TestAnEventRendersOnlyItsSide(t *testing.T) {
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	// pod-1's death is lost on both streams: the edge side is stuck, the
	// level side's resync catches up on its own.
	apply(t, d, demo.Command{Action: "drop-events", On: true})
	apply(t, d, demo.Command{Action: "kill", Name: "pod-1"})
	apply(t, d, demo.Command{Action: "drop-events", On: false})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: demotest.SID})
	if _, err := r.Frame(nil); err != nil {
		t.Fatal(err)
	}
	keys := func(prefix string) []uint64 {
		var out []uint64
		for i, f := range live.Fragments() {
			if strings.HasPrefix(f.ID, prefix) {
				out = append(out, r.Key(i))
			}
		}
		return out
	}
	edge, level := keys("tr-edge-"), keys("tr-level-")
	levelFrames := 0
	for range 40 {
		live.Advance(100 * time.Millisecond)
		frame, err := r.Frame(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frame {
			if strings.HasPrefix(f.ID, "tr-level-") {
				levelFrames++
				break
			}
		}
		if got := keys("tr-edge-"); !slices.Equal(got, edge) {
			t.Fatalf("at %v the level side's work changed the edge side's keys", d.Now())
		}
	}
	if slices.Equal(keys("tr-level-"), level) || levelFrames < 3 {
		t.Fatalf("the level side changed in %d frames, want its resync, its pod's start and its events", levelFrames)
	}
	if v := d.w.View(sides[levelSide]); !v.Converged {
		t.Fatalf("the level side did not catch up: %+v", v)
	}
	if v := d.w.View(sides[edgeSide]); diffState(&v) != "stuck" {
		t.Fatalf("the edge side is %q, want stuck", diffState(&v))
	}
}
