package triggers

import (
	"slices"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

const ms1 = time.Millisecond

// drive is a way of letting the world run: any mix of Advance and Step.
type drive struct {
	name string
	run  func(w *World)
}

// drives are the ways the stories must hold "however many steps".
var drives = []drive{
	{"one long advance", func(w *World) { w.Advance(30 * time.Second) }},
	{"many small advances", func(w *World) {
		for range 600 {
			w.Advance(50 * ms1)
		}
	}},
	{"steps, then time", func(w *World) {
		for range 40 {
			w.Step()
		}
		w.Advance(30 * time.Second)
	}},
	{"steps between advances", func(w *World) {
		for range 60 {
			w.Step()
			w.Advance(170 * ms1)
			w.Step()
		}
		w.Advance(30 * time.Second)
	}},
	{"to each due time", func(w *World) {
		for range 1000 {
			d, ok := w.NextDue()
			if !ok {
				return
			}
			w.Advance(max(d, ms1))
		}
	}},
}

func mustKill(t *testing.T, w *World, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := w.Kill(n); err != nil {
			t.Fatal(err)
		}
	}
}

func mustDesired(t *testing.T, w *World, ns ...int) {
	t.Helper()
	for _, n := range ns {
		if err := w.SetDesired(n); err != nil {
			t.Fatal(err)
		}
	}
}

func podNames(v SideView) []string {
	var out []string
	for _, p := range v.Pods {
		out = append(out, p.Name)
	}
	return out
}

func phaseOf(v SideView, name string) (reconcile.Phase, bool) {
	for _, p := range v.Pods {
		if p.Name == name {
			return p.Phase, true
		}
	}
	return 0, false
}

// quiet checks that nothing is left to happen: no timer, and an hour more
// changes nothing but the clock.
func quiet(t *testing.T, w *World) {
	t.Helper()
	if d, ok := w.NextDue(); ok {
		t.Fatalf("NextDue = %v, true; want a quiet world", d)
	}
	before := w.Snapshot()
	w.Advance(time.Hour)
	after := w.Snapshot()
	after.Now = before.Now
	if !equalJSON(before, after) {
		t.Fatalf("a quiet world changed in an hour:\n%+v\n%+v", before, after)
	}
}

func TestStartsConvergedAndQuiet(t *testing.T) {
	w := New()
	for _, s := range []Side{Level, Edge} {
		v := w.View(s)
		if !v.Converged || v.Desired != 3 || v.Alive != 3 || v.Running != 3 || len(v.Stream) != 0 {
			t.Fatalf("%v starts %+v", s, v)
		}
		if got := podNames(v); !slices.Equal(got, []string{"pod-1", "pod-2", "pod-3"}) {
			t.Fatalf("%v pods %v", s, got)
		}
	}
	if !w.Converged(Level) || !w.Converged(Edge) {
		t.Fatal("Converged disagrees with the views")
	}
	if got := w.View(Edge).Known; !slices.Equal(got, []string{"pod-1", "pod-2", "pod-3"}) {
		t.Fatalf("the edge controller starts knowing %v", got)
	}
	if w.Drop() || w.Mattered().Row != RowNone {
		t.Fatal("a new world has a switch on or a lesson")
	}
	quiet(t, w)
}

// With a healthy stream both controllers repair and scale: the edge side is
// not wrong by itself, only fragile.
func TestHealthyStreamBothSidesConverge(t *testing.T) {
	tests := []struct {
		name      string
		act       func(t *testing.T, w *World)
		desired   int
		edgeAdded []string // pods the edge side created
	}{
		{"kill", func(t *testing.T, w *World) { mustKill(t, w, "pod-2") }, 3, []string{"pod-4"}},
		{"kill all", func(t *testing.T, w *World) { mustKill(t, w, "pod-1", "pod-2", "pod-3") }, 3, []string{"pod-4", "pod-5", "pod-6"}},
		{"scale up", func(t *testing.T, w *World) { mustDesired(t, w, 5) }, 5, []string{"pod-4", "pod-5"}},
		{"scale down", func(t *testing.T, w *World) { mustDesired(t, w, 1) }, 1, nil},
		{"scale up then down", func(t *testing.T, w *World) { mustDesired(t, w, 6, 2) }, 2, []string{"pod-4", "pod-5", "pod-6"}},
		{"restart with nothing missed", func(t *testing.T, w *World) {
			if err := w.Restart(); err != nil {
				t.Fatal(err)
			}
		}, 3, nil},
	}
	for _, tt := range tests {
		for _, dr := range drives {
			t.Run(tt.name+"/"+dr.name, func(t *testing.T) {
				w := New()
				tt.act(t, w)
				dr.run(w)
				w.Advance(10 * time.Second)
				for _, s := range []Side{Level, Edge} {
					if v := w.View(s); !v.Converged || v.Alive != tt.desired {
						t.Fatalf("%v side %+v, want converged at %d", s, v, tt.desired)
					}
				}
				var created []string
				for _, e := range w.View(Edge).Log {
					for _, a := range e.Actions() {
						if a.Kind == ActCreate {
							created = append(created, a.Pod.String())
						}
					}
				}
				if !slices.Equal(created, tt.edgeAdded) {
					t.Fatalf("edge created %v, want %v", created, tt.edgeAdded)
				}
				quiet(t, w)
			})
		}
	}
}

// Story (a): with events dropped, a killed pod is repaired on the level side
// and never on the edge side, however the world is driven.
func TestDroppedDeathIsRepairedOnlyByLevel(t *testing.T) {
	for _, dr := range drives {
		for _, dropOffAfter := range []bool{false, true} {
			name := dr.name
			if dropOffAfter {
				name += "/drop switched off after"
			}
			t.Run(name, func(t *testing.T) {
				w := New()
				w.SetDrop(true)
				mustKill(t, w, "pod-2")
				if l := w.Mattered(); l.Row != RowMissed || l.Reason != ReasonBlip {
					t.Fatalf("lesson %+v, want 取りこぼし (blip)", l)
				}
				ev := w.View(Edge).Stream[0]
				if ev.Kind != PodDied || ev.Pod.String() != "pod-2" || ev.Fate != Dropped || ev.Loss != LossBlip || ev.InFlight != 0 {
					t.Fatalf("edge stream %+v", ev)
				}
				dr.run(w)
				if dropOffAfter {
					w.SetDrop(false)
					dr.run(w)
				}
				w.Advance(10 * time.Second)

				lv := w.View(Level)
				if !lv.Converged || lv.Alive != 3 || !slices.Contains(podNames(lv), "pod-4") || slices.Contains(podNames(lv), "pod-2") {
					t.Fatalf("level side %+v, want repaired with pod-4", lv)
				}
				ev2 := w.View(Edge)
				if ev2.Converged || ev2.Alive != 2 {
					t.Fatalf("edge side %+v, want 2 alive forever", ev2)
				}
				if ph, ok := phaseOf(ev2, "pod-2"); !ok || ph != reconcile.Failed {
					t.Fatalf("edge pod-2 is %v, %v; want still Failed", ph, ok)
				}
				for _, e := range ev2.Log {
					if len(e.Actions()) > 0 {
						t.Fatalf("edge acted without hearing: %+v", e)
					}
				}
				quiet(t, w)
				if v := w.View(Edge); v.Alive != 2 {
					t.Fatalf("edge side repaired itself: %+v", v)
				}
			})
		}
	}
}

// Story (b): a duplicated event makes the edge side create one pod too many;
// the level side recounts and does not.
func TestDuplicatedDeathCreatesOneTooManyOnEdge(t *testing.T) {
	for _, dr := range drives {
		t.Run(dr.name, func(t *testing.T) {
			w := New()
			w.DuplicateNext()
			if v := w.View(Edge); !v.DuplicateArmed {
				t.Fatal("duplicate not armed")
			}
			mustKill(t, w, "pod-2")
			dr.run(w)
			w.Advance(10 * time.Second)

			if v := w.View(Level); !v.Converged || v.Alive != 3 {
				t.Fatalf("level side %+v, want 3", v)
			}
			v := w.View(Edge)
			if v.Alive != 4 || v.Running != 4 || v.Converged {
				t.Fatalf("edge side %+v, want desired+1 = 4 alive", v)
			}
			var acts []Action
			for _, e := range v.Log {
				if e.Heard.Kind == PodDied {
					acts = append(acts, e.Actions()...)
				}
			}
			want := []Action{{ActDelete, 2}, {ActCreate, 4}, {ActDeleteGone, 2}, {ActCreate, 5}}
			if !slices.Equal(acts, want) {
				t.Fatalf("edge acted %v, want %v", acts, want)
			}
			if l := w.Mattered(); l.Row != RowTrigger || l.Reason != ReasonDuplicate {
				t.Fatalf("lesson %+v, want 反応の起点 (duplicate)", l)
			}
			quiet(t, w)
		})
	}
}

// Story (c): after a restart during a burst of kills, only the level side
// recovers.
func TestRestartDuringBurstOnlyLevelRecovers(t *testing.T) {
	restart := func(t *testing.T, w *World) {
		if err := w.Restart(); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		act       func(t *testing.T, w *World)
		edgeAlive int
	}{
		{"kill two, restart, kill one", func(t *testing.T, w *World) {
			mustKill(t, w, "pod-1", "pod-2")
			restart(t, w)
			mustKill(t, w, "pod-3")
		}, 0},
		{"spread over the restart", func(t *testing.T, w *World) {
			mustKill(t, w, "pod-1")
			w.Advance(200 * ms1)
			mustKill(t, w, "pod-2")
			restart(t, w)
			w.Advance(1500 * ms1)
			mustKill(t, w, "pod-3")
		}, 0},
		{"the first kill heard, the rest lost", func(t *testing.T, w *World) {
			mustKill(t, w, "pod-1")
			w.Advance(time.Second) // the edge side replaced pod-1 with pod-4
			mustKill(t, w, "pod-2")
			restart(t, w)
			mustKill(t, w, "pod-3")
		}, 1},
		{"kills only while down", func(t *testing.T, w *World) {
			restart(t, w)
			mustKill(t, w, "pod-1", "pod-2")
		}, 1},
	}
	for _, tt := range tests {
		for _, dr := range drives {
			t.Run(tt.name+"/"+dr.name, func(t *testing.T) {
				w := New()
				tt.act(t, w)
				if down, in := w.Restarting(); !down || in <= 0 || in > RestartTime {
					t.Fatalf("Restarting() = %v, %v", down, in)
				}
				if err := w.Restart(); err != ErrRestarting {
					t.Fatalf("a second restart: %v", err)
				}
				if got := w.View(Edge).Known; len(got) != 0 {
					t.Fatalf("the edge controller still knows %v", got)
				}
				dr.run(w)
				w.Advance(10 * time.Second)
				if down, _ := w.Restarting(); down {
					t.Fatal("still restarting")
				}
				if v := w.View(Level); !v.Converged || v.Alive != 3 {
					t.Fatalf("level side %+v, want recovered", v)
				}
				if v := w.View(Edge); v.Converged || v.Alive != tt.edgeAlive {
					t.Fatalf("edge side %+v, want %d alive and never recovered", v, tt.edgeAlive)
				}
				for _, e := range w.View(Edge).Stream {
					if e.Kind == PodDied && e.Delivered == 0 && e.Fate != Dropped {
						t.Fatalf("undelivered death not marked dropped: %+v", e)
					}
				}
				if l := w.Mattered(); l.Row != RowRecovery || l.Reason != ReasonRestart {
					t.Fatalf("lesson %+v, want 障害回復 (restart)", l)
				}
				quiet(t, w)
			})
		}
	}
}

// Story (d): reordered events make the edge side act on a stale difference;
// the level side ends right, and never deletes a pod it needs.
func TestSwappedDesiredChangesMisleadEdge(t *testing.T) {
	tests := []struct {
		name string
		from []int // desired changes after SwapNext
		// what the edge side heard first, what it did first, how low it went
		// and where it ends
		firstHeard            [2]int
		firstAction           Action
		edgeMin, edgeEnd      int
		edgeConverged         bool
		levelCreates, levelDe int
	}{
		{"3→5 then 5→4: deletes a pod it needed, ends right by luck", []int{5, 4},
			[2]int{5, 4}, Action{ActDelete, 3}, 2, 4, true, 1, 0},
		{"3→10 then 10→0: ends with 7 where 0 are declared", []int{10, 0},
			[2]int{10, 0}, Action{ActDelete, 3}, 0, 7, false, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New()
			w.SwapNext()
			mustDesired(t, w, tt.from...)
			if ev := w.View(Edge).Stream; len(ev) != 2 || ev[0].Fate != Swapped || ev[1].Fate != Swapped ||
				ev[1].ArrivesIn != DeliveryDelay || ev[0].ArrivesIn != DeliveryDelay+SwapGap {
				t.Fatalf("edge stream %+v", ev)
			}
			edgeMin := w.View(Edge).Alive
			for range 200 { // to each due time, watching the edge side dip
				d, ok := w.NextDue()
				if !ok {
					break
				}
				w.Advance(d)
				edgeMin = min(edgeMin, w.View(Edge).Alive)
			}
			v := w.View(Edge)
			var first *LogEntry
			for i, e := range v.Log {
				if e.Heard.Kind == DesiredChanged {
					first = &v.Log[i]
					break
				}
			}
			if first == nil || [2]int{first.Heard.Old, first.Heard.New} != tt.firstHeard || first.Actions()[0] != tt.firstAction {
				t.Fatalf("edge first heard %+v", first)
			}
			if edgeMin != tt.edgeMin || v.Alive != tt.edgeEnd || v.Converged != tt.edgeConverged {
				t.Fatalf("edge side went down to %d and ended %+v; want %d, %d, converged %v",
					edgeMin, v, tt.edgeMin, tt.edgeEnd, tt.edgeConverged)
			}
			lv := w.View(Level)
			if !lv.Converged || lv.Alive != tt.from[len(tt.from)-1] {
				t.Fatalf("level side %+v", lv)
			}
			creates, deletes := 0, 0
			for _, e := range lv.Log {
				for _, a := range e.Actions() {
					switch a.Kind {
					case ActCreate:
						creates++
					case ActDelete:
						deletes++
					}
				}
			}
			if creates != tt.levelCreates || deletes != tt.levelDe {
				t.Fatalf("level created %d and deleted %d, want %d and %d", creates, deletes, tt.levelCreates, tt.levelDe)
			}
			if l := w.Mattered(); l.Row != RowTrigger || l.Reason != ReasonSwap {
				t.Fatalf("lesson %+v, want 反応の起点 (swap)", l)
			}
			quiet(t, w)
		})
	}
}
