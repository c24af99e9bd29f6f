package apiserver

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The errors a write can return, each changing nothing. Match them with
// errors.Is; Reason names them as kube-apiserver's StatusReason does.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
	// ErrConflict is optimistic concurrency at work: the write carried a
	// resourceVersion that is no longer the object's.
	ErrConflict = errors.New("the object has been modified; please apply your changes to the latest version and try again")
	ErrInvalid  = errors.New("invalid")
)

// Reason returns the StatusReason of an error from this package ("NotFound",
// "AlreadyExists", "Conflict", "Invalid"), or "" for nil or another error.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotFound):
		return "NotFound"
	case errors.Is(err, ErrAlreadyExists):
		return "AlreadyExists"
	case errors.Is(err, ErrConflict):
		return "Conflict"
	case errors.Is(err, ErrInvalid):
		return "Invalid"
	}
	return ""
}

// Bounds of the store.
const (
	// MaxResourceVersion bounds the store's counter; writes fail there
	// (at a write a millisecond, after 285,000 years).
	MaxResourceVersion = 1 << 53
	// MaxObjects bounds the objects the store holds and a snapshot carries.
	MaxObjects = 32
	// MaxFinalizers bounds an object's finalizers.
	MaxFinalizers = 4
	// MaxConditions bounds an App's status.conditions.
	MaxConditions = 4
)

// EventType is the type of a watch event.
type EventType string

// Watch event types, as the watch API spells them.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// WatchEvent is one change, as a watch reports it: for Deleted, the object's
// last state (with the resourceVersion of its deletion).
type WatchEvent struct {
	Type   EventType
	Object Object
}

// Written is what a successful write did.
type Written struct {
	// Object is the object as stored after the write: for a no-op, as it
	// was; once removed, its last state.
	Object Object
	// Changed is false for a no-op: no new resourceVersion, no event.
	Changed bool
	// Removed: the object is gone (deleted without finalizers, or its last
	// finalizer removed while it was being deleted).
	Removed bool
}

type ref struct{ kind, name string }

// Store is the API server's storage: the objects, the resourceVersion
// counter, and the watch events not yet taken.
type Store struct {
	objects map[ref]Object
	rv      int64
	events  []WatchEvent
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{objects: map[ref]Object{}} }

// ResourceVersion returns the store's latest resourceVersion (0 before the
// first write).
func (s *Store) ResourceVersion() int64 { return s.rv }

// Get returns a copy of the named object, read straight from storage (an
// "API reader" Get, not a cache Get).
func (s *Store) Get(kind, name string) (Object, bool) {
	o, ok := s.objects[ref{kind, name}]
	return o.DeepCopy(), ok
}

// AppendPeek appends List to dst without the copies: each object's slices
// are the store's, so a reader reads them, or copies what it keeps (as
// Encode does), before the store changes. A frame's views and the page's
// snapshot read it, into an array of their own on the stack.
func (s *Store) AppendPeek(dst []Object) []Object {
	n := len(dst)
	for _, o := range s.objects {
		dst = append(dst, o)
	}
	sortObjects(dst[n:])
	return dst
}

// List returns a copy of every object, sorted by kind then name.
func (s *Store) List() []Object {
	out := make([]Object, 0, len(s.objects))
	for _, o := range s.objects {
		out = append(out, o.DeepCopy())
	}
	sortObjects(out)
	return out
}

func sortObjects(os []Object) {
	slices.SortFunc(os, func(a, b Object) int { // without sort.Slice's reflection: a list is made often
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
	})
}

// TakeEvents returns the watch events of the writes since the last call, in
// write order, and forgets them. Their objects are shared with the store:
// treat them as read-only (DeepCopy to change one).
func (s *Store) TakeEvents() []WatchEvent {
	ev := s.events
	s.events = nil
	return ev
}

// Create stores a new object. Its status is dropped (a subresource), its
// generation starts at 1 for an App, and its uid and resourceVersion are the
// next revision.
func (s *Store) Create(o Object) (Written, error) {
	o = pruned(o.DeepCopy())
	o.Status = AppStatus{}
	o.DeletionTimestamp = Timestamp{}
	if err := validate(o); err != nil {
		return Written{}, err
	}
	if _, ok := s.objects[ref{o.Kind, o.Name}]; ok {
		return Written{}, fmt.Errorf("create %s %s: %w", o.Kind, o.Name, ErrAlreadyExists)
	}
	if len(s.objects) >= MaxObjects || s.rv >= MaxResourceVersion {
		return Written{}, fmt.Errorf("create %s %s: store full: %w", o.Kind, o.Name, ErrInvalid)
	}
	s.rv++
	o.UID, o.ResourceVersion = s.rv, s.rv
	o.Generation = 0
	if o.Kind == KindApp {
		o.Generation = 1
	}
	s.put(Added, o)
	return Written{Object: o.DeepCopy(), Changed: true}, nil
}

// Update writes o's metadata (finalizers, owner) and spec or data, if o
// carries the object's current resourceVersion; its status is ignored. A
// spec change bumps the generation. Removing the last finalizer of an object
// being deleted removes it.
func (s *Store) Update(o Object) (Written, error) {
	cur, err := s.current(o, "update")
	if err != nil {
		return Written{}, err
	}
	next := cur.DeepCopy()
	next.Spec, next.Data, next.Owner = o.Spec, o.Data, o.Owner
	next.Finalizers = slices.Clone(o.Finalizers)
	if len(next.Finalizers) == 0 {
		next.Finalizers = nil
	}
	next = pruned(next)
	if err := validate(next); err != nil {
		return Written{}, err
	}
	if cur.Deleting() {
		for _, f := range next.Finalizers {
			if !cur.HasFinalizer(f) {
				return Written{}, fmt.Errorf("update %s %s: no new finalizers can be added if the object is being deleted: %w",
					o.Kind, o.Name, ErrInvalid)
			}
		}
	}
	return s.write(cur, next, false)
}

// UpdateStatus writes o's status (App only), if o carries the object's
// current resourceVersion; everything else of o is ignored.
func (s *Store) UpdateStatus(o Object) (Written, error) {
	if o.Kind != KindApp {
		return Written{}, fmt.Errorf("update status of %s %s: no status subresource: %w", o.Kind, o.Name, ErrNotFound)
	}
	cur, err := s.current(o, "update status")
	if err != nil {
		return Written{}, err
	}
	next := cur.DeepCopy()
	next.Status = o.Status
	next.Status.Conditions = slices.Clone(o.Status.Conditions)
	if err := validate(next); err != nil {
		return Written{}, err
	}
	return s.write(cur, next, false)
}

// Apply is server-side apply of o's spec or data and owner by the one field
// manager: it creates the object if it is absent, merges those fields if it
// exists (keeping finalizers and status), and carries no resourceVersion, so
// it never conflicts nor fails with AlreadyExists. Applying what is already
// there is a no-op.
func (s *Store) Apply(o Object) (Written, error) {
	cur, ok := s.objects[ref{o.Kind, o.Name}]
	if !ok {
		o.Finalizers = nil
		return s.Create(o)
	}
	next := cur.DeepCopy()
	next.Spec, next.Data, next.Owner = o.Spec, o.Data, o.Owner
	next = pruned(next)
	if err := validate(next); err != nil {
		return Written{}, err
	}
	return s.write(cur, next, false)
}

// ApplyStatus is server-side apply of an App's status: no resourceVersion,
// no conflict; applying the status already there is a no-op.
func (s *Store) ApplyStatus(kind, name string, st AppStatus) (Written, error) {
	cur, ok := s.objects[ref{kind, name}]
	if !ok || kind != KindApp {
		return Written{}, fmt.Errorf("apply status of %s %s: %w", kind, name, ErrNotFound)
	}
	next := cur.DeepCopy()
	next.Status = st
	next.Status.Conditions = slices.Clone(st.Conditions)
	if err := validate(next); err != nil {
		return Written{}, err
	}
	return s.write(cur, next, false)
}

// Delete deletes the named object at virtual time now. With finalizers it
// only sets deletionTimestamp (and bumps an App's generation); without, it
// removes the object. Deleting an object already being deleted is a no-op.
func (s *Store) Delete(kind, name string, now time.Duration) (Written, error) {
	cur, ok := s.objects[ref{kind, name}]
	if !ok {
		return Written{}, fmt.Errorf("delete %s %s: %w", kind, name, ErrNotFound)
	}
	if cur.Deleting() {
		return Written{Object: cur.DeepCopy()}, nil
	}
	next := cur.DeepCopy()
	if len(cur.Finalizers) == 0 {
		return s.write(cur, next, true)
	}
	next.DeletionTimestamp = Timestamp{Set: true, At: now}
	return s.write(cur, next, false)
}

// current returns the stored object o names, if o carries its
// resourceVersion.
func (s *Store) current(o Object, verb string) (Object, error) {
	cur, ok := s.objects[ref{o.Kind, o.Name}]
	if !ok {
		return Object{}, fmt.Errorf("%s %s %s: %w", verb, o.Kind, o.Name, ErrNotFound)
	}
	if o.ResourceVersion != cur.ResourceVersion {
		return Object{}, fmt.Errorf("%s %s %s (resourceVersion %d, stored %d): %w",
			verb, o.Kind, o.Name, o.ResourceVersion, cur.ResourceVersion, ErrConflict)
	}
	return cur, nil
}

// write stores next over cur: nothing if they are the same, else the next
// resourceVersion (and generation, on a spec change or the start of
// deletion), and the watch event. remove (or an object being deleted left
// without finalizers) removes it instead.
func (s *Store) write(cur, next Object, remove bool) (Written, error) {
	remove = remove || next.Deleting() && len(next.Finalizers) == 0
	if sameContent(cur, next) && !remove {
		return Written{Object: cur.DeepCopy()}, nil
	}
	if s.rv >= MaxResourceVersion {
		return Written{}, fmt.Errorf("write %s %s: resourceVersions exhausted: %w", cur.Kind, cur.Name, ErrInvalid)
	}
	s.rv++
	next.ResourceVersion = s.rv
	if next.Kind == KindApp && (next.Spec != cur.Spec || next.Deleting() && !cur.Deleting()) {
		next.Generation = cur.Generation + 1
	}
	if remove {
		delete(s.objects, ref{next.Kind, next.Name})
		s.events = append(s.events, WatchEvent{Type: Deleted, Object: next})
		return Written{Object: next.DeepCopy(), Changed: true, Removed: true}, nil
	}
	s.put(Modified, next)
	return Written{Object: next.DeepCopy(), Changed: true}, nil
}

// put stores o and queues its event. o must be the store's own copy: the
// map and the event share it, which is safe because a stored object is
// never changed in place (every write builds a new one).
func (s *Store) put(t EventType, o Object) {
	s.objects[ref{o.Kind, o.Name}] = o
	s.events = append(s.events, WatchEvent{Type: t, Object: o})
}

// pruned drops the fields o's kind does not have, as a structural schema
// prunes unknown fields.
func pruned(o Object) Object {
	switch o.Kind {
	case KindApp:
		o.Data = ConfigData{}
	case KindConfigMap:
		o.Spec, o.Status = AppSpec{}, AppStatus{}
	default:
		o.Spec, o.Status, o.Data = AppSpec{}, AppStatus{}, ConfigData{}
	}
	return o
}
