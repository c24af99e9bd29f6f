package pipeline

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// scenes are states worth a snapshot: every phase of a reconcile, events on
// their way, waiting keys, failures, an App Terminating, the controller off.
func scenes(t *testing.T) map[string]*World {
	t.Helper()
	out := map[string]*World{"start": New()}
	add := func(name string, f func(w *World)) {
		w := New()
		f(w)
		out[name] = w
	}
	add("edit in flight", func(w *World) { mustNil(t, w.EditApp("app-1")) })
	add("act due", func(w *World) { mustNil(t, w.EditApp("app-1")); w.Advance(WatchDelay + 50*ms1) })
	add("report due", func(w *World) { mustNil(t, w.EditApp("app-1")); w.Advance(WatchDelay + ActDelay + 50*ms1) })
	add("hung call", func(w *World) {
		mustNil(t, w.SetTrap(TrapSlowObject, true))
		mustNil(t, w.CreateApp("app-2"))
		w.Advance(time.Second)
	})
	add("sleeping", func(w *World) {
		withSettings(t, w, func(s *Settings) { s.AfterCreate = AfterCreateSleep; s.Workers = 2 })
		mustNil(t, w.CreateApp("app-3"))
		w.Advance(WatchDelay + ActDelay + 100*ms1)
	})
	add("backoff", func(w *World) {
		mustNil(t, w.SetTrap(TrapAlreadyExists, true))
		w.Advance(20 * time.Second)
	})
	add("rhythm", func(w *World) {
		mustNil(t, w.SetDependency(false))
		w.Advance(WatchDelay)
		w.Step()
		w.Advance(time.Second)
	})
	add("terminating", func(w *World) { w.SetController(false); mustNil(t, w.DeleteApp("app-1")) })
	add("deleting", func(w *World) { mustNil(t, w.DeleteApp("app-1")); w.Advance(WatchDelay + 100*ms1) })
	add("cleaned up", func(w *World) { mustNil(t, w.DeleteApp("app-1")); w.Advance(5 * time.Second) })
	add("runaway, two workers", func(w *World) {
		mustNil(t, w.SetTrap(TrapRunaway, true))
		mustNil(t, w.SetWorkers(2))
		mustNil(t, w.CreateApp("app-2"))
		mustNil(t, w.CreateApp("app-3"))
		w.Advance(7777 * ms1)
	})
	add("orphan record", func(w *World) {
		w.SetController(false)
		mustNil(t, w.DeleteApp("app-1"))
		mustNil(t, w.RemoveFinalizer("app-1"))
	})
	add("backlog", func(w *World) {
		for w.EditApp("app-1") == nil {
		}
	})
	add("classic backoff", func(w *World) {
		mustNil(t, w.SetQueueKind(workqueue.Classic))
		mustNil(t, w.SetTrap(TrapAlreadyExists, true))
		w.Advance(20 * time.Second)
	})
	add("classic, ready and waiting", func(w *World) {
		mustNil(t, w.SetQueueKind(workqueue.Classic))
		w.Advance(time.Second)
		mustNil(t, w.SetDependency(false))
		w.Advance(WatchDelay)
		w.Step()
		w.Advance(time.Second)
		mustNil(t, w.CreateApp("app-2"))
		mustNil(t, w.EditApp("app-1"))
		w.Advance(WatchDelay)
	})
	add("listed at low priority", func(w *World) {
		w.SetController(false)
		mustNil(t, w.CreateApp("app-2"))
		mustNil(t, w.CreateApp("app-3"))
		w.SetController(true)
		mustNil(t, w.EditApp("app-3"))
		w.Advance(WatchDelay + 50*ms1)
	})
	add("requeue true", func(w *World) {
		mustNil(t, w.SetNotReady(NotReadyRequeueTrue))
		mustNil(t, w.SetSecretWatch(true))
		mustNil(t, w.SetDependency(false))
		w.Advance(3 * time.Second)
	})
	add("child edited", func(w *World) {
		mustNil(t, w.EditChild("app-1"))
		w.Advance(WatchDelay + ActDelay + 50*ms1)
	})
	return out
}

func TestSnapshotRoundTripAndRestoredWorldsGoOnAlike(t *testing.T) {
	for name, w := range scenes(t) {
		t.Run(name, func(t *testing.T) {
			r := roundTrip(t, w)
			for _, x := range []*World{w, r} {
				x.EditApp("app-1")
				x.CreateApp("app-2")
				x.Advance(3 * time.Second)
				x.DeleteApp("app-2")
				x.Advance(10 * time.Second)
			}
			if !reflect.DeepEqual(w.Snapshot(), r.Snapshot()) {
				t.Fatal("a restored world went on differently")
			}
			if e := r.Events(); len(e) == 0 {
				t.Fatal("no events after restore")
			}
		})
	}
}

func TestSnapshotIsSmall(t *testing.T) {
	for name, w := range scenes(t) {
		b, err := json.Marshal(w.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 12<<10 {
			t.Fatalf("%s: snapshot of %d bytes", name, len(b))
		}
		t.Logf("%-22s %5d bytes", name, len(b))
	}
}

func TestRestoreLogsRestored(t *testing.T) {
	r, err := Restore(New().Snapshot())
	mustNil(t, err)
	if e := r.Events(); len(e) != 1 || e[0].Kind != EventRestored {
		t.Fatalf("events %+v", e)
	}
}

// TestRestoreRefusesForgedSnapshots mutates real snapshots into ones the
// package could not have written.
func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	type mutation func(s *Snapshot)
	app1 := func(s *Snapshot) *apiserver.ObjectState {
		for i := range s.Store.Objects {
			if s.Store.Objects[i].Kind == apiserver.KindApp {
				return &s.Store.Objects[i]
			}
		}
		panic("no App")
	}
	ctrl := func(s *Snapshot) *ControllerState { return s.Controller }
	cases := map[string]struct {
		scene string
		m     mutation
	}{
		"version":              {"start", func(s *Snapshot) { s.V = 2 }},
		"negative time":        {"start", func(s *Snapshot) { s.Now = -1 }},
		"time past the bound":  {"start", func(s *Snapshot) { s.Now = ms(MaxClock) + 1 }},
		"bad settings":         {"start", func(s *Snapshot) { s.Settings.Workers = 0 }},
		"bad enum":             {"start", func(s *Snapshot) { s.Settings.Periodic = "often" }},
		"store rv":             {"start", func(s *Snapshot) { s.Store.RV = -5 }},
		"fourth App":           {"start", func(s *Snapshot) { app1(s).Name = "app-4" }},
		"foreign finalizer":    {"start", func(s *Snapshot) { app1(s).Finalizers = []string{"x.io/y"} }},
		"foreign condition":    {"start", func(s *Snapshot) { app1(s).Status.Conditions[0].Reason = "Happy" }},
		"observed ahead":       {"start", func(s *Snapshot) { app1(s).Status.ObservedGeneration = 2 }},
		"orphan child":         {"start", func(s *Snapshot) { s.Store.Objects = s.Store.Objects[1:] }},
		"second secret":        {"start", func(s *Snapshot) { s.Store.Objects[2].Name = "db" }},
		"external unknown":     {"start", func(s *Snapshot) { s.External[0].Name = "app-9" }},
		"external uid":         {"start", func(s *Snapshot) { s.External[0].UID = 1 << 40 }},
		"external order":       {"runaway, two workers", func(s *Snapshot) { s.External[0], s.External[1] = s.External[1], s.External[0] }},
		"report order":         {"runaway, two workers", func(s *Snapshot) { s.Report[0], s.Report[1] = s.Report[1], s.Report[0] }},
		"report result":        {"start", func(s *Snapshot) { s.Report[0].Result = "requeue_after" }},
		"report from future":   {"start", func(s *Snapshot) { s.Report[0].At = s.Now + 1 }},
		"report action":        {"start", func(s *Snapshot) { s.Report[0].Action = "destroy" }},
		"report reconciles":    {"start", func(s *Snapshot) { s.Report[0].Reconciles = 0 }},
		"report observed":      {"start", func(s *Snapshot) { s.Report[0].Observed.Child = "gone" }},
		"report worker":        {"start", func(s *Snapshot) { s.Report[0].Worker = 3 }},
		"negative counter":     {"start", func(s *Snapshot) { s.Counters.Writes = -1 }},
		"huge counter":         {"start", func(s *Snapshot) { s.Counters.ExternalCalls = MaxCounter + 1 }},
		"cache ahead of store": {"start", func(s *Snapshot) { ctrl(s).Cache[0].RV = s.Store.RV + 1 }},
		"cache differs":        {"start", func(s *Snapshot) { ctrl(s).Cache[0].Spec.LogLevel = "warn" }},
		"cache missing object": {"start", func(s *Snapshot) { ctrl(s).Cache = ctrl(s).Cache[1:] }},
		"cache unsorted": {"start", func(s *Snapshot) {
			c := ctrl(s).Cache
			c[0], c[1] = c[1], c[0]
		}},
		"event dropped":        {"edit in flight", func(s *Snapshot) { ctrl(s).InFlight = nil }},
		"event late":           {"edit in flight", func(s *Snapshot) { ctrl(s).InFlight[0].In = ms(WatchDelay) + 1 }},
		"event due now":        {"edit in flight", func(s *Snapshot) { ctrl(s).InFlight[0].In = 0 }},
		"event type":           {"edit in flight", func(s *Snapshot) { ctrl(s).InFlight[0].Type = "BOOKMARK" }},
		"too many events":      {"backlog", func(s *Snapshot) { c := ctrl(s); c.InFlight = append(c.InFlight, c.InFlight[:2]...) }},
		"events out of order":  {"backlog", func(s *Snapshot) { c := ctrl(s); c.InFlight[0], c.InFlight[1] = c.InFlight[1], c.InFlight[0] }},
		"resync now":           {"start", func(s *Snapshot) { ctrl(s).ResyncIn = 0 }},
		"resync too far":       {"start", func(s *Snapshot) { ctrl(s).ResyncIn = ms(ResyncPeriod) + 1 }},
		"queue foreign key":    {"start", func(s *Snapshot) { ctrl(s).Queue.Ready = []string{"kube-system/x"} }},
		"queue bad":            {"start", func(s *Snapshot) { ctrl(s).Queue.BucketMs = 1 << 40 }},
		"idle beside ready":    {"start", func(s *Snapshot) { ctrl(s).Queue.Ready = []string{"default/app-1"} }},
		"processing no worker": {"act due", func(s *Snapshot) { ctrl(s).Runs = nil }},
		"worker not processing": {"act due", func(s *Snapshot) {
			ctrl(s).Queue.Processing = nil
		}},
		"worker out of range": {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Worker = 2 }},
		"run unknown phase":   {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Phase = "think" }},
		"run due too far":     {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Due = ms(ActDelay) + 1 }},
		"run due now":         {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Due = 0 }},
		"run started later":   {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Started = s.Now + 1 }},
		"run impossible phase": {"act due", func(s *Snapshot) {
			ctrl(s).Runs[0].Phase = string(phaseExternal)
		}},
		"run other App":    {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Obj.Name = "app-2" }},
		"run bad action":   {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Action = "explode" }},
		"run bad status":   {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Status = "maybe" }},
		"run bad observed": {"act due", func(s *Snapshot) { ctrl(s).Runs[0].Observed.Generation = 0 }},
		"run bad child": {"act due", func(s *Snapshot) {
			c := *ctrl(s).Runs[0].Child
			c.Name = "app-2-config"
			ctrl(s).Runs[0].Child = &c
		}},
		"run twice": {"runaway, two workers", func(s *Snapshot) {
			c := ctrl(s)
			c.Runs = append(c.Runs, c.Runs[0])
		}},
		"controller off with runs": {"terminating", func(s *Snapshot) {
			s.Controller = &ControllerState{}
		}},
		"queue kind unknown":      {"start", func(s *Snapshot) { s.Settings.QueueKind = "fifo" }},
		"queue of the other kind": {"start", func(s *Snapshot) { s.Settings.QueueKind = workqueue.Classic }},
		"classic queue with items": {"classic backoff", func(s *Snapshot) {
			ctrl(s).Queue.Items = []workqueue.ItemState{{Key: "default/app-1"}}
		}},
		"queue priority not ours": {"listed at low priority", func(s *Snapshot) {
			for i := range ctrl(s).Queue.Items {
				ctrl(s).Queue.Items[i].Priority = 5
			}
		}},
		"run priority not ours": {"listed at low priority", func(s *Snapshot) { ctrl(s).Runs[0].Priority = 3 }},
		"run priority on classic": {"classic, ready and waiting", func(s *Snapshot) {
			ctrl(s).Runs[0].Priority = workqueue.LowPriority
		}},
		"requeue row with a reason": {"requeue true", func(s *Snapshot) { s.Report[0].Reason = ReasonTimeout }},
		"requeue row not backoff":   {"requeue true", func(s *Snapshot) { s.Report[0].Requeue = string(RequeueAfter) }},
	}
	sc := scenes(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, ok := sc[tc.scene]
			if !ok {
				t.Fatalf("no scene %q", tc.scene)
			}
			// Mutate a deep copy, through JSON.
			b, _ := json.Marshal(w.Snapshot())
			var s Snapshot
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if _, err := Restore(s); err != nil {
				t.Fatalf("the unmutated scene does not restore: %v", err)
			}
			tc.m(&s)
			if r, err := Restore(s); err == nil || r != nil {
				mb, _ := json.Marshal(s)
				t.Fatalf("Restore accepted:\n%s", mb)
			} else if !strings.HasPrefix(err.Error(), "restore pipeline: ") {
				t.Fatalf("error %q", err)
			}
		})
	}
}

// TestNewScenesHoldWhatTheirNamesSay, so that the forgeries above mutate
// what they mean to.
func TestNewScenesHoldWhatTheirNamesSay(t *testing.T) {
	sc := scenes(t)
	if s := sc["classic, ready and waiting"].Snapshot(); s.Settings.QueueKind != workqueue.Classic ||
		len(s.Controller.Queue.Ready) != 1 || len(s.Controller.Queue.Waiting) != 1 ||
		s.Controller.Queue.Ready[0] != s.Controller.Queue.Waiting[0].Key {
		t.Fatalf("classic, ready and waiting: %+v", s.Controller.Queue)
	}
	if s := sc["listed at low priority"].Snapshot(); s.Controller.Runs[0].Priority != workqueue.LowPriority ||
		!reflect.DeepEqual(s.Controller.Queue.Ready, []string{"default/app-3", "default/app-2"}) {
		t.Fatalf("listed at low priority: %+v %+v", s.Controller.Runs, s.Controller.Queue)
	}
	if r := sc["requeue true"].Report()[0]; r.Result != "requeue" || r.Requeue != RequeueBackoff {
		t.Fatalf("requeue true: %+v", r)
	}
	if r := sc["child edited"].Workers()[0]; !r.Busy || r.Observed.Child != ChildDiffers {
		t.Fatalf("child edited: %+v", r)
	}
}

// checkSnapshotJSON fails t unless the hand-written snapshot is the bytes
// json.Marshal writes of Snapshot().
func checkSnapshotJSON(t *testing.T, w *World) {
	t.Helper()
	want, err := json.Marshal(w.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if got := w.AppendSnapshotJSON(nil); string(got) != string(want) {
		t.Fatalf("AppendSnapshotJSON:\n%s\njson.Marshal:\n%s", got, want)
	}
}

// TestAppendSnapshotJSONAsMarshal: every scene, and every scene a few
// seconds on, is written by hand as json.Marshal writes its snapshot.
func TestAppendSnapshotJSONAsMarshal(t *testing.T) {
	for name, w := range scenes(t) {
		t.Run(name, func(t *testing.T) {
			checkSnapshotJSON(t, w)
			for range 8 {
				w.Advance(700 * time.Millisecond)
				checkSnapshotJSON(t, w)
			}
		})
	}
}

// TestSettingsAndCountersJSONHaveEveryField: a field added to Settings or
// Counters and left out of their appendJSON fails here, whether or not a
// scene sets it.
func TestSettingsAndCountersJSONHaveEveryField(t *testing.T) {
	check := func(v any, got []byte) {
		t.Helper()
		if want, _ := json.Marshal(v); string(got) != string(want) {
			t.Errorf("%T: appendJSON\n%s\njson.Marshal\n%s", v, got, want)
		}
	}
	var s Settings
	var c Counters
	check(s, s.appendJSON(nil))
	check(c, c.appendJSON(nil))
	fill(reflect.ValueOf(&s).Elem())
	fill(reflect.ValueOf(&c).Elem())
	check(s, s.appendJSON(nil))
	check(c, c.appendJSON(nil))
}

// fill sets every field of struct v to a value other than its zero, each
// field's its own (a string field holds its name).
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.String:
			f.SetString(v.Type().Field(i).Name)
		default:
			panic("fill: a field of kind " + f.Kind().String())
		}
	}
}
