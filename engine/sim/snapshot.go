package sim

import (
	"fmt"
	"time"
)

// SnapshotVersion is the version of the snapshots the demos write and read.
// A snapshot of another version is refused.
const SnapshotVersion = 1

// MaxSnapshotNow bounds a snapshot's virtual clock in milliseconds: about 31
// years, which the clock never passes (MaxClock), far less than overflows a
// time.Duration.
const MaxSnapshotNow = int64(1e12)

// Envelope is what every demo's snapshot carries beside its own state: the
// version, the demo kind, and the clock. Times are virtual milliseconds.
// Snapshots written before the kind was recorded have none; they are
// accepted for the kind whose socket sends them.
type Envelope struct {
	V      int    `json:"v"`
	Kind   string `json:"kind,omitempty"`
	Now    int64  `json:"now"`
	Paused bool   `json:"paused"`
	Speed  string `json:"speed"`
}

// Envelope returns the envelope of a snapshot of kind taken now.
func (c *Clock) Envelope(kind string) Envelope {
	return Envelope{V: SnapshotVersion, Kind: kind, Now: c.now.Milliseconds(), Paused: c.paused, Speed: c.speed.String()}
}

// Clock checks the envelope for a demo of kind and returns its clock. It
// refuses another version, another kind, a time out of range and an unknown
// speed.
func (e Envelope) Clock(kind string) (Clock, error) {
	if e.V != SnapshotVersion {
		return Clock{}, fmt.Errorf("snapshot version %d, want %d", e.V, SnapshotVersion)
	}
	if e.Kind != "" && e.Kind != kind {
		return Clock{}, fmt.Errorf("snapshot of a %q demo, want %q", e.Kind, kind)
	}
	if e.Now < 0 || e.Now > MaxSnapshotNow {
		return Clock{}, fmt.Errorf("snapshot time %d out of range", e.Now)
	}
	speed, err := ParseSpeed(e.Speed)
	if err != nil {
		return Clock{}, fmt.Errorf("snapshot: %w", err)
	}
	return NewClock(time.Duration(e.Now)*time.Millisecond, e.Paused, speed), nil
}
