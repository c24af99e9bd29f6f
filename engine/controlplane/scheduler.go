package controlplane

import (
	"slices"
	"time"
)

// The scheduler's queue defaults (kube-scheduler's
// podInitialBackoffSeconds, podMaxBackoffSeconds and
// podMaxInUnschedulablePodsDuration).
const (
	InitialBackoff     = 1 * time.Second
	MaxBackoff         = 10 * time.Second
	UnschedulableFlush = 5 * time.Minute
)

// maxAttempts caps a pod's attempt count: the backoff has long reached
// MaxBackoff, and the count stays bounded however long a pod waits.
const maxAttempts = 1000

// Backoff returns how long the scheduler waits before it retries a pod that
// failed attempts times: 1 s, 2 s, 4 s, 8 s, then 10 s.
func Backoff(attempts int) time.Duration {
	d := InitialBackoff
	for i := 1; i < attempts && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Where a pod waits in the scheduling queue. Active pods are tried in the
// pass that finds them, so they never outlive it.
const (
	qActive = iota
	qBackoff
	qUnschedulable
)

// queued is a pod in the scheduler's queue that has failed at least once.
type queued struct {
	attempts int
	last     time.Duration // the last attempt, when it entered unschedulablePods
	state    int
}

// retryAt returns when a waiting pod is tried again by itself: a pod in
// backoff when its backoff ends; an unschedulable pod when it has waited
// UnschedulableFlush (the periodic flush), unless a cluster event moves it
// before.
func (q *queued) retryAt() time.Duration {
	if q.state == qBackoff {
		return q.last + Backoff(q.attempts)
	}
	return q.last + UnschedulableFlush
}

// schedState is kube-scheduler's memory: its queue of pods that could not
// be placed yet. It is lost when the scheduler stops; pods that were never
// tried are not in it (a pass takes every unscheduled pod it sees).
type schedState struct {
	queue map[string]*queued
}

// run is the scheduler's loop: a watch event or a timer moves waiting pods,
// then one pass tries every active pod.
func (s *schedState) run(v *view, t trigger) []Message {
	switch t.kind {
	case onList:
		s.queue = map[string]*queued{}
	case onWatch:
		// A node that changed, or an assigned pod that is gone, may make room:
		// every unschedulable pod moves to the backoff or the active queue
		// (MoveAllToActiveOrBackoffQueue).
		if t.msg.Resource == ResNode || (t.msg.Verb == VerbDeleted && slices.ContainsFunc(t.msg.Objects, func(o Object) bool { return o.Node != "" })) {
			for _, q := range s.queue {
				if q.state != qUnschedulable {
					continue
				}
				q.state = qBackoff
				if v.now >= q.retryAt() {
					q.state = qActive
				}
			}
		}
	case onTimer:
		for _, q := range s.queue {
			if q.retryAt() <= v.now {
				q.state = qActive
			}
		}
	}
	return s.pass(v)
}

// next returns when the scheduler next acts by itself, and for which pod
// (the first by name of those due then).
func (s *schedState) next() (time.Duration, string, bool) {
	var at time.Duration
	name, ok := "", false
	for n, q := range s.queue {
		if t := q.retryAt(); !ok || t < at || (t == at && n < name) {
			at, name, ok = t, n, true
		}
	}
	return at, name, ok
}

// pass schedules: for each active pod, oldest first, filter the nodes
// (TaintToleration: no taint the pod does not tolerate with effect
// NoSchedule or NoExecute; NodeResourcesFit: room for the pod) and score the
// rest (least allocated: the fewest pods, the first by name on a tie); bind
// the pod to the best node or mark it unschedulable. The Ready condition is
// not a filter, as in kube-scheduler: the node lifecycle controller's
// NoSchedule taint is what keeps pods off a node that is not Ready. Bindings in flight are the
// scheduler's assumed pods: they count on their node and are not tried again.
func (s *schedState) pass(v *view) []Message {
	assumed := map[string]bool{}
	var counts [NodeCount]int
	for i, n := range nodeNames {
		counts[i] = v.api.assigned(n)
	}
	for _, m := range v.inflight {
		if m.From == LaneScheduler {
			for _, o := range m.Objects {
				assumed[o.Name] = true
				if i := nodeIndex(o.Node); i >= 0 {
					counts[i]++
				}
			}
		}
	}
	pods := v.api.sortedPods()
	slices.SortStableFunc(pods, func(a, b *pod) int { return int(a.created - b.created) })
	for name := range s.queue {
		if p := v.api.pods[name]; p == nil || p.node != "" || p.terminating || assumed[name] {
			delete(s.queue, name)
		}
	}
	var binds []Object
	for _, p := range pods {
		if p.node != "" || p.terminating || assumed[p.name] {
			continue
		}
		q := s.queue[p.name]
		if q == nil {
			q = &queued{state: qActive}
			s.queue[p.name] = q
		}
		if q.state != qActive {
			continue
		}
		best, tainted, full := -1, 0, 0
		for i := range nodeNames {
			n := v.api.nodes[i]
			switch {
			case n.unschedulable():
				tainted++
			case counts[i] >= NodeCapacity:
				full++
			case best < 0 || counts[i] < counts[best]:
				best = i
			}
		}
		if best >= 0 {
			counts[best]++
			delete(s.queue, p.name)
			binds = append(binds, Object{Name: p.name, Node: nodeNames[best]})
			continue
		}
		q.attempts = min(q.attempts+1, maxAttempts)
		q.last, q.state = v.now, qUnschedulable
		v.record(Event{Kind: EventFailedScheduling, Name: p.name, N: q.attempts, M: full, K: tainted, Wait: Backoff(q.attempts)})
	}
	if len(binds) == 0 {
		return nil
	}
	if v.onBind != nil {
		v.onBind(binds)
	}
	return []Message{{To: LaneAPIServer, Kind: KindWrite, Verb: VerbPost, Resource: ResBinding, Reason: ReasonBind, Objects: binds}}
}
