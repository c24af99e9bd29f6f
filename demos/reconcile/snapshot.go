package reconcile

import (
	"fmt"
	"strconv"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	chapter "github.com/reconcile-demo/reconcile-demo/engine/reconcile"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// Snapshot is the demo as the page keeps it: what was declared and what was
// observed. Times are virtual milliseconds.
type Snapshot struct {
	sim.Envelope
	Desired    int        `json:"desired"`
	Controller bool       `json:"controller"`
	Seq        int        `json:"seq"`
	Pods       []PodState `json:"pods"`
	// Marks are the timeline's notable events, oldest first (marks.go):
	// the log is not kept, they are.
	Marks []MarkState `json:"marks,omitempty"`
}

// PodState is one pod in a snapshot. StartsIn is set for Pending pods only.
type PodState struct {
	Name     string `json:"name"`
	Phase    string `json:"phase"`
	StartsIn int64  `json:"startsIn,omitempty"`
}

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	snap := Snapshot{Envelope: d.Envelope(Name), Desired: d.ctrl.Desired(), Controller: d.Controller(),
		Seq: d.cluster.Seq(), Marks: d.markStates()}
	for _, p := range d.Pods() {
		snap.Pods = append(snap.Pods, PodState{Name: p.Name, Phase: p.Phase.String(), StartsIn: p.StartsIn.Milliseconds()})
	}
	return snap
}

// appendSnapshot appends the snapshot's JSON as json.Marshal writes
// Snapshot (the fuzzer holds it to that after every operation).
func (d *Demo) appendSnapshot(b []byte) []byte {
	b = demo.AppendEnvelope(b, d.Envelope(Name))
	b = strconv.AppendInt(append(b, `,"desired":`...), int64(d.ctrl.Desired()), 10)
	b = strconv.AppendBool(append(b, `,"controller":`...), d.Controller())
	b = strconv.AppendInt(append(b, `,"seq":`...), int64(d.cluster.Seq()), 10)
	b = append(b, `,"pods":`...)
	var buf [2 * MaxDesired]chapter.Pod // the most a cluster holds but after a burst of kills
	pods := d.cluster.AppendPods(buf[:0])
	if len(pods) == 0 {
		b = append(b, "null"...)
	}
	for i, p := range pods {
		if i == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = jsonw.String(append(b, `{"name":`...), p.Name)
		b = jsonw.String(append(b, `,"phase":`...), p.Phase.String())
		if in, ok := d.StartsIn(p.Name); ok && in.Milliseconds() != 0 {
			b = strconv.AppendInt(append(b, `,"startsIn":`...), in.Milliseconds(), 10)
		}
		b = append(b, '}')
		if i == len(pods)-1 {
			b = append(b, ']')
		}
	}
	for i, e := range d.marks.Peek() {
		if i == 0 {
			b = append(b, `,"marks":[`...)
		} else {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"at":`...), e.At.Milliseconds(), 10)
		b = jsonw.String(append(b, `,"kind":`...), e.Kind)
		b = strconv.AppendInt(append(b, `,"n":`...), int64(e.N), 10)
		b = append(b, '}')
	}
	if len(d.marks.Peek()) > 0 {
		b = append(b, ']')
	}
	return append(b, '}')
}

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound. It returns an error, and no demo, for any snapshot this package
// could not have written.
func RestoreDemo(opt sim.Options, snap Snapshot) (*Demo, error) {
	opt = opt.WithDefaults()
	clock, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	if snap.Desired < 0 || snap.Desired > MaxDesired {
		return nil, fmt.Errorf("snapshot desired %d out of range [0, %d]", snap.Desired, MaxDesired)
	}
	if len(snap.Pods) > chapter.MaxPods {
		return nil, fmt.Errorf("snapshot has %d pods, at most %d", len(snap.Pods), chapter.MaxPods)
	}
	pods := make([]chapter.Pod, len(snap.Pods))
	startsIn := map[string]time.Duration{}
	for i, p := range snap.Pods {
		phase, err := parsePodPhase(p.Phase)
		if err != nil {
			return nil, err
		}
		pods[i] = chapter.Pod{Name: p.Name, Phase: phase}
		switch {
		case phase == chapter.Pending:
			in := time.Duration(p.StartsIn) * time.Millisecond
			if in < 0 || in > opt.StartDelay {
				return nil, fmt.Errorf("snapshot pod %q starts in %dms, out of range", p.Name, p.StartsIn)
			}
			startsIn[p.Name] = in
		case p.StartsIn != 0:
			return nil, fmt.Errorf("snapshot pod %q is %s but has a start time", p.Name, p.Phase)
		}
	}
	cl, err := chapter.Restore(pods, snap.Seq)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	marks, err := restoreMarks(snap.Marks, snap.Now)
	if err != nil {
		return nil, err
	}
	d := &Demo{opt: opt, marks: marks}
	d.init(snap.Desired, snap.Controller, clock)
	d.Log = sim.NewLog(opt.LogSize)
	d.cluster = cl
	for name, in := range startsIn {
		d.StartAfter(name, in)
	}
	d.converged = d.ctrl.Converged(cl)
	d.hist.Reset()
	d.changed()
	d.Note(sim.Event{Kind: sim.EventRestored})
	return d, nil
}

func parsePodPhase(s string) (chapter.Phase, error) {
	for _, p := range []chapter.Phase{chapter.Pending, chapter.Running, chapter.Failed} {
		if p.String() == s {
			return p, nil
		}
	}
	return 0, fmt.Errorf("snapshot: unknown pod phase %q", s)
}
