package controlplane

import (
	"fmt"
	"strconv"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	cp "github.com/reconcile-demo/reconcile-demo/engine/controlplane"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Snapshot is the demo as the page keeps it: the envelope (the clock and
// the pace), the engine's own snapshot (during the guide only its seed,
// runtime and step: the guide is replayed), the quiz last set up, and
// Base, the demo's time at the engine's time 0, in milliseconds (absent
// while 0, as in the snapshots written before it). The envelope's time is
// Base plus the engine's.
type Snapshot struct {
	sim.Envelope
	Cluster cp.Snapshot `json:"cluster"`
	Quiz    string      `json:"quiz,omitempty"`
	Base    int64       `json:"base,omitempty"`
}

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	return Snapshot{Envelope: d.clk.Envelope(Name), Cluster: d.cl().Snapshot(), Quiz: d.quiz, Base: d.base.Milliseconds()}
}

// startSnapshot is the shared start's snapshot.
var startSnapshot = demo.MustJSON(start.Snapshot())

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound (the engine checks its own). It returns an error, and no demo,
// for any snapshot this package could not have written: another seed, a
// quiz that is not one, a base out of range, or an envelope whose time is
// not the base plus the engine's.
func RestoreDemo(snap Snapshot) (*Demo, error) {
	clock, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	if snap.Cluster.Seed != strconv.Itoa(Seed) {
		return nil, fmt.Errorf("snapshot seed %q, want %d", snap.Cluster.Seed, Seed)
	}
	switch snap.Quiz {
	case QuizNone:
	case QuizScheduler, QuizNode:
		if snap.Cluster.Live == nil {
			return nil, fmt.Errorf("snapshot quiz %q during the guide", snap.Quiz)
		}
	default:
		return nil, fmt.Errorf("snapshot quiz %q", snap.Quiz)
	}
	if snap.Base < 0 || snap.Base > sim.MaxSnapshotNow {
		return nil, fmt.Errorf("snapshot base %d out of range", snap.Base)
	}
	c, err := cp.Restore(snap.Cluster)
	if err != nil {
		return nil, err
	}
	base := time.Duration(snap.Base) * time.Millisecond
	if base+c.Now() != clock.Now() {
		return nil, fmt.Errorf("snapshot time %v, the cluster's %v after %v", clock.Now(), c.Now(), base)
	}
	d := &Demo{c: c, clk: clock, quiz: snap.Quiz, base: base}
	if demo.MustJSON(c.Snapshot()) == startSnapshot {
		d.c = nil // a page that was never touched shares the start again
	}
	if snap.Cluster.Live != nil {
		d.lastSeq = snap.Cluster.Live.MsgSeq
	}
	d.sync()
	return d, nil
}
