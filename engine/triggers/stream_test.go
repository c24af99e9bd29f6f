package triggers

import (
	"slices"
	"testing"
	"time"
)

// deliverAll delivers every copy in flight, in order, and returns the seqs.
func deliverAll(s *stream) []int {
	var out []int
	for {
		at, ok := s.next()
		if !ok {
			return out
		}
		ev, _ := s.deliver(at)
		out = append(out, ev.Seq)
	}
}

func TestStreamFates(t *testing.T) {
	ev := Event{Kind: PodRunning, Pod: 1}
	tests := []struct {
		name      string
		arm       func(s *stream)
		blocked   []Loss // per emitted event
		emit      int
		fates     []Fate
		order     []int
		leftArmed bool
	}{
		{"healthy: delivered in order", nil, nil, 3,
			[]Fate{Delivered, Delivered, Delivered}, []int{1, 2, 3}, false},
		{"duplicate: the next one twice", func(s *stream) { s.dupNext = true }, nil, 2,
			[]Fate{Duplicated, Delivered}, []int{1, 2, 1}, false},
		{"swap: the next two reversed", func(s *stream) { s.swapNext = true }, nil, 3,
			[]Fate{Swapped, Swapped, Delivered}, []int{2, 1, 3}, false},
		{"swap and duplicate: swap first, duplicate after", func(s *stream) { s.swapNext, s.dupNext = true, true }, nil, 3,
			[]Fate{Swapped, Swapped, Duplicated}, []int{2, 1, 3, 3}, false},
		{"blocked events do not use the armed duplicate", func(s *stream) { s.dupNext = true },
			[]Loss{LossBlip, LossDown, LossNone}, 3, []Fate{Dropped, Dropped, Duplicated}, []int{3, 3}, false},
		{"a held event waits through drops", func(s *stream) { s.swapNext = true },
			[]Loss{LossNone, LossBlip, LossNone}, 3, []Fate{Swapped, Dropped, Swapped}, []int{3, 1}, false},
		{"a held event without a partner waits", func(s *stream) { s.swapNext = true }, nil, 1,
			[]Fate{Swapped}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stream
			if tt.arm != nil {
				tt.arm(&s)
			}
			var fates []Fate
			for i := range tt.emit {
				var b Loss
				if i < len(tt.blocked) {
					b = tt.blocked[i]
				}
				e := s.emit(ev, time.Duration(i)*time.Millisecond, b)
				fates = append(fates, e.Fate)
				if (e.Fate == Dropped) != (e.Loss != LossNone) {
					t.Fatalf("fate %s with loss %q", e.Fate, e.Loss)
				}
			}
			if !slices.Equal(fates, tt.fates) {
				t.Fatalf("fates %v, want %v", fates, tt.fates)
			}
			if got := deliverAll(&s); !slices.Equal(got, tt.order) {
				t.Fatalf("delivered %v, want %v", got, tt.order)
			}
			if (s.held != 0) != tt.leftArmed {
				t.Fatalf("held %d", s.held)
			}
		})
	}
}

func TestStreamDeliveryTimes(t *testing.T) {
	var s stream
	s.dupNext = true
	s.emit(Event{Kind: PodDied, Pod: 1}, 0, LossNone)
	s.swapNext = true
	s.emit(Event{Kind: PodDied, Pod: 2}, 100*time.Millisecond, LossNone)
	s.emit(Event{Kind: PodDied, Pod: 3}, 250*time.Millisecond, LossNone)
	s.emit(Event{Kind: PodDied, Pod: 4}, 260*time.Millisecond, LossNone)
	got := append([]delivery(nil), s.queue...)
	// pod-4's event waits behind the swapped pair; pod-1's second copy is
	// overtaken.
	want := []delivery{{1, DeliveryDelay}, {3, 250*time.Millisecond + DeliveryDelay},
		{1, DeliveryDelay + DuplicateGap}, {2, 250*time.Millisecond + DeliveryDelay + SwapGap},
		{4, 250*time.Millisecond + DeliveryDelay + SwapGap}}
	if !slices.Equal(got, want) {
		t.Fatalf("queue %v, want %v", got, want)
	}
	v := s.view(100 * time.Millisecond)
	if v[0].InFlight != 2 || v[0].ArrivesIn != DeliveryDelay-100*time.Millisecond || v[1].Held {
		t.Fatalf("view %+v", v)
	}
}

func TestStreamOverflowDrops(t *testing.T) {
	var s stream
	for range MaxInFlight + 3 {
		s.emit(Event{Kind: PodRunning, Pod: 1}, 0, LossNone)
	}
	if n := s.inFlight(); n != MaxInFlight {
		t.Fatalf("%d in flight, want the bound %d", n, MaxInFlight)
	}
	last := s.events[len(s.events)-1]
	if last.Fate != Dropped || last.Loss != LossOverflow {
		t.Fatalf("an event beyond the bound: %+v", last)
	}
	if len(s.events) > StreamShown+MaxInFlight {
		t.Fatalf("%d events kept", len(s.events))
	}
}

func TestStreamKeepsLastShownAndPending(t *testing.T) {
	var s stream
	s.swapNext = true
	s.emit(Event{Kind: PodRunning, Pod: 1}, 0, LossNone) // held
	for i := range 3 * StreamShown {
		s.emit(Event{Kind: PodRunning, Pod: 1}, 0, LossBlip)
		_ = i
	}
	if len(s.events) != StreamShown+1 || s.events[0].Seq != 1 {
		t.Fatalf("kept %d events from %d; want the held one plus the last %d", len(s.events), s.events[0].Seq, StreamShown)
	}
	lost := s.lose()
	if len(lost) != 1 || lost[0].Seq != 1 || lost[0].Loss != LossRestart {
		t.Fatalf("lost %+v", lost)
	}
	if len(s.events) != StreamShown || s.held != 0 {
		t.Fatalf("after the restart %d events, held %d", len(s.events), s.held)
	}
	if _, ok := s.deliver(0); ok {
		t.Fatal("delivered from an empty stream")
	}
}
