package sim

import "time"

// Event is one line of a demo's log, in structured form so the page can say
// it in any language. Which fields are set depends on Kind, which each demo
// defines beside the shared kinds below.
type Event struct {
	Seq  int           // increases by one per event, for stable keys
	At   time.Duration // virtual time
	Kind string        // a demo's event kind
	Name string        // the pod, member or backup concerned
	N, M int           // counts: desired and observed, old and new, …
}

// Event kinds every demo may log.
const (
	EventWatchStart = "watch-start" // controller on: 監視を開始しました
	EventWatchStop  = "watch-stop"  // controller off
	EventReset      = "reset"       // the demo was reset
	EventRestored   = "restored"    // the demo was rebuilt from a snapshot
)

// Log keeps a demo's newest events, at most its size of them. The zero Log
// keeps nothing; make one with NewLog.
type Log struct {
	events []Event
	seq    int
	size   int
}

// NewLog returns an empty log that keeps the newest size events.
func NewLog(size int) Log { return Log{size: size} }

// Add appends e, numbered and stamped at virtual time at, dropping the
// oldest event when the log is full.
func (l *Log) Add(at time.Duration, e Event) {
	l.seq++
	e.Seq = l.seq
	e.At = at
	if l.size <= 0 {
		return
	}
	if len(l.events) == l.size {
		copy(l.events, l.events[1:])
		l.events = l.events[:len(l.events)-1]
	}
	l.events = append(l.events, e)
}

// List returns a copy of the events, oldest first.
func (l *Log) List() []Event { return append([]Event(nil), l.events...) }

// Peek returns the events, oldest first, without copying them: the
// caller reads them before the next Add and never writes them.
func (l *Log) Peek() []Event { return l.events[:len(l.events):len(l.events)] }

// Newest returns a copy of the newest n events (all of them when there are
// fewer), oldest first: what a page shows of the log.
func (l *Log) Newest(n int) []Event {
	return append([]Event(nil), l.events[max(0, len(l.events)-n):]...)
}

// AppendSeqs appends to keys the numbers of the newest n events, oldest
// first, as Newest lists them, copying none: an event never changes once
// added, so within a log its number stands for it.
func (l *Log) AppendSeqs(keys []uint64, n int) []uint64 {
	for _, e := range l.events[max(0, len(l.events)-n):] {
		keys = append(keys, uint64(e.Seq))
	}
	return keys
}

// Seq returns the number of the newest event: it grows with every event.
func (l *Log) Seq() int { return l.seq }
