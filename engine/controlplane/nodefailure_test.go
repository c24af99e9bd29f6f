package controlplane

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// unknownAt stops node and returns when the node lifecycle controller will
// decide it is Unknown.
func unknownAt(t *testing.T, c *Cluster, node string) time.Duration {
	t.Helper()
	must(t, c.SetNode(node, false))
	d, ok := c.NextEvent()
	if !ok || d.Kind != DueNodeUnknown || d.Name != node {
		t.Fatalf("NextEvent = %+v, %v", d, ok)
	}
	return c.Now() + d.In
}

// The node lifecycle controller gives an Unknown node
// node.kubernetes.io/unreachable with both effects, right after the
// Unknown lands, and takes both off when the node is Ready again.
func TestUnreachableNodeGetsBothTaints(t *testing.T) {
	c := live(t, 50)
	msgs := traced(c)
	u := unknownAt(t, c, "node-2")
	c.Advance(u + WriteLatency - c.Now())
	if n := nodeView(c, "node-2"); n.Ready != ConditionUnknown || n.Tainted || len(n.Taints) != 0 {
		t.Fatalf("as the Unknown lands: %+v", n)
	}
	settle(t, c)
	want := []Taint{{TaintUnreachable, EffectNoSchedule}, {TaintUnreachable, EffectNoExecute}}
	n := nodeView(c, "node-2")
	if !reflect.DeepEqual(n.Taints, want) || !n.Tainted {
		t.Fatalf("taints %+v, want %+v", n.Taints, want)
	}
	taints := eventsOf(c, EventTaint)
	if len(taints) != 1 || taints[0].Name != "node-2" || taints[0].At != u+2*WriteLatency {
		t.Fatalf("taint events %+v: want one, landing a write after the Unknown", taints)
	}
	i := slices.IndexFunc(*msgs, func(m Message) bool { return m.Reason == ReasonTaint && m.Kind == KindWrite })
	if i < 0 || (*msgs)[i].From != LaneNodeLife || (*msgs)[i].Sent != u+WriteLatency {
		t.Fatal("the taint was not the node lifecycle controller's PATCH, sent when the Unknown landed")
	}
	n.Taints[0].Effect = "changed"
	if nodeView(c, "node-2").Taints[0].Effect != EffectNoSchedule {
		t.Fatal("NodeView.Taints shares the engine's slice")
	}

	must(t, c.SetNode("node-2", true))
	settle(t, c)
	if n := nodeView(c, "node-2"); n.Ready != ConditionTrue || n.Tainted || n.Taints != nil {
		t.Fatalf("back: %+v", n)
	}
	if e := eventsOf(c, EventUntaint); len(e) != 1 {
		t.Fatalf("untaint events %+v", e)
	}
	checked(t, c)
}

// The scheduler's TaintToleration filter keeps new pods off a node with the
// NoSchedule taint (the pods tolerate unreachable:NoExecute, not
// NoSchedule), and only that: the Ready condition is no filter, so a node
// that has just gone Unknown and is not tainted yet still gets a pod, as
// with kube-scheduler.
func TestSchedulerKeepsOffNoScheduleTaint(t *testing.T) {
	tests := []struct {
		name string
		// applyAt is when, relative to the Unknown decision u, kubectl asks
		// for one more pod: its chain of writes and notifications reaches
		// the scheduler 1.2 s later.
		applyAt  time.Duration
		onNode1  bool
		comment  string
		replicas int
	}{
		{"tainted", time.Second, false, "the pass runs after the NoSchedule taint landed", 4},
		{"unknown, not yet tainted", -900 * ms1, true, "the pass runs between the Unknown and the taint landing", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := live(t, 51)
			var decided []Object
			c.onBind = func(b []Object) { decided = append(decided, b...) }
			u := unknownAt(t, c, "node-1")
			c.Advance(u + tt.applyAt - c.Now())
			must(t, c.SetReplicas(tt.replicas))
			settle(t, c)
			if len(decided) != 1 {
				t.Fatalf("bindings %+v", decided)
			}
			n := c.api.node("node-1")
			if got := decided[0].Node == "node-1"; got != tt.onNode1 {
				t.Fatalf("%s: bound to %s (node-1 Ready=%s, taints %v)", tt.comment, decided[0].Node, n.ready, n.taints)
			}
			// node-1 is least allocated or tied with the others, and first
			// by name: only the taint kept the pod off it.
			checked(t, c)
		})
	}
	t.Run("fits nowhere but the tainted node", func(t *testing.T) {
		c := live(t, 52)
		u := unknownAt(t, c, "node-1")
		c.Advance(u - c.Now())
		settle(t, c)
		must(t, c.SetReplicas(MaxReplicas)) // 7 more: node-2 and node-3 have 6 free, node-1 3
		settle(t, c)
		fails := eventsOf(c, EventFailedScheduling)
		if len(fails) == 0 {
			t.Fatal("no FailedScheduling")
		}
		if f := fails[len(fails)-1]; f.M != 2 || f.K != 1 {
			t.Fatalf("FailedScheduling %+v: want 2 nodes full and 1 with an untolerated taint", f)
		}
		for _, p := range podsOn(c, "node-1") {
			if p.Phase != PhaseRunning {
				t.Fatalf("a new pod went to the tainted node: %+v", p)
			}
		}
	})
}

// Each pod on a tainted node is evicted when its own toleration
// (DefaultTolerationSeconds, 300 s) ends, counted from when the node
// lifecycle controller first saw it there: the pods there at the taint
// together, a pod bound in the race before the taint landed a little later.
// PodView says each pod's deadline; a controller-manager that restarts
// counts again from its LIST.
func TestEvictionAfterTolerationSeconds(t *testing.T) {
	c := live(t, 53)
	u := unknownAt(t, c, "node-1")
	c.Advance(u - 900*ms1 - c.Now())
	must(t, c.SetReplicas(4)) // its pod is bound to node-1 before the taint lands
	settle(t, c)
	taintedAt := u + 2*WriteLatency
	var first, late PodView
	for _, p := range podsOn(c, "node-1") {
		if p.Phase == PhaseRunning {
			first = p
		} else {
			late = p
		}
	}
	if first.Name == "" || late.Name == "" {
		t.Fatalf("pods on node-1: %+v", podsOn(c, "node-1"))
	}
	if !first.Evicting || first.EvictAt != taintedAt+DefaultTolerationSeconds {
		t.Fatalf("%+v: want evicted %v after the taint landed at %v", first, DefaultTolerationSeconds, taintedAt)
	}
	if !late.Evicting || late.EvictAt <= first.EvictAt || late.EvictAt > first.EvictAt+time.Second {
		t.Fatalf("the pod bound in the race %+v: want its own deadline, just after %v", late, first.EvictAt)
	}
	d, ok := c.NextEvent()
	if !ok || d.Kind != DueEviction || d.Name != "node-1" || c.Now()+d.In != first.EvictAt {
		t.Fatalf("NextEvent = %+v: want node-1's first eviction at %v", d, first.EvictAt)
	}
	phaseOf := func(name string) Phase {
		for _, p := range c.Pods() {
			if p.Name == name {
				return p.Phase
			}
		}
		return ""
	}
	c.Advance(first.EvictAt + WriteLatency - ms1 - c.Now())
	if phaseOf(first.Name) == PhaseTerminating {
		t.Fatal("evicted before its toleration ended")
	}
	c.Advance(ms1)
	if phaseOf(first.Name) != PhaseTerminating || phaseOf(late.Name) == PhaseTerminating {
		t.Fatalf("at %v: %s %s, %s %s", c.Now(), first.Name, phaseOf(first.Name), late.Name, phaseOf(late.Name))
	}
	c.Advance(late.EvictAt + WriteLatency - c.Now())
	if phaseOf(late.Name) != PhaseTerminating {
		t.Fatalf("the late pod is %s at its own deadline", phaseOf(late.Name))
	}
	checked(t, c)

	t.Run("a restarted controller-manager counts again", func(t *testing.T) {
		c := live(t, 54)
		u := unknownAt(t, c, "node-3")
		c.Advance(u + time.Minute - c.Now())
		must(t, c.SetComponent(ProcessControllerManager, false))
		if p := podsOn(c, "node-3")[0]; p.Evicting {
			t.Fatalf("a stopped controller-manager still counts: %+v", p)
		}
		must(t, c.SetComponent(ProcessControllerManager, true))
		listed := c.Now() + WatchLatency
		settle(t, c)
		if p := podsOn(c, "node-3")[0]; !p.Evicting || p.EvictAt != listed+DefaultTolerationSeconds {
			t.Fatalf("%+v: want a fresh 300 s from the LIST at %v", p, listed)
		}
	})
}

// The node lifecycle controller marks the pods of a node that is not Ready
// as not Ready (MarkPodsNotReady) along with the taints; the kubelet, back,
// reports them Ready again, and the taints go.
func TestPodsOfAnUnknownNodeAreMarkedNotReady(t *testing.T) {
	c := live(t, 55)
	msgs := traced(c)
	u := unknownAt(t, c, "node-2")
	c.Advance(u - c.Now())
	settle(t, c)
	p := podsOn(c, "node-2")[0]
	if p.Ready || p.Phase != PhaseRunning || p.IP == "" {
		t.Fatalf("%+v: want Running, not Ready, its IP kept", p)
	}
	i := slices.IndexFunc(*msgs, func(m Message) bool { return m.Reason == ReasonPodNotReady && m.Kind == KindWrite })
	if i < 0 || (*msgs)[i].From != LaneNodeLife || (*msgs)[i].Sent != u+WriteLatency {
		t.Fatal("the pods were not marked by the node lifecycle controller when the Unknown landed")
	}
	must(t, c.SetNode("node-2", true))
	settle(t, c)
	if p := podsOn(c, "node-2")[0]; !p.Ready || p.Evicting {
		t.Fatalf("back: %+v", p)
	}
	checked(t, c)
}
