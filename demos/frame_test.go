package demos

import (
	"context"
	"strings"
	"testing"
	"time"

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

// TestFreshPageKeepsNoSnapshot: the page of a demo as Start made it carries
// no snapshot (a session started from nothing is in the same state: every
// Start renders the same page, which the server renders once), while its
// first frame does, and so does the page once anything has happened.
func TestFreshPageKeepsNoSnapshot(t *testing.T) {
	const sid = "0123456789abcdef0123456789abcdef"
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			live := demo.Start(&k, demo.Options{})
			v := demo.View{Lang: ui.Ja, SID: sid}
			page := func() string {
				var b strings.Builder
				if err := live.Section(v).Render(context.Background(), &b); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			p := page()
			if strings.Contains(p, "data-snapshot") || !strings.Contains(p, `<div id="`+k.Prefix+`-snapshot" hidden></div>`) {
				t.Errorf("a fresh page: want the snapshot element without a snapshot")
			}
			var again strings.Builder
			if err := demo.Start(&k, demo.Options{}).Section(v).Render(context.Background(), &again); err != nil || again.String() != p {
				t.Errorf("two fresh demos render different pages (%v)", err)
			}
			frame, err := live.Renderer(v).Frame(nil)
			if err != nil {
				t.Fatal(err)
			}
			var snap string
			for _, f := range frame {
				if f.ID == k.Prefix+"-snapshot" {
					snap = string(f.HTML)
				}
			}
			if !strings.Contains(snap, "data-snapshot=") {
				t.Errorf("the first frame's snapshot fragment %q carries no snapshot", snap)
			}
			live.Advance(time.Millisecond)
			if !strings.Contains(page(), "data-snapshot=") {
				t.Errorf("once time has passed, the page carries no snapshot")
			}
		})
	}
}
