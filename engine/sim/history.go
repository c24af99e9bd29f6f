package sim

import "time"

// Sample is the state of the reconcile demo at one moment: what was declared
// and what was observed. History holds one per change.
type Sample struct {
	At                       time.Duration
	Desired                  int
	Running, Pending, Failed int
}

// PhaseSample is the operator's Status.Phase from At on.
type PhaseSample struct {
	At    time.Duration
	Phase string
}

// maxSamples bounds a history however fast things change: a visitor acting
// at the flood limit for a whole window cannot make it grow past this.
const maxSamples = 512

// history is a step function over virtual time: each sample holds until the
// next. It keeps the samples inside the window plus the last one before it,
// which gives the value at the window's left edge.
type history[T any] struct {
	samples []T
	at      func(T) time.Duration
}

func (h *history[T]) record(s T, equal func(a, b T) bool, now, window time.Duration) {
	if n := len(h.samples); n > 0 && equal(h.samples[n-1], s) {
		return
	}
	h.samples = append(h.samples, s)
	h.trim(now, window)
}

func (h *history[T]) trim(now, window time.Duration) {
	cut := 0
	for cut+1 < len(h.samples) && h.at(h.samples[cut+1]) <= now-window {
		cut++
	}
	if over := len(h.samples) - maxSamples; over > cut {
		cut = over
	}
	if cut > 0 {
		h.samples = append(h.samples[:0], h.samples[cut:]...)
	}
}

func (h *history[T]) list() []T { return append([]T(nil), h.samples...) }

// last returns the time of the newest sample, or 0 when there is none.
func (h *history[T]) last() time.Duration {
	if len(h.samples) == 0 {
		return 0
	}
	return h.at(h.samples[len(h.samples)-1])
}
