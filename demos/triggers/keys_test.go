package triggers

import (
	"fmt"
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

// TestLogItemsStandForTheirLines: the identities a frame keys the log
// panels' lines by (logItems) are one per line logFrag lists, in its
// order; an identity never stands for two different lines of its panel, through kills,
// lost, doubled and swapped events, restarts and resets (which number the
// entries afresh); and logNewest's n lines are logFrag's first n.
func TestLogItemsStandForTheirLines(t *testing.T) {
	d := NewDemo()
	live := demo.Wrap(&Kind, d)
	seen := map[[3]uint64]ui.LogLine{} // side, identity and language → the line
	checked := 0
	check := func(when string) {
		t.Helper()
		for i := range sides {
			items := d.logItems(i, nil)
			for _, l := range []ui.Lang{ui.Ja, ui.En} {
				lines := d.logFrag(l, i)
				if len(items) != len(lines) {
					t.Fatalf("%s, side %d: %d identities for %d lines", when, i, len(items), len(lines))
				}
				for j, id := range items {
					k := [3]uint64{uint64(i), id, uint64(l[0])}
					if was, ok := seen[k]; ok && was != lines[j] {
						t.Fatalf("%s, side %d: one identity for two lines:\n%+v\n%+v", when, i, was, lines[j])
					}
					seen[k] = lines[j]
					checked++
				}
				for _, n := range []int{1, 2, len(lines)} {
					if got := d.logNewest(l, i, n); !slices.Equal(got, lines[:min(n, len(lines))]) {
						t.Fatalf("%s, side %d: the %d newest lines are %+v, want %+v", when, i, n, got, lines[:min(n, len(lines))])
					}
				}
			}
		}
	}
	script := []demo.Command{
		{Action: "kill", Name: "pod-1"},
		{Action: "drop-events", On: true},
		{Action: "kill", Name: "pod-2"},
		{Action: "drop-events", On: false},
		{Action: "duplicate-next"},
		{Action: "set-replicas", N: 5},
		{Action: "swap-next"},
		{Action: "replicas-dec"},
		{Action: "restart"},
		{Action: "reset"},
		{Action: "kill", Name: "pod-1"},
		{Action: "replicas-inc"},
	}
	for round := range 3 {
		for _, c := range script {
			if err := live.Apply(c); err != nil {
				continue // refused in this state (a pod not alive): nothing changed
			}
			for step := range 30 {
				live.Advance(200 * time.Millisecond)
				check(fmt.Sprintf("round %d, after %s, step %d", round, c.Action, step))
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d lines checked", checked)
	}
}
