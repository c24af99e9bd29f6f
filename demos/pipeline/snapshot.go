package pipeline

import (
	"fmt"

	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Snapshot is the demo as the page keeps it: the envelope (version, kind,
// clock and pace) and the engine's whole world (the API server's objects,
// the external system, the controller's cache, watch events on their way,
// queue and reconciles in progress, the settings, the report and the
// counters). The event log is not kept: a restored demo starts a new one.
type Snapshot struct {
	sim.Envelope
	World engine.Snapshot `json:"world"`
}

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	return Snapshot{Envelope: d.clk.Envelope(Name), World: d.w.Snapshot()}
}

// RestoreDemo rebuilds a demo from a snapshot after checking every field
// and bound: the envelope here, the world in the engine (which refuses any
// world it could not have made). The two clocks must agree. It returns an
// error, and no demo, for any snapshot this package could not have written.
func RestoreDemo(snap Snapshot) (*Demo, error) {
	clk, err := snap.Envelope.Clock(Name)
	if err != nil {
		return nil, err
	}
	if snap.Now != snap.World.Now {
		return nil, fmt.Errorf("snapshot clock %d ms and world clock %d ms differ", snap.Now, snap.World.Now)
	}
	w, err := engine.Restore(snap.World)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	d := &Demo{clk: clk, w: w}
	if d.clk.Now() != w.Now() {
		return nil, fmt.Errorf("snapshot clock %v, restored world at %v", d.clk.Now(), w.Now())
	}
	return d, nil
}
