package demos

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	"github.com/reconcile-demo/reconcile-demo/sockets"
	ui "github.com/reconcile-demo/reconcile-demo/templates"
)

// BenchmarkFrame measures what a session spends on one visitor's action:
// decode it, apply it, let a second of the demo's time pass, and render
// the frame that answers it (only the fragments whose key changed, as the
// session does, into a pooled chunk that goes back once the socket's
// mailbox has written it). It cycles through the kind's load steps, as cmd/loadgen
// does, and reports the fragments rendered per action. A visitor's session
// is five minutes acting once a second: every 300 actions a fresh session
// starts (its start is part of the cost), so the timeline, the log and the
// link a frame carries are as long as a real session's, not thousands of
// actions long.
//
//	go test -run '^$' -bench Frame -benchmem ./demos
func BenchmarkFrame(b *testing.B) { benchFrames(b, false) }

// BenchmarkFrames is BenchmarkFrame with every frame an action brings, as
// a session renders them: one when the action is applied, then one at each
// moment within the second that something happens by itself (an event
// delivered, a pod started), as the session wakes for it (NextDue). It
// reports the frames and their bytes per action.
//
//	go test -run '^$' -bench Frames -benchmem ./demos
func BenchmarkFrames(b *testing.B) { benchFrames(b, true) }

func benchFrames(b *testing.B, each bool) {
	const sessionActions = 300
	for _, k := range All() {
		b.Run(k.Name, func(b *testing.B) {
			var live *demo.Live
			var r *demo.Renderer
			var box sockets.Mailbox
			b.ReportAllocs()
			n, renders := 0, 0
			sent.bytes, sent.frames = 0, 0
			for i := 0; b.Loop(); i++ {
				if i%sessionActions == 0 {
					if r != nil {
						renders += r.Renders
					}
					live = demo.Start(&k, demo.Options{})
					// As an owner's session renders: links to the moment on
					// its origin, marks added to the page's.
					r = live.Renderer(demo.View{Lang: ui.Ja, SID: "bench", Origin: "https://demo.example"})
					r.Appends = true
					if _, err := r.Frame(nil); err != nil {
						b.Fatal(err)
					}
					r.Renders = 0
				}
				c := demo.Decode(&k, []byte(k.Load[i%len(k.Load)].Send))
				if c.Reject != nil {
					b.Fatalf("load step refused: %v", c.Reject)
				}
				if err := live.Apply(c); err != nil {
					b.Fatal(err)
				}
				left := time.Second
				for each {
					if err := send(r, &box); err != nil {
						b.Fatal(err)
					}
					due, ok := live.NextDue()
					if !ok || due > left {
						break
					}
					due = max(due, time.Millisecond)
					live.Advance(due)
					left -= due
				}
				live.Advance(left)
				if err := send(r, &box); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(renders+r.Renders)/float64(n), "renders/op")
			if each {
				b.ReportMetric(float64(sent.frames)/float64(n), "frames/op")
				b.ReportMetric(float64(sent.bytes)/float64(n), "sent-B/op")
			}
		})
	}
}

// sent are send's lists, used again as a session's are (server.frameList).
var sent struct {
	rendered []demo.Rendered
	frags    []sockets.Frag
	bytes    int // written, for BenchmarkFrames
	frames   int // messages written, for BenchmarkFrames
}

// send renders r's frame and writes it through box as an owner's session
// and its socket's writer do (server.session.ownerFrame, sockets.Conn).
// Its lists are used again, frame after frame, as the session's are.
func send(r *demo.Renderer, box *sockets.Mailbox) error {
	chunk := sockets.GetChunk()
	defer chunk.Done()
	rendered, err := r.FrameInto(sent.rendered[:0], &chunk.Buf)
	if err != nil {
		return err
	}
	frags := sent.frags[:0]
	for _, f := range rendered {
		frags = append(frags, sockets.Frag{ID: f.ID, HTML: f.HTML, Full: f.Full, Chunk: chunk})
	}
	chunk.Hold(len(frags))
	box.Put(frags)
	clear(rendered)
	clear(frags)
	sent.rendered, sent.frags = rendered[:0], frags[:0]
	buf := sockets.GetBuffer()
	if box.WriteTo(buf) {
		sent.frames++
	}
	sent.bytes += buf.Len()
	sockets.PutBuffer(buf)
	return nil
}
