package pipeline

import (
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/reconcile-demo/reconcile-demo/internal/noscan"
)

// TestEventsAreKeptCompact: every event the demo's scenes produce fits the
// log's compact form, and comes back out exactly as it went in.
func TestEventsAreKeptCompact(t *testing.T) {
	worlds := scenes(t)
	for _, tr := range Traps() {
		w := New()
		mustNil(t, w.SetTrap(tr, true))
		w.CreateApp("app-2")
		w.EditApp("app-1")
		w.DeleteApp("app-1")
		w.Advance(20 * time.Second)
		worlds["trap "+string(tr)] = w
	}
	for name, w := range worlds {
		for i, r := range w.log.ring {
			if r.odd {
				t.Fatalf("%s: event %d %+v is outside the vocabulary", name, i, w.log.odd[i])
			}
		}
		for _, e := range w.Events() {
			r, ok := pack(e)
			l := eventLog{ring: []record{r}}
			if got := l.event(0); !ok || got != e {
				t.Fatalf("%s: %+v came back as %+v", name, e, got)
			}
		}
	}
}

// TestAnOddEventIsKeptWhole: an event outside the vocabulary is kept as it
// is, not lost or garbled.
func TestAnOddEventIsKeptWhole(t *testing.T) {
	l := eventLog{size: 2}
	odd := Event{Kind: "unheard-of", Verb: "update", Worker: 1 << 40, N: 3}
	l.add(Event{Kind: EventGet, Worker: 1, Key: "default/app-1"})
	l.add(odd)
	l.add(Event{Kind: EventDone, Worker: 2, Key: "default/app-2"})
	got := l.list()
	odd.Seq = 2
	if len(got) != 2 || got[0] != odd || got[1].Kind != EventDone || got[1].Seq != 3 || got[1].Worker != 2 {
		t.Fatalf("log %+v", got)
	}
	// Its slot taken by an event that packs, it is forgotten.
	l.add(Event{Kind: EventReady, Key: "default/app-1"})
	if got := l.list(); len(l.odd) != 0 || got[0].Kind != EventDone || got[1].Kind != EventReady {
		t.Fatalf("after the odd event left: log %+v, odd %v", got, l.odd)
	}
}

// TestTheRingHoldsNoPointer: the collector skips the ring only while a
// record holds no pointer.
func TestTheRingHoldsNoPointer(t *testing.T) {
	if noscan.HasPointer(reflect.TypeFor[record]()) {
		t.Fatal("a record holds a pointer: the collector scans every session's log")
	}
}

// TestTheLogIsSmall: a full log costs each session under 8 KB.
func TestTheLogIsSmall(t *testing.T) {
	if n := int(unsafe.Sizeof(record{})) * EventLogSize; n > 8<<10 {
		t.Fatalf("a full log takes %d bytes", n)
	}
}

// NewestEvents yields what Events returns, newest first, and stops when
// told to; NewestKinds their numbers and kinds.
func TestNewestEvents(t *testing.T) {
	for name, w := range scenes(t) {
		all := w.Events()
		var newest []Event
		for e := range w.NewestEvents() {
			newest = append(newest, e)
		}
		if len(newest) != len(all) {
			t.Fatalf("%s: %d events newest first, %d oldest first", name, len(newest), len(all))
		}
		for i, e := range newest {
			if e != all[len(all)-1-i] {
				t.Fatalf("%s: newest %d is %+v, want %+v", name, i, e, all[len(all)-1-i])
			}
		}
		n := 0
		for range w.NewestEvents() {
			if n++; n == 3 {
				break
			}
		}
		if n != min(3, len(all)) {
			t.Fatalf("%s: stopped after %d", name, n)
		}
		// NewestKinds yields the same events' numbers and kinds.
		i := 0
		for seq, kind := range w.NewestKinds() {
			if e := newest[i]; seq != e.Seq || kind != e.Kind {
				t.Fatalf("%s: newest kind %d is %d %q, want %d %q", name, i, seq, kind, e.Seq, e.Kind)
			}
			i++
		}
		if i != len(all) {
			t.Fatalf("%s: %d kinds, %d events", name, i, len(all))
		}
	}
}
