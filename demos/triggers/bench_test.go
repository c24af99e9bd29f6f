package triggers

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkKeyedFrame measures what a session spends on one visitor's
// action: decode it, apply it, let a second of the demo's time pass, and
// render the frame that answers it (only the fragments whose key changed,
// as the session does). It cycles through the load generator's steps and
// reports the fragments rendered per action.
//
//	go test -run '^$' -bench KeyedFrame -benchmem ./demos/triggers
func BenchmarkKeyedFrame(b *testing.B) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
	if _, err := r.Frame(nil); err != nil {
		b.Fatal(err)
	}
	r.Renders = 0
	b.ReportAllocs()
	n := 0
	for i := 0; b.Loop(); i++ {
		c := demo.Decode(&Kind, []byte(Kind.Load[i%len(Kind.Load)].Send))
		if c.Reject != nil {
			b.Fatalf("load step refused: %v", c.Reject)
		}
		if err := live.Apply(c); err != nil {
			b.Fatal(err)
		}
		live.Advance(time.Second)
		if _, err := r.Frame(nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(r.Renders)/float64(n), "renders/op")
}

// BenchmarkSessionFrames measures what a session spends on one visitor's
// action and the second of time after it, frame by frame as the session
// renders them: the frame that answers the action, then one at each
// moment something happens by itself (NextDue), as the session's timer
// does. It reports the frames and the fragments rendered per action.
//
//	go test -run '^$' -bench SessionFrames -benchmem ./demos/triggers
func BenchmarkSessionFrames(b *testing.B) {
	live := demo.Start(&Kind, demo.Options{})
	r := live.Renderer(demo.View{Lang: ui.Ja, SID: "bench"})
	frame := func() {
		if _, err := r.Frame(nil); err != nil {
			b.Fatal(err)
		}
	}
	frame()
	r.Renders = 0
	b.ReportAllocs()
	actions, frames := 0, 0
	for i := 0; b.Loop(); i++ {
		c := demo.Decode(&Kind, []byte(Kind.Load[i%len(Kind.Load)].Send))
		if c.Reject != nil {
			b.Fatalf("load step refused: %v", c.Reject)
		}
		if err := live.Apply(c); err != nil {
			b.Fatal(err)
		}
		frame()
		frames++
		left := time.Second
		for {
			wait, ok := live.NextDue()
			if !ok || wait > left {
				break
			}
			wait = max(wait, time.Millisecond) // as the session's timer
			live.Advance(wait)
			left -= wait
			frame()
			frames++
		}
		live.Advance(max(left, 0))
		actions++
	}
	b.ReportMetric(float64(frames)/float64(actions), "frames/op")
	b.ReportMetric(float64(r.Renders)/float64(actions), "renders/op")
}
