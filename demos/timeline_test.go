package demos

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
	"github.com/reconcile-demo/reconcile-demo/internal/racetest"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// play drives a demo of kind k as a visitor might for span of virtual
// time: n actions, picked at random from what its page offers (refused
// ones picked again), evenly spread.
func play(t *testing.T, k *demo.Kind, n int, span time.Duration, seed uint64) *demo.Live {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	live := demo.Start(k, demo.Options{})
	every := span / time.Duration(n)
	for tries := 0; len(live.Timeline().Entries) < n && tries < 10*n; tries++ {
		if len(live.Timeline().Entries) == tries {
			live.Advance(every)
		}
		clicks := demotest.Clicks(t, live, rng)
		if len(clicks) == 0 {
			continue
		}
		c := demo.Decode(k, []byte(clicks[rng.IntN(len(clicks))]))
		if c.Reject != nil {
			t.Fatalf("a click the page offers is refused: %v", c.Reject)
		}
		live.Apply(c) // a refused one (a pod already gone) is no entry
	}
	return live
}

// TestLinkLength: a link to a moment of a 5-minute session with 50 actions
// stays within 2,000 characters, for every demo.
func TestLinkLength(t *testing.T) {
	for _, k := range All() {
		t.Run(k.Name, func(t *testing.T) {
			worst := 0
			for seed := range uint64(racetest.Runs(4)) {
				live := play(t, &k, 50, 5*time.Minute, seed)
				link := live.MomentURL("https://demo.example", "/embed/"+k.Name, ui.En, live.Now().Truncate(time.Millisecond))
				worst = max(worst, len(link))
				if len(live.Timeline().Entries) < 50 {
					t.Fatalf("only %d actions taken", len(live.Timeline().Entries))
				}
			}
			t.Logf("%s: the longest link of four sessions is %d characters", k.Name, worst)
			if worst > 2000 {
				t.Errorf("a link of %d characters, over 2,000", worst)
			}
		})
	}
}

// BenchmarkMoment measures what showing a moment costs the server: any
// moment of a 10-minute session with 100 actions, replayed from its start
// (the worst case: no copy of a later moment to step on from), and its
// frame rendered. The target is 50 ms.
//
//	go test -run '^$' -bench Moment ./demos
func BenchmarkMoment(b *testing.B) {
	for _, k := range All() {
		b.Run(k.Name, func(b *testing.B) {
			t := &testing.T{}
			live := play(t, &k, 100, 10*time.Minute, 1)
			end := live.Now().Truncate(time.Millisecond)
			r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
			rng := rand.New(rand.NewPCG(2, 2))
			for b.Loop() {
				at := time.Duration(rng.Int64N(int64(end/time.Millisecond))) * time.Millisecond
				if err := live.Apply(demo.Command{Action: demo.ActTimeline, At: at.Milliseconds()}); err != nil {
					b.Fatal(err)
				}
				if _, err := r.Frame(nil); err != nil {
					b.Fatal(err)
				}
				live.Apply(demo.Command{Action: demo.ActTimelineLive})
			}
		})
	}
}
