package pipeline

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/reconcile-demo/reconcile-demo/demos/demo"
	engine "github.com/reconcile-demo/reconcile-demo/engine/pipeline"
	"github.com/reconcile-demo/reconcile-demo/engine/sim"
)

// Snapshot is the demo as the page keeps it: the envelope (version, kind,
// clock and pace) and the engine's whole world (the API server's objects,
// the external system, the controller's cache, watch events on their way,
// queue and reconciles in progress, the settings, the report and the
// counters). The event log is not kept: a restored demo starts a new one.
//
// The page sends the snapshot back in one message of at most 8 KB. Most
// worlds take 1–6 KB as plain JSON; a busy one (three Apps, two workers
// and sixteen watch events on their way) takes up to about 10 KB, so a
// world whose snapshot would pass MaxPlainBytes is kept deflated and
// base64-encoded in Packed instead (about a quarter of the size). Exactly
// one of World and Packed is set, and which one follows from the world.
type Snapshot struct {
	sim.Envelope
	World  *engine.Snapshot `json:"world,omitempty"`
	Packed string           `json:"packed,omitempty"`
}

// Snapshot sizes, in bytes of JSON.
const (
	// MaxPlainBytes is the longest snapshot written as plain JSON.
	MaxPlainBytes = 6 << 10
	// maxUnpacked bounds what a packed world may inflate to: far more than
	// any world (about 10 KB), far less than a deflate bomb would make.
	maxUnpacked = 64 << 10
)

// Snapshot returns the demo's snapshot.
func (d *Demo) Snapshot() Snapshot {
	s, _ := d.snapshot()
	return s
}

// snapshot returns the demo's snapshot and its JSON, marshalled once.
func (d *Demo) snapshot() (Snapshot, string) {
	w := d.World().Snapshot()
	s := Snapshot{Envelope: d.clk.Envelope(Name), World: &w}
	if raw := demo.MustJSON(s); len(raw) <= MaxPlainBytes {
		return s, raw
	}
	s = Snapshot{Envelope: s.Envelope, Packed: pack([]byte(demo.MustJSON(w)))}
	return s, demo.MustJSON(s)
}

// packers keeps deflate writers for reuse: a new one allocates a few
// hundred KB of tables, a reset one nothing. (Sessions pack on their own
// goroutines; a sync.Pool is safe for that.)
var packers = sync.Pool{New: func() any {
	zw, err := flate.NewWriter(nil, flate.BestSpeed)
	if err != nil {
		panic("pipeline: deflate: " + err.Error()) // only for a bad level
	}
	return zw
}}

// pack deflates a world's JSON (about 10 KB to 1.3 KB, in under 0.1 ms).
// Deflate is deterministic, so the same world always packs to the same
// string.
func pack(world []byte) string {
	var b bytes.Buffer
	zw := packers.Get().(*flate.Writer)
	zw.Reset(&b)
	zw.Write(world) // a bytes.Buffer does not fail
	zw.Close()
	packers.Put(zw)
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// unpack inflates a packed world, refusing anything this package could not
// have written: bad base64 or deflate, more than maxUnpacked bytes, unknown
// fields, a world small enough to be written plain, or a packing other
// than the one Snapshot makes.
func unpack(env sim.Envelope, packed string) (engine.Snapshot, error) {
	var w engine.Snapshot
	z, err := base64.StdEncoding.DecodeString(packed)
	if err != nil {
		return w, fmt.Errorf("packed world: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxUnpacked+1))
	if err != nil {
		return w, fmt.Errorf("packed world: %w", err)
	}
	if len(raw) > maxUnpacked {
		return w, errors.New("packed world: too large")
	}
	if err := demo.Strict(json.RawMessage(raw), &w); err != nil {
		return w, fmt.Errorf("packed world: %w", err)
	}
	if len(demo.MustJSON(Snapshot{Envelope: env, World: &w})) <= MaxPlainBytes {
		return w, errors.New("packed world: small enough to be plain")
	}
	if pack(raw) != packed {
		return w, errors.New("packed world: not packed as this demo packs")
	}
	return w, nil
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
	var world engine.Snapshot
	switch {
	case snap.World != nil && snap.Packed == "":
		world = *snap.World
		if len(demo.MustJSON(snap)) > MaxPlainBytes {
			return nil, errors.New("snapshot: a world this large is written packed")
		}
	case snap.World == nil && snap.Packed != "":
		if world, err = unpack(snap.Envelope, snap.Packed); err != nil {
			return nil, fmt.Errorf("snapshot: %w", err)
		}
	default:
		return nil, errors.New("snapshot: want exactly one of world and packed")
	}
	if snap.Now != world.Now {
		return nil, fmt.Errorf("snapshot clock %d ms and world clock %d ms differ", snap.Now, world.Now)
	}
	w, err := engine.Restore(world)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	d := &Demo{clk: clk, w: w}
	if d.clk.Now() != w.Now() {
		return nil, fmt.Errorf("snapshot clock %v, restored world at %v", d.clk.Now(), w.Now())
	}
	return d, nil
}
