package triggers

import (
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	engine "github.com/reconcile-demo/reconcile-demo/engine/triggers"
)

// Snapshot is the demo as the page keeps it: the envelope (version, kind,
// clock and pace) and the engine's world (both clusters, the edge
// controller's memory, both streams with the events in flight, the switches
// and the lesson). Times are virtual milliseconds. The controllers' logs are
// not kept: a restored demo starts them with a note that it was restored.
//
// The envelope's now and the world's now are the same clock, written twice
// (once for every demo's envelope, once for the engine's own snapshot):
// restore refuses a snapshot where they differ.
type Snapshot struct {
	sim.Envelope
	World engine.Snapshot `json:"world"`
}

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	return Snapshot{Envelope: d.Envelope(Name), World: d.w.Snapshot()}
}

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound (the envelope here, the world in the engine's Restore). It
// returns an error, and no demo, for any snapshot this package could not
// have written.
func RestoreDemo(snap Snapshot) (*Demo, error) {
	clock, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	w, err := engine.Restore(snap.World)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if w.Now() != clock.Now() {
		return nil, fmt.Errorf("snapshot: the world's clock %dms and the envelope's %dms differ", snap.World.Now, snap.Now)
	}
	now := time.Duration(snap.Now) * time.Millisecond
	return &Demo{Clock: clock, w: w, note: &sim.Event{Kind: NoteRestored, At: now}}, nil
}
