package triggers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// busyWorld returns a world with something of everything: pods Pending and
// Failed on both sides, events in flight, duplicated, held for a swap,
// dropped, and a lesson.
func busyWorld(t *testing.T) *World {
	t.Helper()
	w := New()
	w.Advance(1234 * ms1)
	w.DuplicateNext()
	mustKill(t, w, "pod-1")
	w.Advance(450 * ms1) // first copy heard, second in flight; pod-4 Pending
	w.SetDrop(true)
	mustKill(t, w, "pod-2")
	w.SetDrop(false)
	w.SwapNext()
	mustDesired(t, w, 5) // held
	return w
}

// roundTrip checks Snapshot → JSON → Restore → Snapshot is the identity.
func roundTrip(t *testing.T, w *World) *World {
	t.Helper()
	snap := w.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(back)
	if err != nil {
		t.Fatalf("snapshot does not restore: %v\n%s", err, b)
	}
	if !equalJSON(r.Snapshot(), snap) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", r.Snapshot(), snap)
	}
	return r
}

func TestSnapshotRoundTrips(t *testing.T) {
	states := map[string]func(t *testing.T) *World{
		"new":  func(t *testing.T) *World { return New() },
		"busy": busyWorld,
		"restarting": func(t *testing.T) *World {
			w := busyWorld(t)
			w.Restart()
			w.Advance(500 * ms1)
			return w
		},
		"after the stories": func(t *testing.T) *World {
			w := busyWorld(t)
			mustDesired(t, w, 4, 10)
			w.Advance(time.Minute)
			return w
		},
	}
	for name, mk := range states {
		t.Run(name, func(t *testing.T) {
			w := mk(t)
			r := roundTrip(t, w)
			// The restored world goes on as the original does.
			for range 40 {
				w.Advance(97 * ms1)
				r.Advance(97 * ms1)
			}
			w.Step()
			r.Step()
			if !equalJSON(r.Snapshot(), w.Snapshot()) {
				t.Fatalf("restored world diverged:\n got %+v\nwant %+v", r.Snapshot(), w.Snapshot())
			}
			if b, _ := json.Marshal(w.Snapshot()); len(b) > 8<<10 {
				t.Fatalf("snapshot of %d bytes", len(b))
			}
		})
	}
}

// A snapshot as large as the package can make it stays a few KB.
func TestSnapshotStaysSmall(t *testing.T) {
	w := New()
	mustDesired(t, w, MaxDesired)
	w.Advance(5 * time.Second)
	for range MaxPods {
		w.DuplicateNext()
		for _, p := range w.View(Edge).Pods {
			if p.Phase.String() != "Failed" {
				w.Kill(p.Name)
				break
			}
		}
		w.Advance(2 * time.Second)
	}
	w.SetDrop(true)
	for _, p := range w.View(Edge).Pods {
		w.Kill(p.Name)
	}
	w.SetDrop(false)
	for i := range 2 * MaxInFlight {
		w.SetDesired(i % 2)
	}
	b, _ := json.Marshal(w.Snapshot())
	if len(b) > 12<<10 {
		t.Fatalf("snapshot of %d bytes", len(b))
	}
	roundTrip(t, w)
}

// Past StreamShown events, the kept ones must be the last StreamShown plus
// older ones still in flight.
func TestRestoreChecksTheKeptEvents(t *testing.T) {
	w := New()
	for i := range StreamShown + 2 {
		mustDesired(t, w, 4+i%2)
	}
	w.Advance(time.Minute)
	tests := []struct {
		name   string
		forge  func(st *StreamState)
		errHas string
	}{
		{"a delivered event older than the shown ones", func(st *StreamState) {
			older := st.Events[0]
			older.Seq--
			st.Events = append([]EventState{older}, st.Events...)
		}, "kept though delivered"},
		{"one of the shown ones missing", func(st *StreamState) {
			older := st.Events[0]
			older.Seq--
			st.Events = append(append([]EventState{older}, st.Events[:5]...), st.Events[6:]...)
		}, "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := w.Snapshot()
			if snap.Edge.Stream.Events[0].Seq < 2 {
				t.Fatalf("stream too short: %+v", snap.Edge.Stream.Events)
			}
			tt.forge(&snap.Edge.Stream)
			if _, err := Restore(snap); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("Restore = %v, want an error saying %q", err, tt.errHas)
			}
		})
	}
}

func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	tests := []struct {
		name   string
		forge  func(s *Snapshot)
		errHas string
	}{
		{"version", func(s *Snapshot) { s.V = 2 }, "version"},
		{"negative time", func(s *Snapshot) { s.Now = -1 }, "time"},
		{"time beyond the bound", func(s *Snapshot) { s.Now = maxNowMs + 1 }, "time"},
		{"desired too big", func(s *Snapshot) { s.Desired = MaxDesired + 1 }, "desired"},
		{"restart too long", func(s *Snapshot) { s.DownIn = RestartTime.Milliseconds() + 1 }, "restart"},
		{"level pod seq", func(s *Snapshot) { s.Level.Seq = -1 }, "seq"},
		{"level holds more than MaxDesired pods", func(s *Snapshot) {
			s.Level.Seq = 20
			s.Level.Pods = nil
			for i := 1; i <= MaxDesired+1; i++ {
				s.Level.Pods = append(s.Level.Pods, PodState{Name: "pod-" + string(rune('a'+i)), Phase: "Running"})
			}
		}, "pods"},
		{"edge holds more than MaxPods", func(s *Snapshot) {
			s.Edge.Pods = make([]PodState, MaxPods+1)
		}, "pods"},
		{"bad pod name", func(s *Snapshot) { s.Edge.Pods[0].Name = "pod-01" }, "name"},
		{"pod beyond seq", func(s *Snapshot) { s.Level.Pods[0].Name = "pod-99" }, "name"},
		{"unsorted pods", func(s *Snapshot) { s.Edge.Pods[0], s.Edge.Pods[1] = s.Edge.Pods[1], s.Edge.Pods[0] }, "sorted"},
		{"duplicate pods", func(s *Snapshot) { s.Edge.Pods[1] = s.Edge.Pods[0] }, "sorted"},
		{"unknown phase", func(s *Snapshot) { s.Level.Pods[0].Phase = "Succeeded" }, "phase"},
		{"pending too long", func(s *Snapshot) { pending(s).StartsIn = StartDelay.Milliseconds() + 1 }, "starts"},
		{"running with a start time", func(s *Snapshot) { s.Edge.Pods[1].StartsIn = 5 }, "start time"},
		{"known too many", func(s *Snapshot) { s.Known = make([]string, MaxKnown+1) }, "knows"},
		{"known bad name", func(s *Snapshot) { s.Known = []string{"pod-x"} }, "bad pod"},
		{"known unsorted", func(s *Snapshot) { s.Known = []string{"pod-3", "pod-1"} }, "sorted"},
		{"known while restarting", func(s *Snapshot) {
			s.DownIn = 100
			s.Level.Stream.Queue, s.Edge.Stream.Queue = nil, nil
			s.Level.Stream.Held, s.Edge.Stream.Held = 0, 0
		}, "remembers"},
		{"in flight while restarting", func(s *Snapshot) { s.DownIn = 100; s.Known = nil }, "restarting"},
		{"stream seq", func(s *Snapshot) { s.Edge.Stream.Seq = -1 }, "seq"},
		{"too many events", func(s *Snapshot) { s.Edge.Stream.Events = make([]EventState, StreamShown+MaxInFlight+1) }, "too many"},
		{"unknown kind", func(s *Snapshot) { s.Edge.Stream.Events[0].Kind = "evicted" }, "kind"},
		{"unknown fate", func(s *Snapshot) { s.Edge.Stream.Events[0].Fate = "lost" }, "fate"},
		{"dropped without a loss", func(s *Snapshot) { dropped(s).Loss = "" }, "loss"},
		{"delivered with a loss", func(s *Snapshot) { s.Edge.Stream.Events[0].Loss = "blip" }, "loss"},
		{"desired change to the same", func(s *Snapshot) { last(s).Old = last(s).New }, "desired change"},
		{"desired change out of range", func(s *Snapshot) { last(s).New = MaxDesired + 1 }, "desired change"},
		{"desired change naming a pod", func(s *Snapshot) { last(s).Pod = "pod-1" }, "desired change"},
		{"pod event without a pod", func(s *Snapshot) { s.Edge.Stream.Events[0].Pod = "" }, "bad pod"},
		{"pod event with numbers", func(s *Snapshot) { s.Edge.Stream.Events[0].New = 2 }, "bad pod"},
		{"emitted in the future", func(s *Snapshot) { s.Edge.Stream.Events[0].EmittedAt = s.Now + 1 }, "emitted"},
		{"delivered three times", func(s *Snapshot) { s.Edge.Stream.Events[0].Delivered = 3 }, "delivered"},
		{"delivered before emitted", func(s *Snapshot) { s.Edge.Stream.Events[0].DeliveredAt = 0 }, "delivered at"},
		{"never delivered with a time", func(s *Snapshot) { dropped(s).DeliveredAt = 5 }, "delivery time"},
		{"events out of order", func(s *Snapshot) {
			e := s.Edge.Stream.Events
			e[0], e[1] = e[1], e[0]
		}, "order"},
		{"newest event missing", func(s *Snapshot) { s.Edge.Stream.Seq++ }, "kept"},
		{"event numbered 0", func(s *Snapshot) { s.Level.Stream.Events[0].Seq = 0 }, "order"},
		{"copy due too far", func(s *Snapshot) { s.Edge.Stream.Queue[0].In = maxCopyIn.Milliseconds() + 1 }, "due in"},
		{"copy due long after its emission", func(s *Snapshot) { s.Now += maxCopyIn.Milliseconds() }, "too late"},
		{"copies out of order", func(s *Snapshot) {
			s.Edge.Stream.Queue = append(s.Edge.Stream.Queue, CopyState{Seq: s.Edge.Stream.Queue[0].Seq, In: 0})
		}, "order"},
		{"copy of an unknown event", func(s *Snapshot) { s.Edge.Stream.Queue[0].Seq = 999 }, "unknown event"},
		{"too many copies of an event", func(s *Snapshot) {
			q := s.Edge.Stream.Queue
			s.Edge.Stream.Queue = append(q, q[len(q)-1], q[len(q)-1], q[len(q)-1])
		}, "copies"},
		{"held event not swapped", func(s *Snapshot) { s.Edge.Stream.Held = s.Edge.Stream.Events[0].Seq }, "held"},
		{"held event unknown", func(s *Snapshot) { s.Edge.Stream.Held = 999 }, "held"},
		{"held event also in flight", func(s *Snapshot) {
			s.Edge.Stream.Queue = append(s.Edge.Stream.Queue, CopyState{Seq: s.Edge.Stream.Held, In: 500})
		}, "also in flight"},
		{"an event got past a held one", func(s *Snapshot) {
			st := &s.Edge.Stream
			st.Held = st.Events[len(st.Events)-2].Seq
			st.Events[len(st.Events)-2].Fate = "swapped"
			st.Events[len(st.Events)-2].Loss = ""
		}, "got through"},
		{"unknown lesson", func(s *Snapshot) { s.Lesson.Reason = "boredom" }, "lesson"},
		{"lesson in the future", func(s *Snapshot) { s.Lesson.At = s.Now + 1 }, "lesson"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := forgeable(t)
			tt.forge(&snap)
			w, err := Restore(snap)
			if err == nil || w != nil {
				t.Fatalf("Restore accepted a forged snapshot: %+v", snap)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("error %q does not say %q", err, tt.errHas)
			}
		})
	}
}

// forgeable is a snapshot the forgeries start from: the busy world, with a
// dropped event and an edge event delivered early in its stream.
func forgeable(t *testing.T) Snapshot {
	t.Helper()
	snap := busyWorld(t).Snapshot()
	// Deep copy through JSON so forgeries never share slices.
	b, _ := json.Marshal(snap)
	var out Snapshot
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(out); err != nil {
		t.Fatalf("the busy world does not restore: %v", err)
	}
	if out.Edge.Stream.Events[0].Fate != "duplicated" || out.Edge.Stream.Events[0].Delivered != 1 || out.Edge.Stream.Held == 0 {
		t.Fatalf("the busy world's edge stream changed: %+v", out.Edge.Stream)
	}
	return out
}

func pending(s *Snapshot) *PodState {
	for i, p := range s.Level.Pods {
		if p.Phase == "Pending" {
			return &s.Level.Pods[i]
		}
	}
	panic("no Pending pod")
}

func dropped(s *Snapshot) *EventState {
	for i, e := range s.Edge.Stream.Events {
		if e.Fate == "dropped" {
			return &s.Edge.Stream.Events[i]
		}
	}
	panic("no dropped event")
}

func last(s *Snapshot) *EventState {
	return &s.Edge.Stream.Events[len(s.Edge.Stream.Events)-1]
}
