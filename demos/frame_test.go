package demos

import (
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// TestSpeedRendersOnlyWhatItChanges: an action that changes only the speed
// renders the clock, the controls and the snapshot (their keys read the
// speed) and the timeline (which marks the action), and nothing else, in
// every demo: a frame costs what changed.
func TestSpeedRendersOnlyWhatItChanges(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			r := live.Renderer(demo.View{Lang: ui.Ja, SID: "0123456789abcdef0123456789abcdef"})
			if _, err := r.Frame(nil); err != nil {
				t.Fatal(err)
			}
			if want := len(live.Fragments()); r.Renders != want {
				t.Fatalf("the first frame rendered %d fragments, want all %d", r.Renders, want)
			}
			r.Renders = 0
			c := demo.Decode(&k, []byte(`{"action":"speed","speed":"2"}`))
			if err := live.Apply(c); err != nil {
				t.Fatal(err)
			}
			frame, err := r.Frame(nil)
			if err != nil {
				t.Fatal(err)
			}
			var sent []string
			for _, f := range frame {
				sent = append(sent, f.ID)
			}
			want := []string{k.Prefix + "-clock", k.Prefix + "-controls", k.Prefix + "-snapshot", k.Prefix + "-timeline"}
			if r.Renders != len(want) || len(sent) != len(want) {
				t.Fatalf("speed 2 rendered %d fragments and sent %v, want %v", r.Renders, sent, want)
			}
			for i := range want {
				if sent[i] != want[i] {
					t.Fatalf("speed 2 sent %v, want %v", sent, want)
				}
			}
		})
	}
}
