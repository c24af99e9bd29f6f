package apiserver

import (
	"reflect"
	"testing"
	"time"
)

// FuzzStore runs random writes, checking after each one the store's rules:
// a no-op changes nothing and makes no event; a change takes exactly the
// next resourceVersion and makes exactly one event; generation moves only
// with the spec or the start of deletion; an object leaves only when it is
// deleted without finalizers or loses its last one while being deleted; and
// the snapshot round-trips.
func FuzzStore(f *testing.F) {
	f.Add([]byte{0, 1, 3, 1, 2, 0, 6, 0, 4, 0})
	f.Add([]byte{0, 0, 1, 0, 5, 0, 7, 0, 7, 1})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 200 {
			prog = prog[:200]
		}
		s := NewStore()
		names := []string{"app-1", "app-2"}
		now := time.Duration(0)
		for i := 0; i+1 < len(prog); i += 2 {
			op, arg := prog[i]%8, prog[i+1]
			name := names[int(arg)%len(names)]
			cur, had := s.Get(KindApp, name)
			orig := cur.DeepCopy()
			stale := arg&0x80 != 0 // write from an old resourceVersion
			if stale && cur.ResourceVersion > 1 {
				cur.ResourceVersion--
			}
			rv := s.ResourceVersion()
			now += time.Millisecond
			var w Written
			var err error
			switch op {
			case 0:
				w, err = s.Create(app(name, LogLevels[int(arg)%4]))
			case 1:
				cur.Spec.LogLevel = LogLevels[int(arg/2)%4]
				w, err = s.Update(cur)
			case 2:
				w, err = s.Update(cur.WithFinalizer(fin))
			case 3:
				w, err = s.Update(cur.WithoutFinalizer(fin))
			case 4:
				cur.Status.ObservedGeneration = int64(arg % 3)
				w, err = s.UpdateStatus(cur)
			case 5:
				w, err = s.ApplyStatus(KindApp, name, AppStatus{ObservedGeneration: int64(arg % 2)})
			case 6:
				w, err = s.Delete(KindApp, name, now)
			case 7:
				w, err = s.Apply(app(name, LogLevels[int(arg/2)%4]))
			}
			evs := s.TakeEvents()
			after, has := s.Get(KindApp, name)
			switch {
			case err != nil:
				if s.ResourceVersion() != rv || len(evs) != 0 || had != has || had && !reflect.DeepEqual(after, orig) {
					t.Fatalf("op %d: a failed write changed the store", op)
				}
				if stale && (op >= 1 && op <= 4) && had && Reason(err) != "Conflict" && Reason(err) != "Invalid" {
					t.Fatalf("stale write: %v, want Conflict", err)
				}
			case !w.Changed:
				if s.ResourceVersion() != rv || len(evs) != 0 || !had || !reflect.DeepEqual(after, w.Object) {
					t.Fatalf("op %d: a no-op changed the store", op)
				}
			default:
				if s.ResourceVersion() != rv+1 || w.Object.ResourceVersion != rv+1 || len(evs) != 1 {
					t.Fatalf("op %d: a change took rv %d (store %d → %d) with %d events", op,
						w.Object.ResourceVersion, rv, s.ResourceVersion(), len(evs))
				}
				if w.Removed {
					if has || evs[0].Type != Deleted || len(w.Object.Finalizers) > 0 ||
						had && len(orig.Finalizers) > 0 && !orig.Deleting() && op != 3 {
						t.Fatalf("op %d: removed %+v (was %+v)", op, w.Object, cur)
					}
					break
				}
				if !had {
					if w.Object.Generation != 1 || evs[0].Type != Added {
						t.Fatalf("create: %+v", w.Object)
					}
					break
				}
				if !reflect.DeepEqual(after, w.Object) || evs[0].Type != Modified {
					t.Fatalf("op %d: stored %+v, returned %+v", op, after, w.Object)
				}
			}
			if had && has && err == nil {
				prev := orig
				specOrDeletion := prev.Spec != after.Spec || prev.Deleting() != after.Deleting()
				if after.Generation != prev.Generation && !specOrDeletion {
					t.Fatalf("op %d: generation %d → %d without a spec change", op, prev.Generation, after.Generation)
				}
				if after.Generation < prev.Generation {
					t.Fatal("generation went back")
				}
			}
			snap := s.Snapshot()
			r, err := Restore(snap, now)
			if err != nil {
				t.Fatalf("own snapshot refused: %v", err)
			}
			if !reflect.DeepEqual(r.Snapshot(), snap) {
				t.Fatal("snapshot round trip")
			}
		}
	})
}
