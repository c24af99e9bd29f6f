package apiserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/reconcile-demo/reconcile-demo/internal/jsonw"
)

// Snapshot is the store in plain, JSON-ready form. Times are absolute
// virtual milliseconds (the world's snapshot carries its clock beside).
// Watch events not yet taken are not part of it: take them before.
type Snapshot struct {
	RV      int64         `json:"rv"`
	Objects []ObjectState `json:"objects"`
}

// ObjectState is one object in a snapshot; the parts its kind lacks are
// omitted.
type ObjectState struct {
	Kind              string       `json:"kind"`
	Name              string       `json:"name"`
	UID               int64        `json:"uid"`
	RV                int64        `json:"rv"`
	Generation        int64        `json:"gen,omitempty"`
	DeletionTimestamp *int64       `json:"deletionTimestamp,omitempty"`
	Finalizers        []string     `json:"finalizers,omitempty"`
	Owner             *OwnerState  `json:"owner,omitempty"`
	Spec              *SpecState   `json:"spec,omitempty"`
	Status            *StatusState `json:"status,omitempty"`
	Data              *DataState   `json:"data,omitempty"`
}

// OwnerState is an ownerReference in a snapshot.
type OwnerState struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	UID  int64  `json:"uid"`
}

// SpecState is an App's spec in a snapshot.
type SpecState struct {
	LogLevel string `json:"logLevel"`
}

// StatusState is an App's status in a snapshot.
type StatusState struct {
	ObservedGeneration int64            `json:"observedGeneration"`
	Conditions         []ConditionState `json:"conditions,omitempty"`
	LastReconcileTime  *int64           `json:"lastReconcileTime,omitempty"`
}

// ConditionState is a condition in a snapshot.
type ConditionState struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	LastTransitionTime int64  `json:"lastTransitionTime"`
}

// DataState is a ConfigMap's data in a snapshot.
type DataState struct {
	LogLevel string `json:"logLevel"`
}

func msOf(d time.Duration) int64 { return int64(d / time.Millisecond) }

func stampOf(t Timestamp) *int64 {
	if !t.Set {
		return nil
	}
	ms := msOf(t.At)
	return &ms
}

// Encode returns o in snapshot form.
func Encode(o Object) ObjectState {
	s := ObjectState{Kind: o.Kind, Name: o.Name, UID: o.UID, RV: o.ResourceVersion, Generation: o.Generation,
		DeletionTimestamp: stampOf(o.DeletionTimestamp), Finalizers: append([]string(nil), o.Finalizers...)}
	if o.Owner != (OwnerRef{}) {
		s.Owner = &OwnerState{Kind: o.Owner.Kind, Name: o.Owner.Name, UID: o.Owner.UID}
	}
	switch o.Kind {
	case KindApp:
		s.Spec = &SpecState{LogLevel: o.Spec.LogLevel}
		st := &StatusState{ObservedGeneration: o.Status.ObservedGeneration, LastReconcileTime: stampOf(o.Status.LastReconcileTime)}
		for _, c := range o.Status.Conditions {
			st.Conditions = append(st.Conditions, ConditionState{Type: c.Type, Status: c.Status, Reason: c.Reason,
				LastTransitionTime: msOf(c.LastTransitionTime)})
		}
		s.Status = st
	case KindConfigMap:
		s.Data = &DataState{LogLevel: o.Data.LogLevel}
	}
	return s
}

// Decode rebuilds an object from its snapshot form after checking every
// field: what validation accepts, a uid and resourceVersion in
// [1, maxRV] with uid <= resourceVersion, a generation an App could have
// reached, times in [0, now], an owner created before the object. (A
// deletionTimestamp without finalizers is only the last state of a removed
// object, in a DELETED watch event: Restore refuses it in the store.)
func Decode(s ObjectState, now time.Duration, maxRV int64) (Object, error) {
	bad := func(what string) error {
		return fmt.Errorf("snapshot object %s %q: %s: %w", s.Kind, s.Name, what, ErrInvalid)
	}
	toTime := func(ms int64) (time.Duration, bool) {
		d := time.Duration(ms) * time.Millisecond
		return d, ms >= 0 && ms <= msOf(now)
	}
	o := Object{Kind: s.Kind, Name: s.Name, UID: s.UID, ResourceVersion: s.RV, Generation: s.Generation}
	if s.UID < 1 || s.RV < s.UID || s.RV > maxRV {
		return Object{}, bad("uid or resourceVersion out of range")
	}
	if s.DeletionTimestamp != nil {
		at, ok := toTime(*s.DeletionTimestamp)
		if !ok {
			return Object{}, bad("deletionTimestamp")
		}
		o.DeletionTimestamp = Timestamp{Set: true, At: at}
	}
	if len(s.Finalizers) > 0 {
		o.Finalizers = append([]string(nil), s.Finalizers...)
	}
	if s.Owner != nil {
		o.Owner = OwnerRef{Kind: s.Owner.Kind, Name: s.Owner.Name, UID: s.Owner.UID}
		if o.Owner == (OwnerRef{}) || o.Owner.UID >= s.UID {
			return Object{}, bad("owner reference")
		}
	}
	isApp := s.Kind == KindApp
	if isApp != (s.Spec != nil) || isApp != (s.Status != nil) || (s.Kind == KindConfigMap) != (s.Data != nil) {
		return Object{}, bad("fields of another kind")
	}
	if isApp {
		// Each generation after the first is a write: at most one per
		// resourceVersion since creation.
		if s.Generation < 1 || s.Generation > s.RV-s.UID+1 {
			return Object{}, bad("generation out of range")
		}
		o.Spec.LogLevel = s.Spec.LogLevel
		st := s.Status
		if st.ObservedGeneration < 0 || st.ObservedGeneration > MaxResourceVersion {
			return Object{}, bad("observedGeneration out of range")
		}
		o.Status.ObservedGeneration = st.ObservedGeneration
		if st.LastReconcileTime != nil {
			at, ok := toTime(*st.LastReconcileTime)
			if !ok {
				return Object{}, bad("lastReconcileTime")
			}
			o.Status.LastReconcileTime = Timestamp{Set: true, At: at}
		}
		if len(st.Conditions) > MaxConditions {
			return Object{}, bad("too many conditions")
		}
		for _, c := range st.Conditions {
			at, ok := toTime(c.LastTransitionTime)
			if !ok {
				return Object{}, bad("lastTransitionTime")
			}
			o.Status.Conditions = append(o.Status.Conditions, Condition{Type: c.Type, Status: c.Status,
				Reason: c.Reason, LastTransitionTime: at})
		}
	} else if s.Generation != 0 {
		return Object{}, bad("generation on a kind without one")
	}
	if s.Data != nil {
		o.Data.LogLevel = s.Data.LogLevel
	}
	if err := validate(o); err != nil {
		return Object{}, fmt.Errorf("snapshot: %w", err)
	}
	return o, nil
}

// Snapshot returns the store's snapshot (without the watch events not yet
// taken).
func (s *Store) Snapshot() Snapshot {
	snap := Snapshot{RV: s.rv, Objects: []ObjectState{}}
	// Room for most stores on the stack (more goes to the heap); Encode
	// copies what it keeps.
	var buf [8]Object
	for _, o := range s.AppendPeek(buf[:0]) {
		snap.Objects = append(snap.Objects, Encode(o))
	}
	return snap
}

// Restore rebuilds a store from its snapshot at virtual time now, checking
// every object (Decode), that objects are sorted by kind then name and
// unique, and that uids are unique. It returns an error and no store for
// any snapshot Snapshot could not have written.
func Restore(snap Snapshot, now time.Duration) (*Store, error) {
	if snap.RV < 0 || snap.RV > MaxResourceVersion {
		return nil, errors.New("restore store: resourceVersion out of range")
	}
	if len(snap.Objects) > MaxObjects {
		return nil, fmt.Errorf("restore store: %d objects, at most %d", len(snap.Objects), MaxObjects)
	}
	s := NewStore()
	s.rv = snap.RV
	uids := map[int64]bool{}
	var prev *Object
	for _, st := range snap.Objects {
		o, err := Decode(st, now, snap.RV)
		if err != nil {
			return nil, fmt.Errorf("restore store: %w", err)
		}
		if prev != nil && (prev.Kind > o.Kind || prev.Kind == o.Kind && prev.Name >= o.Name) {
			return nil, errors.New("restore store: objects not sorted and unique")
		}
		if o.Deleting() && len(o.Finalizers) == 0 {
			return nil, fmt.Errorf("restore store: %s %s deleting without finalizers is removed, not stored", o.Kind, o.Name)
		}
		if uids[o.UID] {
			return nil, fmt.Errorf("restore store: uid %d twice", o.UID)
		}
		uids[o.UID] = true
		s.objects[ref{o.Kind, o.Name}] = o
		prev = &o
	}
	return s, nil
}

// AppendJSON appends Encode(o) as json.Marshal writes it, without building
// it: a snapshot is written on every frame.
func AppendJSON(b []byte, o Object) []byte {
	b = jsonw.StringField(append(b, '{'), "kind", o.Kind)
	b = jsonw.StringField(b, "name", o.Name)
	b = jsonw.IntField(b, "uid", o.UID)
	b = jsonw.IntField(b, "rv", o.ResourceVersion)
	b = jsonw.OmitInt(b, "gen", o.Generation)
	if o.DeletionTimestamp.Set {
		b = jsonw.IntField(b, "deletionTimestamp", msOf(o.DeletionTimestamp.At))
	}
	b = jsonw.OmitArray(b, "finalizers", o.Finalizers, func(b []byte, f string) []byte { return jsonw.String(b, f) })
	if o.Owner != (OwnerRef{}) {
		b = jsonw.StringField(append(jsonw.Field(b, "owner"), '{'), "kind", o.Owner.Kind)
		b = jsonw.StringField(b, "name", o.Owner.Name)
		b = append(jsonw.IntField(b, "uid", o.Owner.UID), '}')
	}
	switch o.Kind {
	case KindApp:
		b = append(jsonw.StringField(append(jsonw.Field(b, "spec"), '{'), "logLevel", o.Spec.LogLevel), '}')
		b = jsonw.IntField(append(jsonw.Field(b, "status"), '{'), "observedGeneration", o.Status.ObservedGeneration)
		b = jsonw.OmitArray(b, "conditions", o.Status.Conditions, func(b []byte, c Condition) []byte {
			b = jsonw.StringField(append(b, '{'), "type", c.Type)
			b = jsonw.StringField(b, "status", c.Status)
			b = jsonw.StringField(b, "reason", c.Reason)
			return append(jsonw.IntField(b, "lastTransitionTime", msOf(c.LastTransitionTime)), '}')
		})
		if t := o.Status.LastReconcileTime; t.Set {
			b = jsonw.IntField(b, "lastReconcileTime", msOf(t.At))
		}
		b = append(b, '}')
	case KindConfigMap:
		b = append(jsonw.StringField(append(jsonw.Field(b, "data"), '{'), "logLevel", o.Data.LogLevel), '}')
	}
	return append(b, '}')
}

// AppendSnapshotJSON appends Snapshot() as json.Marshal writes it, without
// building it.
func (s *Store) AppendSnapshotJSON(b []byte) []byte {
	b = append(jsonw.Field(jsonw.IntField(append(b, '{'), "rv", s.rv), "objects"), '[')
	var buf [8]Object
	for _, o := range s.AppendPeek(buf[:0]) {
		b = AppendJSON(jsonw.Comma(b), o)
	}
	return append(b, ']', '}')
}
