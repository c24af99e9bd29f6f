package triggers

import (
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// PodView is a pod as the page shows it.
type PodView struct {
	Name  string
	Phase reconcile.Phase
	// StartsIn is the virtual time left before a Pending pod runs; 0 otherwise.
	StartsIn time.Duration
}

// SideView is one side of the demo as the page shows it. Every slice is a
// copy.
type SideView struct {
	Side    Side
	Desired int
	Pods    []PodView // sorted by name
	// Alive counts Pending and Running pods, Running the Running ones,
	// Failed the Failed ones not deleted yet.
	Alive, Running, Failed int
	// Converged is chapter 000's definition, on both sides: alive ==
	// desired, every pod Running, none Failed.
	Converged bool
	// Restarting is true while the controllers are down; UpIn is how long
	// until they come back.
	Restarting bool
	UpIn       time.Duration
	// DuplicateArmed and SwapArmed say what the stream will do to the next
	// event(s) it lets through.
	DuplicateArmed, SwapArmed bool
	Stream                    []StreamEvent // the last StreamShown events plus older ones in flight, oldest first
	Log                       []LogEntry    // the last LogSize controller entries, oldest first
	// Known is what the edge controller believes alive (sorted); nil on the
	// level side, which remembers nothing and recounts instead.
	Known []string
}

// View returns one side as the page shows it.
func (w *World) View(s Side) SideView {
	v := w.Peek(s)
	v.Log = cloneLog(v.Log)
	return v
}

// Peek is View with the log's entries shared with the world, not copied:
// they change as the world logs on, so a reader reads them before it moves
// the world again (a frame's fragments, read and rendered at one moment).
func (w *World) Peek(s Side) SideView {
	var v SideView
	w.PeekInto(s, &v)
	return v
}

// PeekInto writes Peek into v, reusing the arrays of v's Pods, Stream and
// Known: a page reads both sides with every frame in which the world
// moved. What v held is overwritten, so nothing may still read it.
func (w *World) PeekInto(s Side, v *SideView) {
	if s != Edge {
		s = Level
	}
	sd := &w.sides[s]
	*v = SideView{Side: s, Desired: w.desired, Restarting: w.down,
		DuplicateArmed: sd.stream.dupNext, SwapArmed: sd.stream.swapNext,
		Pods: v.Pods[:0], Stream: sd.stream.appendView(v.Stream[:0], w.now),
		Log: sd.log[:len(sd.log):len(sd.log)], Known: v.Known[:0]}
	if v.Stream == nil {
		v.Stream = []StreamEvent{} // as Peek always wrote it
	}
	if w.down {
		v.UpIn = w.upAt - w.now
	}
	var buf [16]reconcile.Pod
	for _, p := range w.appendPods(s, buf[:0]) {
		pv := PodView{Name: p.Name, Phase: p.Phase}
		if at, ok := sd.startAt[p.Name]; ok {
			pv.StartsIn = at - w.now
		}
		v.Pods = append(v.Pods, pv)
		switch p.Phase {
		case reconcile.Running:
			v.Running++
			v.Alive++
		case reconcile.Pending:
			v.Alive++
		case reconcile.Failed:
			v.Failed++
		}
	}
	if len(v.Pods) == 0 {
		v.Pods = nil // as Peek always wrote it
	}
	v.Converged = v.Failed == 0 && v.Running == w.desired && len(v.Pods) == w.desired
	if s == Edge {
		v.Known = w.edge.AppendKnown(v.Known)
		if v.Known == nil {
			v.Known = []string{}
		}
	} else {
		v.Known = nil
	}
}

func cloneLog(log []LogEntry) []LogEntry {
	out := make([]LogEntry, len(log))
	copy(out, log)
	return out
}

// Converged reports whether one side is converged (see SideView.Converged).
// The level side's answer is chapter 000's Controller.Converged.
func (w *World) Converged(s Side) bool {
	if s == Level {
		return w.level.Converged(w.levelCl)
	}
	return w.Peek(Edge).Converged
}

// Now returns the virtual time since the world began.
func (w *World) Now() time.Duration { return w.now }

// Desired returns the desired count declared on both sides.
func (w *World) Desired() int { return w.desired }

// Drop reports whether the drop switch is on.
func (w *World) Drop() bool { return w.drop }

// Restarting reports whether the controllers are down, and for how long
// still.
func (w *World) Restarting() (bool, time.Duration) {
	if !w.down {
		return false, 0
	}
	return true, w.upAt - w.now
}
