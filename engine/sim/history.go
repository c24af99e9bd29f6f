package sim

import (
	"iter"
	"slices"
	"time"
)

// MaxSamples bounds a history however fast things change: a visitor acting
// at the flood limit for a whole window cannot make it grow past this.
const MaxSamples = 512

// History is a step function over virtual time: each sample holds until the
// next. It keeps the samples inside the window plus the last one before it,
// which gives the value at the window's left edge.
type History[T any] struct {
	samples []T
	at      func(T) time.Duration
	equal   func(a, b T) bool
	ver     uint64 // grows with every change of samples
}

// NewHistory returns an empty history of samples taken at at(sample); a
// sample equal to the newest one is not recorded.
func NewHistory[T any](at func(T) time.Duration, equal func(a, b T) bool) History[T] {
	return History[T]{at: at, equal: equal}
}

// Record adds s unless it equals the newest sample, then trims to window.
func (h *History[T]) Record(s T, now, window time.Duration) {
	if n := len(h.samples); n > 0 && h.equal(h.samples[n-1], s) {
		return
	}
	h.samples = append(h.samples, s)
	h.ver++
	h.Trim(now, window)
}

// Trim drops the samples that no longer bear on the window ending at now.
func (h *History[T]) Trim(now, window time.Duration) {
	cut := 0
	for cut+1 < len(h.samples) && h.at(h.samples[cut+1]) <= now-window {
		cut++
	}
	if over := len(h.samples) - MaxSamples; over > cut {
		cut = over
	}
	if cut > 0 {
		h.samples = append(h.samples[:0], h.samples[cut:]...)
		h.ver++
	}
}

// List returns a copy of the samples, oldest first.
func (h *History[T]) List() []T { return append([]T(nil), h.samples...) }

// All yields the samples, oldest first, with their index, without copying
// them: a chart reads them once per frame.
func (h *History[T]) All() iter.Seq2[int, T] { return slices.All(h.samples) }

// Len returns how many samples are kept.
func (h *History[T]) Len() int { return len(h.samples) }

// Last returns the time of the newest sample, or 0 when there is none.
func (h *History[T]) Last() time.Duration {
	if len(h.samples) == 0 {
		return 0
	}
	return h.at(h.samples[len(h.samples)-1])
}

// Reset forgets every sample.
func (h *History[T]) Reset() { h.samples = nil; h.ver++ }

// Version grows with every change of the samples: a chart's key.
func (h *History[T]) Version() uint64 { return h.ver }
