package controlplane

import (
	"testing"
	"time"
)

const ms1 = time.Millisecond

// live returns a cluster whose guide is over and whose status roll-up has
// landed: three pods Running and Ready, one per node, readyReplicas 3 on the
// ReplicaSet and the Deployment, nothing in flight.
func live(t *testing.T, seed uint64) *Cluster {
	t.Helper()
	c := New(seed)
	c.FinishGuide()
	settle(t, c)
	if rs, _ := c.ReplicaSetView(); !c.Converged() || rs.ReadyReplicas != 3 {
		t.Fatalf("the guide did not converge: %+v", c.Pods())
	}
	return c
}

// traced records every message delivered from now on.
func traced(c *Cluster) *[]Message {
	var out []Message
	c.trace = func(m Message) { out = append(out, m) }
	return &out
}

// settle advances until nothing is in flight (timers may remain), at most a
// minute of virtual time.
func settle(t *testing.T, c *Cluster) {
	t.Helper()
	for range 600 {
		if len(c.inflight) == 0 {
			return
		}
		c.Advance(100 * ms1)
	}
	t.Fatalf("messages still in flight after a minute: %+v", c.InFlight())
}

// checked fails the test if an invariant does not hold.
func checked(t *testing.T, c *Cluster) {
	t.Helper()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if c.stalled {
		t.Fatal("an Advance hit maxItems")
	}
}

func phases(c *Cluster) map[Phase]int {
	out := map[Phase]int{}
	for _, p := range c.Pods() {
		out[p.Phase]++
	}
	return out
}

func podsOn(c *Cluster, node string) []PodView {
	var out []PodView
	for _, p := range c.Pods() {
		if p.Node == node {
			out = append(out, p)
		}
	}
	return out
}

func nodeView(c *Cluster, name string) NodeView {
	for _, n := range c.Nodes() {
		if n.Name == name {
			return n
		}
	}
	return NodeView{}
}

func eventsOf(c *Cluster, kind string) []Event {
	var out []Event
	for _, e := range c.Events() {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
