package pipeline

import (
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
	"github.com/reconcile-demo/reconcile-demo/engine/workqueue"
)

// maxFuzzOps bounds a program: long enough for any story of the demo.
const maxFuzzOps = 80

// fuzzNames includes a name the demo refuses.
var fuzzNames = [...]string{"app-1", "app-2", "app-3", "app-4"}

// apply runs one operation of a fuzz program; refused ones are fine, they
// must only change nothing (checked elsewhere).
func apply(w *World, op, arg byte) *World {
	name := fuzzNames[int(arg)%len(fuzzNames)]
	switch op % 17 {
	case 0:
		w.CreateApp(name)
	case 1:
		w.EditApp(name)
	case 2:
		w.DeleteApp(name)
	case 3:
		w.RemoveFinalizer(name)
	case 4:
		w.SetDependency(arg%2 == 1)
	case 5:
		w.SetController(arg%2 == 1)
	case 6:
		w.SetWorkers(int(arg % 3))
	case 7:
		traps := append(Traps(), "nope")
		w.SetTrap(traps[int(arg)%len(traps)], arg/16%2 == 1)
	case 8:
		s := w.Settings()
		switch arg % 7 {
		case 0:
			s.StatusFrom = []StatusFrom{StatusFromLatest, StatusFromCache, StatusFromApply}[int(arg/7)%3]
		case 1:
			s.ChildWrite = []ChildWrite{ChildGetThenBranch, ChildBlind, ChildApply}[int(arg/7)%3]
		case 2:
			s.AfterCreate = []AfterCreate{AfterCreateTrust, AfterCreateReadBack, AfterCreateSleep}[int(arg/7)%3]
		case 3:
			s.Periodic = []Periodic{PeriodicNone, PeriodicShort, PeriodicLong, "bad"}[int(arg/7)%4]
		case 4:
			s.NotReady = []NotReady{NotReadyRequeueAfter, NotReadyError, NotReadyRequeueTrue}[int(arg/7)%3]
		case 5:
			s.QueueKind = []workqueue.Kind{workqueue.Priority, workqueue.Classic, "fifo"}[int(arg/7)%3]
		case 6:
			s.SecretWatch = arg/7%2 == 1
		}
		w.SetSettings(s)
	case 9:
		w.Step()
	case 10:
		w.Advance(time.Duration(arg) * 37 * time.Millisecond)
	case 11:
		w.Advance(time.Duration(arg) * 1300 * time.Millisecond)
	case 12:
		w.Advance(time.Duration(arg) * 100 * time.Microsecond)
	case 13:
		if w.frac == 0 { // a snapshot drops the sub-millisecond remainder
			if r, err := Restore(w.Snapshot()); err == nil {
				return r
			}
		}
	case 14:
		if d, ok := w.NextDue(); ok {
			w.Advance(d)
		}
	case 15:
		w.SetStatusWrite([]StatusWrite{StatusOnChange, StatusAlways}[arg%2])
		w.SetPredicate(arg/2%2 == 1)
	case 16:
		w.EditChild(name)
	}
	return w
}

// FuzzPipeline decodes its input as a program of (opcode, argument) byte
// pairs and checks the engine's invariants after every operation, the
// snapshot round trip included, and that a world restored from a snapshot
// goes on exactly as the original.
func FuzzPipeline(f *testing.F) {
	f.Add([]byte{1, 0, 10, 30, 9, 0})                                    // edit, run, step
	f.Add([]byte{15, 0, 11, 20, 15, 3})                                  // runaway, then fixed
	f.Add([]byte{5, 0, 2, 0, 3, 0, 5, 1, 11, 5})                         // delete while off, finalizer by hand
	f.Add([]byte{0, 1, 0, 2, 6, 2, 7, 4, 11, 10, 13, 0, 11, 10})         // slow object, two workers, restore
	f.Add([]byte{4, 0, 8, 4, 9, 0, 9, 0, 9, 0, 4, 1, 11, 255})           // dependency as error
	f.Add([]byte{7, 1, 1, 0, 10, 20, 8, 2, 0, 1, 8, 7, 0, 2, 11, 10})    // conflict, read-back, sleep
	f.Add([]byte{1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 14, 0}) // a burst of edits
	f.Add([]byte{8, 12, 4, 0, 10, 20, 9, 0, 8, 13, 4, 1, 10, 30})        // classic queue, secret watch, its return
	f.Add([]byte{8, 18, 4, 0, 10, 10, 9, 0, 9, 0, 13, 0, 9, 0})          // requeue: true, restore
	f.Add([]byte{16, 0, 10, 10, 16, 0, 14, 0, 5, 0, 0, 1, 5, 1, 14, 0})  // child edits, the list at low priority
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 2*maxFuzzOps {
			prog = prog[:2*maxFuzzOps]
		}
		w := New()
		checkInvariants(t, w, nil)
		for i := 0; i+1 < len(prog); i += 2 {
			before := observe(w)
			// Every fourth operation also runs on a restored copy,
			// which must end in the same state.
			var twin *World
			if i%8 == 0 && w.frac == 0 {
				r, err := Restore(w.Snapshot())
				if err != nil {
					t.Fatalf("own snapshot refused: %v", err)
				}
				twin = apply(r, prog[i], prog[i+1])
			}
			w = apply(w, prog[i], prog[i+1])
			checkInvariants(t, w, before)
			checkSnapshotJSON(t, w)
			if twin != nil && w.frac == 0 {
				if a, b := w.Snapshot(), twin.Snapshot(); !snapshotsEqual(a, b) {
					t.Fatalf("op %d (%d,%d): the restored twin went on differently", i/2, prog[i], prog[i+1])
				}
			}
		}
	})
}

// prior is what the invariants compare an operation's result with.
type prior struct {
	objects  map[int64]apiserver.Object // by uid
	counters Counters
	rv       int64
}

func observe(w *World) *prior {
	b := &prior{objects: map[int64]apiserver.Object{}, counters: w.counters, rv: w.ResourceVersion()}
	for _, o := range w.Objects() {
		b.objects[o.UID] = o
	}
	return b
}

func snapshotsEqual(a, b Snapshot) bool {
	return equalJSON(a, b)
}

func checkInvariants(t *testing.T, w *World, b *prior) {
	t.Helper()
	checkWorkers(t, w)
	store := map[int64]apiserver.Object{}
	apps, configMaps := map[string]int64{}, 0
	for _, o := range w.Objects() {
		store[o.UID] = o
		switch o.Kind {
		case apiserver.KindApp:
			apps[o.Name] = o.UID
			if o.Deleting() && len(o.Finalizers) == 0 {
				t.Fatalf("%s deleting without finalizers is still stored", o.Name)
			}
		case apiserver.KindConfigMap:
			configMaps++
		}
	}
	for _, o := range w.Objects() {
		if o.Kind == apiserver.KindConfigMap && apps[o.Owner.Name] != o.Owner.UID {
			t.Fatalf("%s outlives its owner", o.Name)
		}
	}
	if len(apps) > MaxApps || configMaps > len(apps) {
		t.Fatalf("%d Apps, %d ConfigMaps", len(apps), configMaps)
	}
	// The cache never holds a resourceVersion newer than the store's.
	for _, o := range w.Cache() {
		if s, ok := store[o.UID]; ok && o.ResourceVersion > s.ResourceVersion || o.ResourceVersion > w.ResourceVersion() {
			t.Fatalf("cache has %s %s at %d, store at %d", o.Kind, o.Name, o.ResourceVersion, s.ResourceVersion)
		}
	}
	for _, d := range w.InFlight() {
		if d.Type == apiserver.Deleted && len(d.Object.Finalizers) > 0 {
			t.Fatalf("%s removed with finalizers %v", d.Object.Name, d.Object.Finalizers)
		}
		if d.In <= 0 || d.In > WatchDelay {
			t.Fatalf("event due in %v", d.In)
		}
	}
	if n := len(w.InFlight()); n > MaxInflight+1 {
		t.Fatalf("%d events in flight", n)
	}
	if n := w.Metrics().WorkqueueDepth; n > MaxApps {
		t.Fatalf("queue depth %d", n)
	}
	if len(w.Events()) > EventLogSize || len(w.Report()) > MaxApps || len(w.External()) > MaxApps {
		t.Fatal("a list outgrew its bound")
	}
	for i, r := range w.log.ring {
		if r.odd {
			t.Fatalf("event %+v is outside the log's vocabulary", w.log.odd[i])
		}
	}
	if d, ok := w.NextDue(); d < 0 || ok != w.ControllerOn() {
		t.Fatalf("NextDue() = %v, %v with the controller on: %v", d, ok, w.ControllerOn())
	}
	if w.ControllerOn() && len(w.Workers()) != w.Settings().Workers {
		t.Fatal("worker count differs from the settings")
	}
	if c := w.ctrl; c != nil {
		if c.queue.Kind() != w.Settings().QueueKind {
			t.Fatalf("a %s queue under queueKind %s", c.queue.Kind(), w.Settings().QueueKind)
		}
		for _, k := range w.Queue() {
			if !validPriority(k.Priority) || c.queue.Kind() == workqueue.Classic && k.Priority != 0 {
				t.Fatalf("queue key %+v on the %s queue", k, c.queue.Kind())
			}
		}
	}
	if b != nil {
		if w.ResourceVersion() < b.rv {
			t.Fatal("the store's resourceVersion went back")
		}
		for uid, old := range b.objects {
			now, ok := store[uid]
			if !ok {
				// Only an App being deleted, or one without
				// finalizers, may disappear; a ConfigMap only
				// with its owner.
				if old.Kind == apiserver.KindApp && len(old.Finalizers) > 0 && !old.Deleting() {
					t.Fatalf("%s removed with its finalizer, never marked for deletion", old.Name)
				}
				continue
			}
			switch {
			case now.ResourceVersion < old.ResourceVersion:
				t.Fatalf("%s %s resourceVersion went back", now.Kind, now.Name)
			case now.ResourceVersion == old.ResourceVersion && !deepEqual(now, old):
				t.Fatalf("%s %s changed without a new resourceVersion", now.Kind, now.Name)
			}
			specOrDeletion := now.Spec != old.Spec || now.Deleting() != old.Deleting()
			if now.Generation != old.Generation && !specOrDeletion || now.Generation < old.Generation {
				t.Fatalf("%s generation %d → %d without a spec change", now.Name, old.Generation, now.Generation)
			}
			if now.Kind == apiserver.KindApp && now.Spec != old.Spec && now.Generation == old.Generation {
				t.Fatalf("%s spec changed, generation did not", now.Name)
			}
		}
		if !countersGrew(b.counters, w.counters) {
			t.Fatalf("a counter went back: %+v → %+v", b.counters, w.counters)
		}
	}
	roundTrip(t, w)
}
