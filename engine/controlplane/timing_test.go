package controlplane

import (
	"testing"
	"time"
)

// "A converged demo costs nothing": Lease renewals are derived from time,
// so a converged cluster with every node up has nothing due, however long it
// runs, and its Leases still read as renewed every 10 s.
func TestConvergedClusterSetsNoTimer(t *testing.T) {
	c := live(t, 1)
	for _, d := range []time.Duration{0, time.Second, time.Hour, 24 * time.Hour} {
		c.Advance(d)
		if due, ok := c.NextDue(); ok {
			t.Fatalf("after %v: NextDue = %v", d, due)
		}
		if _, ok := c.NextEvent(); ok {
			t.Fatal("NextEvent on a quiet cluster")
		}
		if _, ok := c.SkipToNext(); ok {
			t.Fatal("SkipToNext on a quiet cluster")
		}
	}
	now := c.Now()
	for _, n := range c.Nodes() {
		if n.Ready != ConditionTrue || n.LastRenew != now/LeaseRenewInterval*LeaseRenewInterval || now-n.LastRenew >= LeaseRenewInterval {
			t.Fatalf("node %+v at %v", n, now)
		}
	}
	if len(c.inflight) != 0 || len(eventsOf(c, EventNodeReady)) != 0 {
		t.Fatal("heartbeats made messages or events")
	}
}

// Ready → Unknown exactly NodeMonitorGracePeriod after the last Lease
// renewal: the renewal grid runs from when the kubelet started.
func TestNodeGoesUnknownFiftySecondsAfterItsLastRenewal(t *testing.T) {
	tests := []struct {
		name      string
		stopAt    time.Duration // virtual time the node stops
		lastRenew time.Duration
	}{
		{"right after the guide", 0, 0},
		{"just before a renewal", 9*time.Second + 999*ms1, 0},
		{"on a renewal", 10 * time.Second, 10 * time.Second},
		{"mid interval", 27 * time.Second, 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := live(t, 2)
			c.Advance(tt.stopAt - c.Now())
			if tt.stopAt < c.Now() {
				c.Advance(0) // the guide ended after stopAt: stop now, last renewal 0
			}
			must(t, c.SetNode("node-2", false))
			if n := nodeView(c, "node-2"); n.LastRenew != tt.lastRenew || n.Kubelet {
				t.Fatalf("stopped node: %+v", n)
			}
			d, ok := c.NextEvent()
			unknownAt := tt.lastRenew + NodeMonitorGracePeriod
			if !ok || d.Kind != DueNodeUnknown || d.Name != "node-2" || c.Now()+d.In != unknownAt {
				t.Fatalf("NextEvent = %+v, %v at %v; want node-unknown at %v", d, ok, c.Now(), unknownAt)
			}
			c.Advance(unknownAt - c.Now() + WriteLatency - ms1)
			if nodeView(c, "node-2").Ready != ConditionTrue {
				t.Fatal("Unknown before the grace period and the write's latency")
			}
			c.Advance(ms1)
			if nodeView(c, "node-2").Ready != ConditionUnknown {
				t.Fatalf("not Unknown at %v", c.Now())
			}
			if e := eventsOf(c, EventNodeReady); len(e) != 1 || e[0].Status != "Unknown" || e[0].At != unknownAt+WriteLatency {
				t.Fatalf("events %+v", e)
			}
			checked(t, c)
		})
	}
}

// The taint follows the Unknown at once; the pods are evicted when their
// toleration (300 s, counted from when the controller saw the taint) ends.
func TestEvictionComesTheTolerationAfterTheTaint(t *testing.T) {
	c := live(t, 3)
	victim := podsOn(c, "node-1")[0].Name
	must(t, c.SetNode("node-1", false))
	_, _ = c.SkipToNext() // the Unknown, decided at 50 s
	settle(t, c)
	n := nodeView(c, "node-1")
	taints := eventsOf(c, EventTaint)
	if !n.Tainted || n.Ready != ConditionUnknown || len(taints) != 1 {
		t.Fatalf("after the Unknown: %+v, %+v", n, taints)
	}
	taintedAt := taints[0].At
	if taintedAt != NodeMonitorGracePeriod+2*WriteLatency {
		t.Fatalf("tainted at %v", taintedAt)
	}
	d, ok := c.NextEvent()
	if !ok || d.Kind != DueEviction || d.Name != "node-1" || c.Now()+d.In != taintedAt+DefaultTolerationSeconds {
		t.Fatalf("NextEvent = %+v at %v, want eviction at %v", d, c.Now(), taintedAt+DefaultTolerationSeconds)
	}
	c.Advance(taintedAt + DefaultTolerationSeconds + WriteLatency - ms1 - c.Now())
	if podsOn(c, "node-1")[0].Phase != PhaseRunning {
		t.Fatal("evicted before the toleration ended")
	}
	c.Advance(ms1)
	if p := podsOn(c, "node-1"); len(p) != 1 || p[0].Name != victim || p[0].Phase != PhaseTerminating {
		t.Fatalf("pods on node-1 at %v: %+v", c.Now(), p)
	}
	checked(t, c)
}

func TestSchedulerBackoffDoublesFromOneSecondToTen(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 10, 10, 10}
	for i, w := range want {
		if got := Backoff(i + 1); got != w*time.Second {
			t.Errorf("Backoff(%d) = %v, want %v", i+1, got, w*time.Second)
		}
	}
	if Backoff(maxAttempts) != MaxBackoff || Backoff(0) != InitialBackoff {
		t.Error("Backoff at the bounds")
	}
}

// A pod that fits nowhere does not keep a timer spinning: it waits in
// unschedulablePods for a cluster event or the 5-minute flush, so NextDue is
// bounded and means a real retry.
func TestUnschedulablePodWaitsForAnEventOrTheFlush(t *testing.T) {
	c := live(t, 4)
	must(t, c.SetNode("node-3", false))
	_, _ = c.SkipToNext() // node-3 Unknown, then tainted
	settle(t, c)
	_, _ = c.SkipToNext() // its pod evicted and replaced on node-1 or node-2
	settle(t, c)
	if _, ok := c.NextDue(); ok {
		t.Fatal("something is due after the eviction")
	}
	must(t, c.SetReplicas(10)) // 8 slots on node-1 and node-2
	settle(t, c)
	pending := 0
	for _, p := range c.Pods() {
		if p.Node == "" {
			pending++
		}
	}
	if pending != 2 {
		t.Fatalf("%d unscheduled pods, want 2 (10 replicas, 8 slots): %+v", pending, c.Pods())
	}
	fails := eventsOf(c, EventFailedScheduling)
	if len(fails) != 2 {
		t.Fatalf("FailedScheduling %+v, want one per pod", fails)
	}
	f := fails[len(fails)-1]
	if f.N != 1 || f.M != 2 || f.K != 1 || f.Wait != InitialBackoff {
		t.Fatalf("FailedScheduling %+v: want attempt 1, 2 nodes full, 1 not ready, backoff 1s", f)
	}
	d, ok := c.NextEvent()
	if !ok || d.Kind != DueRetry || c.Now()+d.In != f.At+UnschedulableFlush {
		t.Fatalf("NextEvent = %+v, %v at %v, want the flush at %v", d, ok, c.Now(), f.At+UnschedulableFlush)
	}
	_, _ = c.SkipToNext()
	fails = eventsOf(c, EventFailedScheduling)
	if len(fails) != 4 || fails[3].N != 2 || fails[3].Wait != 2*time.Second || fails[3].At != f.At+UnschedulableFlush {
		t.Fatalf("the flush did not retry both pods: %+v", fails)
	}
	checked(t, c)
}

// A controller-manager that starts again gives every node a full grace
// period from when it lists them, as the real one stamps probe times with
// its own clock.
func TestRestartedNodeLifecycleControllerGivesAFullGracePeriod(t *testing.T) {
	c := live(t, 5)
	must(t, c.SetComponent(ProcessControllerManager, false))
	must(t, c.SetNode("node-1", false))
	c.Advance(10 * time.Minute)
	if nodeView(c, "node-1").Ready != ConditionTrue {
		t.Fatal("a dead node went Unknown with the controller-manager stopped")
	}
	if _, ok := c.NextDue(); ok {
		t.Fatal("something is due with the node lifecycle controller stopped")
	}
	start := c.Now()
	must(t, c.SetComponent(ProcessControllerManager, true))
	settle(t, c)
	d, ok := c.NextEvent()
	listed := start + WatchLatency
	if !ok || d.Kind != DueNodeUnknown || c.Now()+d.In != listed+NodeMonitorGracePeriod {
		t.Fatalf("NextEvent = %+v at %v, want node-unknown at %v", d, c.Now(), listed+NodeMonitorGracePeriod)
	}
}
