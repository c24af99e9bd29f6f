package pipeline

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/pipeline/apiserver"
)

// ref names a cached object.
type ref struct{ kind, name string }

func refOf(o apiserver.Object) ref { return ref{o.Kind, o.Name} }

// delivery is a watch event on its way to the informer.
type delivery struct {
	at time.Duration // when it arrives: the write's time + WatchDelay
	ev apiserver.WatchEvent
}

// pump moves the store's new watch events onto the informer's way, or drops
// them while no controller watches.
func (w *World) pump() {
	evs := w.store.TakeEvents()
	if w.ctrl == nil {
		return
	}
	for _, ev := range evs {
		w.ctrl.inflight = append(w.ctrl.inflight, delivery{at: w.now + WatchDelay, ev: ev})
	}
}

// deliver is the informer receiving one watch event: the cache is updated
// first, then the event handlers run (client-go's order, so a handler's key
// is never reconciled against an older cache than the event it came from).
func (w *World) deliver(d delivery) {
	c := w.ctrl
	o := d.ev.Object
	old, had := c.cache[refOf(o)]
	if d.ev.Type == apiserver.Deleted {
		delete(c.cache, refOf(o))
	} else {
		c.cache[refOf(o)] = o
	}
	inc(&w.counters.WatchEvents)
	w.logEvent(Event{Kind: EventWatch, Verb: string(d.ev.Type), Res: o.Kind, Name: o.Name, RV: o.ResourceVersion})
	switch d.ev.Type {
	case apiserver.Added:
		w.onAdd(o, "for")
	case apiserver.Modified:
		if had {
			w.onUpdate(old, o, "for")
		} else {
			w.onAdd(o, "for")
		}
	case apiserver.Deleted:
		w.onDelete(o)
	}
}

// The event handlers, as builder.For(&App{}, WithPredicates(...)),
// builder.Owns(&ConfigMap{}) and, with Settings.SecretWatch,
// builder.Watches(&Secret{}, EnqueueRequestsFromMapFunc(appsUsingSecret))
// set them up. Without SecretWatch the Secret is cached (the reconciler
// reads it) but watched by no handler: a Secret appearing triggers nothing
// by itself.
//
// On the priority queue, the adds of the initial list (source "list") and
// of resyncs (an update whose object kept its resourceVersion) are at low
// priority, as controller-runtime's handlers make them (IsInInitialList,
// WithLowPriorityWhenUnchanged); every real event is at the default
// priority and goes first.

func (w *World) onAdd(o apiserver.Object, source string) {
	switch o.Kind {
	case apiserver.KindApp:
		w.enqueue(o.Key(), source, o) // GenerationChangedPredicate lets creates through
	case apiserver.KindConfigMap:
		w.enqueueOwner(o, source)
	case apiserver.KindSecret:
		w.enqueueMapped(o, source)
	}
}

func (w *World) onUpdate(old, o apiserver.Object, source string) {
	switch o.Kind {
	case apiserver.KindApp:
		if w.settings.Predicate && old.Generation == o.Generation {
			w.logEvent(Event{Kind: EventEnqueue, Key: o.Key(), Verb: source, Res: o.Kind, Name: o.Name, Outcome: "filtered"})
			return
		}
		w.enqueue(o.Key(), source, o)
	case apiserver.KindConfigMap:
		// EnqueueRequestForOwner enqueues the owners of both versions.
		if old.Owner != o.Owner {
			w.enqueueOwner(old, source)
		}
		w.enqueueOwner(o, source)
	case apiserver.KindSecret:
		w.enqueueMapped(o, source)
	}
}

func (w *World) onDelete(o apiserver.Object) {
	switch o.Kind {
	case apiserver.KindApp:
		w.enqueue(o.Key(), "for", o)
	case apiserver.KindConfigMap:
		w.enqueueOwner(o, "for")
	case apiserver.KindSecret:
		w.enqueueMapped(o, "for")
	}
}

// enqueueOwner is EnqueueRequestForOwner: the key of o's controller owner.
// Its source is "owns" for watch events, else list or resync.
func (w *World) enqueueOwner(o apiserver.Object, source string) {
	if source == "for" {
		source = "owns"
	}
	if o.Owner.Kind == apiserver.KindApp {
		w.enqueue(apiserver.Namespace+"/"+o.Owner.Name, source, o)
	}
}

// enqueueMapped is EnqueueRequestsFromMapFunc on the Secret, when
// Settings.SecretWatch adds that watch: the map function lists the Apps that
// use the Secret from the cache (every App needs it) and enqueues each, in
// name order. Its source is "watches" for watch events, else list or resync.
func (w *World) enqueueMapped(secret apiserver.Object, source string) {
	if !w.settings.SecretWatch || secret.Name != DependencyName {
		return
	}
	if source == "for" {
		source = "watches"
	}
	for _, o := range w.cached() {
		if o.Kind == apiserver.KindApp {
			w.enqueue(o.Key(), source, secret)
		}
	}
}

// enqueue adds key to the queue and logs what the Add did. The initial
// list's and the resyncs' adds are AddLow.
func (w *World) enqueue(key, source string, from apiserver.Object) {
	q := w.ctrl.queue
	s := q.State(key)
	outcome := "added"
	switch {
	case s.Ready || s.Processing && s.Dirty:
		outcome = "collapsed"
	case s.Processing:
		outcome = "dirty"
	}
	if source == "list" || source == "resync" {
		q.AddLow(key)
	} else {
		q.Add(key)
	}
	after := q.State(key)
	var ended time.Duration // the wait this add consumed
	if s.Waiting && !after.Waiting {
		ended = s.DueIn
	}
	w.logEvent(Event{Kind: EventEnqueue, Key: key, Verb: source, Res: from.Kind, Name: from.Name, Outcome: outcome,
		Priority: after.Priority, Delay: ended})
}

// resync hands every cached object to the handlers again as an update with
// no change, as a shared informer's resync does: GenerationChangedPredicate
// drops the Apps' (their generation did not change), while an owned
// ConfigMap still enqueues its owner.
func (w *World) resync() {
	w.resyncAs("periodic")
}

func (w *World) resyncAs(verb string) {
	c := w.ctrl
	c.nextResync = w.now + ResyncPeriod
	w.logEvent(Event{Kind: EventResync, Verb: verb})
	for _, o := range w.cached() {
		w.onUpdate(o, o, "resync")
	}
}

func sortObjects(os []apiserver.Object) {
	slices.SortFunc(os, func(a, b apiserver.Object) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Name, b.Name))
	})
}

// cached returns the cache's objects sorted by kind then name.
func (w *World) cached() []apiserver.Object {
	out := w.peekCache()
	for i := range out {
		out[i] = out[i].DeepCopy()
	}
	return out
}

// peekCache is cached without the copies: each object's slices are the
// cache's (see apiserver.Store.Peek).
func (w *World) peekCache() []apiserver.Object {
	return w.appendPeekCache(make([]apiserver.Object, 0, len(w.ctrl.cache)))
}

// appendPeekCache appends peekCache to dst.
func (w *World) appendPeekCache(dst []apiserver.Object) []apiserver.Object {
	n := len(dst)
	for _, o := range w.ctrl.cache {
		dst = append(dst, o)
	}
	sortObjects(dst[n:])
	return dst
}

// fromCache is a Get from the informer's cache (the default client's
// reads).
func (w *World) fromCache(kind, name string) (apiserver.Object, bool) {
	o, ok := w.ctrl.cache[ref{kind, name}]
	return o.DeepCopy(), ok
}
