package triggers

import (
	"sync"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
)

// This file is what the page's fragments read of the world, summed up as
// keys (see demo.Part): a fragment is rendered only when its key changed.
//
// The engine keeps no versions, and one side's fragments must not render
// again for an event delivered to the other side, so the demo reads both
// sides once per change of the world (Demo.ver) and derives each side's
// keys from what that side shows: the same reading is what the fragments
// of the frame render from. The shared fragments read the world's few
// cheap values directly.
//
// Everything is read in absolute virtual time (a Pending pod's start, the
// controllers' return), so a reading stays true while only time passes:
// nothing changes by itself without an Advance in which something was due,
// and that bumps ver.

// Indexes of the sides in the page's order (sides).
const (
	edgeSide  = 0
	levelSide = 1
)

// frame is what the fragments read at one version of the world.
type frame struct {
	ver  demo.Version // the version it was read at; 0: never
	side [2]sideKeys  // by side, in the page's order
	// state is each side's diff state (diffState).
	state [2]string
	// dupArmed and swapArmed are the breakers' badges: armed on either
	// stream.
	dupArmed, swapArmed bool
	// missed are the timeline's marks (marks.go), and marks their key: a
	// few events, kept when the reading is let go.
	missed []engine.Event
	marks  uint64
	// read is both sides as the engine shows them: kept for the fragments
	// that render from it, and let go when the frame's snapshot is written,
	// so an idle session holds no copy of the world.
	read *reading
}

// sideKeys are the keys of one side's fragments.
type sideKeys struct{ diff, counts, observed, stream, lane, log uint64 }

// reading is both sides as the engine showed them at virtual time now.
type reading struct {
	now   time.Duration
	sides [2]engine.SideView
}

// keys returns the fragments' keys at the world's current version, reading
// both sides again if the world changed since they were read.
func (d *Demo) keys() *frame {
	f := &d.fr
	if f.ver == d.ver {
		return f
	}
	r := d.readSides(f.read) // a frame that held the snapshot kept its reading
	*f = frame{ver: d.ver, read: r}
	for i := range r.sides {
		v := &r.sides[i]
		f.state[i] = diffState(v)
		f.side[i] = sideKeys{
			diff:     diffKey(v, f.state[i]),
			counts:   countsKey(v),
			observed: observedKey(v, r.now),
			stream:   demo.Mix(demo.B(v.DuplicateArmed), demo.B(v.SwapArmed), demo.I(len(v.Stream))),
			lane:     laneKey(v),
			log:      demo.Mix(d.epoch.Key(), demo.I(len(v.Log)), lastSeq(v.Log)),
		}
		f.dupArmed = f.dupArmed || v.DuplicateArmed
		f.swapArmed = f.swapArmed || v.SwapArmed
	}
	f.missed, f.marks = missed(r.sides[edgeSide].Stream)
	return f
}

// side returns side i (of sides) as the frame's fragments show it, and the
// virtual time it was read at.
func (d *Demo) side(i int) (*engine.SideView, time.Duration) {
	f := d.keys()
	if f.read == nil {
		f.read = d.readSides(nil)
	}
	return &f.read.sides[i], f.read.now
}

// readSides reads both sides into r, or into a reading from readings
// when r is nil: read and let go within the frame (release), so its arrays
// serve the next frame's.
func (d *Demo) readSides(r *reading) *reading {
	if r == nil {
		r = readings.Get().(*reading)
	}
	r.now = d.w.Now()
	for i, s := range sides {
		d.w.PeekInto(s, &r.sides[i])
	}
	return r
}

// readings are the readings let go, whose arrays a reading reuses.
var readings = sync.Pool{New: func() any { return new(reading) }}

// release lets go of the frame's reading of the world: nothing rendered
// after it may read the props made from it (the snapshot, the last
// fragment that reads the world, lets go).
func (d *Demo) release() {
	if r := d.fr.read; r != nil {
		d.fr.read = nil
		readings.Put(r)
	}
}

// diffKey sums up a side's diff line: its state, its counts and what its
// controller remembers.
func diffKey(v *engine.SideView, state string) uint64 {
	k := demo.Mix(demo.Str(state), demo.I(v.Desired), demo.I(v.Alive), demo.I(v.Running), demo.I(v.Failed), demo.I(len(v.Known)))
	for _, n := range v.Known {
		k = demo.Mix(k, demo.Str(n))
	}
	return k
}

// countsKey sums up a side's pods' counts by phase, as its panel says them.
func countsKey(v *engine.SideView) uint64 {
	var n [4]int
	for _, p := range v.Pods {
		n[min(int(p.Phase), len(n)-1)]++
	}
	return demo.Mix(demo.I(len(v.Pods)), demo.I(v.Alive), demo.I(n[0]), demo.I(n[1]), demo.I(n[2]), demo.I(n[3]))
}

// observedKey sums up a side's pods: names, phases and, for Pending ones,
// when they start (as the countdown's end, which is all the page is sent).
func observedKey(v *engine.SideView, now time.Duration) uint64 {
	k := demo.I(len(v.Pods))
	for _, p := range v.Pods {
		k = demo.Mix(k, demo.Str(p.Name), uint64(p.Phase))
		if p.Phase == chapter.Pending {
			k = demo.Mix(k, uint64((now + p.StartsIn).Milliseconds()))
		}
	}
	return k
}

// laneKey sums up a side's lane: each event's row (rowKey).
func laneKey(v *engine.SideView) uint64 {
	k := demo.I(len(v.Stream))
	for j := range v.Stream {
		k = demo.Mix(k, demo.I(v.Stream[j].Seq), rowKey(&v.Stream[j]))
	}
	return k
}

// lastSeq is the number of a log's newest entry: entries are never changed
// once written, so with the log's length and the world's epoch it stands
// for the whole log.
func lastSeq(log []engine.LogEntry) uint64 {
	if len(log) == 0 {
		return 0
	}
	return demo.I(log[len(log)-1].Seq)
}

// breakersKey sums up the breakers: the drop switch, the armed badges, and
// the restart with when the controllers come back.
func (d *Demo) breakersKey() uint64 {
	f := d.keys()
	down, in := d.w.Restarting()
	k := demo.Mix(demo.B(d.w.Drop()), demo.B(f.dupArmed), demo.B(f.swapArmed), demo.B(down))
	if down {
		k = demo.Mix(k, uint64((d.w.Now() + in).Milliseconds()))
	}
	return k
}

// lessonKey sums up the row that mattered: which, why and when.
func (d *Demo) lessonKey() uint64 {
	m := d.w.Mattered()
	return demo.Mix(demo.Str(string(m.Row)), demo.Str(string(m.Reason)), uint64(m.At))
}

// liveKey sums up the live sentence: the lesson and both sides' states.
func (d *Demo) liveKey() uint64 {
	f := d.keys()
	return demo.Mix(d.lessonKey(), demo.Str(f.state[edgeSide]), demo.Str(f.state[levelSide]))
}
