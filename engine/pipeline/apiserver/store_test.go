package apiserver

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

const fin = "demo.example/cleanup"

func app(name, level string) Object {
	return Object{Kind: KindApp, Name: name, Spec: AppSpec{LogLevel: level}}
}

// must returns a function that fails the test on a write's error and
// returns the written object: must(t)(s.Create(o)).
func must(t *testing.T) func(Written, error) Object {
	return func(w Written, err error) Object {
		t.Helper()
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		return w.Object
	}
}

func mustGet(t *testing.T, s *Store, kind, name string) Object {
	t.Helper()
	o, ok := s.Get(kind, name)
	if !ok {
		t.Fatalf("%s %s not found", kind, name)
	}
	return o
}

func eventTypes(evs []WatchEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type)+" "+e.Object.Kind+"/"+e.Object.Name)
	}
	return out
}

func TestCreateSetsVersionsAndDropsStatus(t *testing.T) {
	s := NewStore()
	must(t)(s.Create(Object{Kind: KindSecret, Name: "app-db"}))
	a := app("app-1", "info")
	a.Status.ObservedGeneration = 9
	a.Data.LogLevel = "pruned"
	a.DeletionTimestamp = Timestamp{Set: true, At: time.Second}
	got := must(t)(s.Create(a))
	want := Object{Kind: KindApp, Name: "app-1", UID: 2, ResourceVersion: 2, Generation: 1, Spec: AppSpec{LogLevel: "info"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Create = %+v\nwant %+v", got, want)
	}
	cm := must(t)(s.Create(Object{Kind: KindConfigMap, Name: "app-1-config", Data: ConfigData{LogLevel: "info"},
		Owner: OwnerRef{Kind: KindApp, Name: "app-1", UID: 2}}))
	if cm.Generation != 0 || cm.ResourceVersion != 3 {
		t.Fatalf("ConfigMap generation %d rv %d, want 0 and 3", cm.Generation, cm.ResourceVersion)
	}
	if got := eventTypes(s.TakeEvents()); !reflect.DeepEqual(got, []string{"ADDED Secret/app-db", "ADDED App/app-1", "ADDED ConfigMap/app-1-config"}) {
		t.Fatalf("events %v", got)
	}
	if len(s.TakeEvents()) != 0 {
		t.Fatal("TakeEvents returned the same events twice")
	}
}

func TestCreateOfAnExistingNameIsAlreadyExists(t *testing.T) {
	s := NewStore()
	must(t)(s.Create(app("app-1", "info").WithFinalizer(fin)))
	must(t)(s.Delete(KindApp, "app-1", time.Second)) // Terminating: still exists
	s.TakeEvents()
	_, err := s.Create(app("app-1", "debug"))
	if !errors.Is(err, ErrAlreadyExists) || Reason(err) != "AlreadyExists" {
		t.Fatalf("Create of a terminating name: %v", err)
	}
	if s.ResourceVersion() != 2 || len(s.TakeEvents()) != 0 {
		t.Fatal("a refused create changed the store")
	}
}

// TestNoopWriteKeepsResourceVersion is chapter 001's proof of idempotence:
// writing what is already there changes nothing.
func TestNoopWriteKeepsResourceVersion(t *testing.T) {
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info").WithFinalizer(fin)))
	a.Status = AppStatus{ObservedGeneration: 1, Conditions: []Condition{{Type: "Ready", Status: "True", Reason: "Reconciled"}}}
	a = must(t)(s.UpdateStatus(a))
	cm := must(t)(s.Create(Object{Kind: KindConfigMap, Name: "app-1-config", Data: ConfigData{LogLevel: "info"}}))
	s.TakeEvents()
	rv := s.ResourceVersion()
	writes := map[string]func() (Written, error){
		"update":       func() (Written, error) { return s.Update(a) },
		"update child": func() (Written, error) { return s.Update(cm) },
		"update status": func() (Written, error) {
			b := a.DeepCopy()
			b.Status.Conditions = append([]Condition(nil), a.Status.Conditions...)
			return s.UpdateStatus(b)
		},
		"apply":        func() (Written, error) { return s.Apply(cm) },
		"apply status": func() (Written, error) { return s.ApplyStatus(KindApp, "app-1", a.Status) },
		"apply spec":   func() (Written, error) { return s.Apply(app("app-1", "info")) },
	}
	for name, write := range writes {
		w, err := write()
		if err != nil || w.Changed || w.Removed {
			t.Fatalf("%s: %+v, %v; want a no-op", name, w, err)
		}
		if s.ResourceVersion() != rv || len(s.TakeEvents()) != 0 {
			t.Fatalf("%s: a no-op write moved the resourceVersion or made an event", name)
		}
	}
	if got := mustGet(t, s, KindConfigMap, "app-1-config").ResourceVersion; got != cm.ResourceVersion {
		t.Fatalf("child resourceVersion %d, want %d", got, cm.ResourceVersion)
	}
}

func TestGenerationOnlyOnSpec(t *testing.T) {
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info")))
	steps := []struct {
		name    string
		write   func(Object) (Written, error)
		wantGen int64
	}{
		{"add a finalizer", func(o Object) (Written, error) { return s.Update(o.WithFinalizer(fin)) }, 1},
		{"write status", func(o Object) (Written, error) {
			o.Status.ObservedGeneration = 1
			return s.UpdateStatus(o)
		}, 1},
		{"edit spec", func(o Object) (Written, error) {
			o.Spec.LogLevel = "debug"
			return s.Update(o)
		}, 2},
		{"apply status", func(o Object) (Written, error) {
			return s.ApplyStatus(KindApp, "app-1", AppStatus{ObservedGeneration: 2})
		}, 2},
		{"apply spec", func(o Object) (Written, error) { return s.Apply(app("app-1", "warn")) }, 3},
		{"delete (finalizer left)", func(o Object) (Written, error) { return s.Delete(KindApp, "app-1", time.Second) }, 4},
		{"delete again", func(o Object) (Written, error) { return s.Delete(KindApp, "app-1", 2*time.Second) }, 4},
	}
	for _, st := range steps {
		before := a.ResourceVersion
		a = must(t)(st.write(a))
		if a.Generation != st.wantGen {
			t.Fatalf("%s: generation %d, want %d", st.name, a.Generation, st.wantGen)
		}
		if a.ResourceVersion <= before && st.name != "delete again" {
			t.Fatalf("%s: resourceVersion %d, not after %d", st.name, a.ResourceVersion, before)
		}
	}
	if !a.Deleting() || a.DeletionTimestamp.At != time.Second {
		t.Fatalf("deletionTimestamp %+v, want set at 1s (a second delete does not move it)", a.DeletionTimestamp)
	}
}

func TestConflictOnStaleWrite(t *testing.T) {
	s := NewStore()
	stale := must(t)(s.Create(app("app-1", "info")))
	fresh := stale
	fresh.Spec.LogLevel = "debug"
	must(t)(s.Update(fresh))
	s.TakeEvents()
	rv := s.ResourceVersion()
	stale.Status.ObservedGeneration = 1
	for name, write := range map[string]func() (Written, error){
		"update":        func() (Written, error) { return s.Update(stale.WithFinalizer(fin)) },
		"update status": func() (Written, error) { return s.UpdateStatus(stale) },
	} {
		_, err := write()
		if !errors.Is(err, ErrConflict) || Reason(err) != "Conflict" {
			t.Fatalf("%s with a stale resourceVersion: %v, want Conflict", name, err)
		}
	}
	// Even a write that would change nothing is a conflict when stale.
	if _, err := s.Update(stale); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale no-op update: %v, want Conflict", err)
	}
	if s.ResourceVersion() != rv || len(s.TakeEvents()) != 0 {
		t.Fatal("a conflicting write changed the store")
	}
	// Server-side apply carries no resourceVersion: it never conflicts.
	if _, err := s.ApplyStatus(KindApp, "app-1", stale.Status); err != nil {
		t.Fatalf("apply status: %v", err)
	}
}

func TestStatusIsASubresource(t *testing.T) {
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info")))
	b := a
	b.Status.ObservedGeneration = 1
	b = must(t)(s.Update(b)) // status ignored: a no-op
	if b.Status.ObservedGeneration != 0 || b.ResourceVersion != a.ResourceVersion {
		t.Fatalf("Update wrote status: %+v", b)
	}
	c := b
	c.Spec.LogLevel = "debug"
	c.Status.ObservedGeneration = 1
	c = must(t)(s.UpdateStatus(c)) // spec ignored
	if c.Spec.LogLevel != "info" || c.Status.ObservedGeneration != 1 || c.Generation != 1 {
		t.Fatalf("UpdateStatus: %+v", c)
	}
	if _, err := s.UpdateStatus(Object{Kind: KindConfigMap, Name: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("UpdateStatus of a ConfigMap: %v", err)
	}
	if _, err := s.ApplyStatus(KindApp, "missing", AppStatus{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ApplyStatus of a missing App: %v", err)
	}
}

func TestFinalizersHoldDeletion(t *testing.T) {
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info").WithFinalizer(fin)))
	s.TakeEvents()
	w, err := s.Delete(KindApp, "app-1", 3*time.Second)
	if err != nil || w.Removed || !w.Object.Deleting() {
		t.Fatalf("Delete with a finalizer: %+v, %v; want deletionTimestamp only", w, err)
	}
	a = mustGet(t, s, KindApp, "app-1")
	if _, err := s.Update(a.WithFinalizer("other.example/x")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("adding a finalizer while deleting: %v, want Invalid", err)
	}
	a.Spec.LogLevel = "warn" // edits still allowed while terminating
	a = must(t)(s.Update(a))
	w, err = s.Update(a.WithoutFinalizer(fin))
	if err != nil || !w.Removed {
		t.Fatalf("removing the last finalizer: %+v, %v; want removed", w, err)
	}
	if _, ok := s.Get(KindApp, "app-1"); ok {
		t.Fatal("object still stored")
	}
	got := eventTypes(s.TakeEvents())
	if want := []string{"MODIFIED App/app-1", "MODIFIED App/app-1", "DELETED App/app-1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if w.Object.ResourceVersion != s.ResourceVersion() {
		t.Fatal("the removal did not take a resourceVersion")
	}
	if _, err := s.Delete(KindApp, "app-1", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete of a gone object: %v", err)
	}
}

func TestDeleteWithoutFinalizersRemoves(t *testing.T) {
	s := NewStore()
	must(t)(s.Create(Object{Kind: KindSecret, Name: "app-db"}))
	s.TakeEvents()
	w, err := s.Delete(KindSecret, "app-db", time.Second)
	if err != nil || !w.Removed || !w.Changed || w.Object.ResourceVersion != 2 {
		t.Fatalf("Delete: %+v, %v", w, err)
	}
	if ev := s.TakeEvents(); len(ev) != 1 || ev[0].Type != Deleted {
		t.Fatalf("events %+v", ev)
	}
}

func TestApplyCreatesAndNeverFailsAlreadyExists(t *testing.T) {
	s := NewStore()
	cm := Object{Kind: KindConfigMap, Name: "app-1-config", Data: ConfigData{LogLevel: "info"}}
	w := must(t)(s.Apply(cm))
	if w.ResourceVersion != 1 {
		t.Fatalf("Apply of an absent object did not create it: %+v", w)
	}
	cm.Data.LogLevel = "debug"
	cm.ResourceVersion = 99 // ignored: apply carries no precondition
	if w := must(t)(s.Apply(cm)); w.Data.LogLevel != "debug" || w.ResourceVersion != 2 {
		t.Fatalf("Apply over: %+v", w)
	}
}

func TestValidation(t *testing.T) {
	cases := map[string]Object{
		"unknown kind":       {Kind: "Pod", Name: "x"},
		"empty name":         {Kind: KindSecret},
		"upper-case name":    {Kind: KindSecret, Name: "App"},
		"dash first":         {Kind: KindSecret, Name: "-a"},
		"long name":          {Kind: KindSecret, Name: string(make([]byte, 64))},
		"bad log level":      app("app-1", "loud"),
		"bad finalizer":      app("app-1", "info").WithFinalizer("nodomain"),
		"bad owner":          {Kind: KindConfigMap, Name: "c", Owner: OwnerRef{Kind: "Pod", Name: "p", UID: 1}},
		"bad data":           {Kind: KindConfigMap, Name: "c", Data: ConfigData{LogLevel: "NOPE"}},
		"too many finalizer": {Kind: KindSecret, Name: "s", Finalizers: []string{"a.b/c", "a.b/d", "a.b/e", "a.b/f", "a.b/g"}},
		"twice finalizer":    {Kind: KindSecret, Name: "s", Finalizers: []string{"a.b/c", "a.b/c"}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			s := NewStore()
			if _, err := s.Create(o); !errors.Is(err, ErrInvalid) || Reason(err) != "Invalid" {
				t.Fatalf("Create(%+v) = %v, want Invalid", o, err)
			}
			if s.ResourceVersion() != 0 {
				t.Fatal("an invalid create changed the store")
			}
		})
	}
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info")))
	for name, st := range map[string]AppStatus{
		"condition status": {Conditions: []Condition{{Type: "Ready", Status: "Maybe", Reason: "X"}}},
		"condition twice":  {Conditions: []Condition{{Type: "Ready", Status: "True", Reason: "X"}, {Type: "Ready", Status: "True", Reason: "X"}}},
		"empty reason":     {Conditions: []Condition{{Type: "Ready", Status: "True"}}},
		"negative obsgen":  {ObservedGeneration: -1},
		"unset time":       {LastReconcileTime: Timestamp{At: time.Second}},
	} {
		b := a
		b.Status = st
		if _, err := s.UpdateStatus(b); !errors.Is(err, ErrInvalid) {
			t.Fatalf("status %s accepted: %v", name, err)
		}
	}
	if Reason(errors.New("other")) != "" || Reason(nil) != "" {
		t.Fatal("Reason of a foreign error")
	}
}

func TestStoreIsBounded(t *testing.T) {
	s := NewStore()
	for i := range MaxObjects {
		must(t)(s.Create(Object{Kind: KindSecret, Name: "s" + string(rune('a'+i%26)) + string(rune('a'+i/26))}))
	}
	if _, err := s.Create(Object{Kind: KindSecret, Name: "one-more"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("object %d: %v", MaxObjects+1, err)
	}
}

func TestReadsAreCopies(t *testing.T) {
	s := NewStore()
	a := must(t)(s.Create(app("app-1", "info").WithFinalizer(fin)))
	a.Finalizers[0] = "changed.example/x"
	l := s.List()
	l[0].Finalizers[0] = "changed.example/y"
	if got := mustGet(t, s, KindApp, "app-1"); got.Finalizers[0] != fin {
		t.Fatalf("a caller changed the stored object: %v", got.Finalizers)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := NewStore()
	must(t)(s.Create(Object{Kind: KindSecret, Name: "app-db"}))
	a := must(t)(s.Create(app("app-1", "info").WithFinalizer(fin)))
	a.Status = AppStatus{ObservedGeneration: 1, LastReconcileTime: Timestamp{Set: true, At: 1500 * time.Millisecond},
		Conditions: []Condition{{Type: "Ready", Status: "True", Reason: "Reconciled", LastTransitionTime: time.Second}}}
	must(t)(s.UpdateStatus(a))
	must(t)(s.Create(Object{Kind: KindConfigMap, Name: "app-1-config", Data: ConfigData{LogLevel: "info"},
		Owner: OwnerRef{Kind: KindApp, Name: "app-1", UID: a.UID}}))
	must(t)(s.Delete(KindApp, "app-1", 2*time.Second))
	snap := s.Snapshot()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r, err := Restore(back, 2*time.Second)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if !reflect.DeepEqual(r.List(), s.List()) || r.ResourceVersion() != s.ResourceVersion() {
		t.Fatalf("restored store differs:\n%+v\n%+v", r.List(), s.List())
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("round trip:\n%+v\n%+v", got, snap)
	}
	if _, err := Restore(back, time.Second); err == nil {
		t.Fatal("Restore accepted times after now")
	}
}

func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	appState := func() ObjectState {
		return ObjectState{Kind: KindApp, Name: "app-1", UID: 1, RV: 3, Generation: 1,
			Spec: &SpecState{LogLevel: "info"}, Status: &StatusState{}}
	}
	with := func(f func(*ObjectState)) Snapshot {
		o := appState()
		f(&o)
		return Snapshot{RV: 5, Objects: []ObjectState{o}}
	}
	cases := map[string]Snapshot{
		"negative rv":           {RV: -1},
		"rv too large":          {RV: MaxResourceVersion + 1},
		"object after store rv": with(func(o *ObjectState) { o.RV = 6 }),
		"uid zero":              with(func(o *ObjectState) { o.UID = 0 }),
		"uid after rv":          with(func(o *ObjectState) { o.UID = 4 }),
		"generation zero":       with(func(o *ObjectState) { o.Generation = 0 }),
		"generation too high":   with(func(o *ObjectState) { o.Generation = 4 }),
		"observed negative":     with(func(o *ObjectState) { o.Status.ObservedGeneration = -1 }),
		"no spec":               with(func(o *ObjectState) { o.Spec = nil }),
		"data on an app":        with(func(o *ObjectState) { o.Data = &DataState{} }),
		"bad level":             with(func(o *ObjectState) { o.Spec.LogLevel = "x" }),
		"deleting, no finalizer": with(func(o *ObjectState) {
			o.DeletionTimestamp = ms(1)
		}),
		"deleting, bad time": with(func(o *ObjectState) {
			o.DeletionTimestamp, o.Finalizers = ms(-1), []string{fin}
		}),
		"deleted in the future": with(func(o *ObjectState) {
			o.DeletionTimestamp, o.Finalizers = ms(99999), []string{fin}
		}),
		"negative time": with(func(o *ObjectState) {
			o.Status.Conditions = []ConditionState{{Type: "Ready", Status: "True", Reason: "X", LastTransitionTime: -1}}
		}),
		"future reconcile time": with(func(o *ObjectState) { o.Status.LastReconcileTime = ms(99999) }),
		"owner created after":   with(func(o *ObjectState) { o.Owner = &OwnerState{Kind: KindApp, Name: "x", UID: 2} }),
		"empty owner":           with(func(o *ObjectState) { o.UID = 2; o.Owner = &OwnerState{} }),
		"generation on secret":  {RV: 1, Objects: []ObjectState{{Kind: KindSecret, Name: "s", UID: 1, RV: 1, Generation: 1}}},
		"unsorted": {RV: 2, Objects: []ObjectState{{Kind: KindSecret, Name: "b", UID: 1, RV: 1},
			{Kind: KindSecret, Name: "a", UID: 2, RV: 2}}},
		"uid twice": {RV: 2, Objects: []ObjectState{{Kind: KindSecret, Name: "a", UID: 1, RV: 1},
			{Kind: KindSecret, Name: "b", UID: 1, RV: 2}}},
		"too many conditions": with(func(o *ObjectState) {
			for i := range MaxConditions + 1 {
				o.Status.Conditions = append(o.Status.Conditions, ConditionState{Type: "T" + string(rune('a'+i)), Status: "True", Reason: "X"})
			}
		}),
	}
	many := Snapshot{RV: MaxObjects + 1}
	for i := range MaxObjects + 1 {
		many.Objects = append(many.Objects, ObjectState{Kind: KindSecret, Name: "s" + string(rune('a'+i%26)) + string(rune('a'+i/26)), UID: int64(i + 1), RV: int64(i + 1)})
	}
	cases["too many objects"] = many
	for name, snap := range cases {
		t.Run(name, func(t *testing.T) {
			if s, err := Restore(snap, 10*time.Second); err == nil || s != nil {
				t.Fatalf("Restore accepted %+v", snap)
			}
		})
	}
}
