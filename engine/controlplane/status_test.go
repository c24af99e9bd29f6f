package controlplane

import (
	"slices"
	"testing"
	"time"
)

// The kubelet's status write (the guide's eleventh message) sets phase
// Running, podIP and Ready=True together: 「status.phase と status.podIP を
// 書いたのも、kubelet です」. The IP is its sandbox's, from the node's podCIDR,
// handed out when RunPodSandbox set up the network, and the pod keeps it.
func TestKubeletWritesPodIPAndReady(t *testing.T) {
	c := New(60)
	for range GuideSteps - 1 {
		_, err := c.Next()
		must(t, err)
	}
	for _, p := range c.Pods() {
		if p.IP != "" || p.Ready || p.Container != StateRunning {
			t.Fatalf("before the status write: %+v", p)
		}
	}
	m, err := c.Next()
	must(t, err)
	if m.Reason != ReasonPodRunning || m.From != LaneKubelet || len(m.Objects) != 3 {
		t.Fatalf("message 11 %+v", m)
	}
	for _, o := range m.Objects {
		if o.IP != podIP(nodeIndex(o.Node), firstHost) {
			t.Fatalf("the status write carries %+v: want the sandbox's IP", o)
		}
	}
	for _, p := range c.Pods() {
		n := nodeView(c, p.Node)
		if !p.Ready || p.Phase != PhaseRunning || p.IP != "10.244."+p.Node[len("node-"):]+".2" || n.PodCIDR != "10.244."+p.Node[len("node-"):]+".0/24" {
			t.Fatalf("pod %+v on %+v", p, n)
		}
	}
	if e := eventsOf(c, EventPodRunning); len(e) != 3 || e[0].Status == "" {
		t.Fatalf("pod-running events %+v: want the podIP in Status", e)
	}

	// The IP is the pod's for its life; a replacement on the same node gets
	// the next address (host-local goes round robin, so .2 is not handed
	// out again at once).
	settle(t, c)
	victim := podsOn(c, "node-1")[0]
	c.Advance(time.Hour)
	if p := podsOn(c, "node-1")[0]; p.IP != victim.IP {
		t.Fatalf("the IP moved: %+v → %+v", victim, p)
	}
	must(t, c.KillPod(victim.Name))
	settle(t, c)
	got := podsOn(c, "node-1")
	if len(got) != 1 || got[0].Name == victim.Name || got[0].IP != "10.244.1.3" || !got[0].Ready {
		t.Fatalf("replacement on node-1 %+v: want 10.244.1.3", got)
	}
	checked(t, c)
}

// IPs are unique on a node and handed out round robin over .2–.254, so a
// node that starts and stops many pods wraps around and skips the addresses
// still held.
func TestPodIPsWrapRoundRobinAndStayUnique(t *testing.T) {
	r := nodeRuntime{sandboxes: map[string]*sandbox{}, lastHost: lastHost - 1}
	r.sandboxes["held"] = &sandbox{host: firstHost}
	var got []int
	for _, name := range []string{"a", "b", "c"} {
		r.apply([]string{CallRunPodSandbox}, name)
		got = append(got, r.sandboxes[name].host)
	}
	if want := []int{lastHost, firstHost + 1, firstHost + 2}; !slices.Equal(got, want) {
		t.Fatalf("hosts %v, want %v", got, want)
	}
	r.apply([]string{CallRunPodSandbox}, "a")
	if r.sandboxes["a"].host != lastHost || r.lastHost != firstHost+2 {
		t.Fatal("RunPodSandbox again for a sandbox that exists reserved another address")
	}
	for _, tt := range []struct {
		ip string
		ok bool
	}{{"10.244.1.2", true}, {"10.244.1.254", true}, {"10.244.1.1", false}, {"10.244.1.255", false},
		{"10.244.2.2", false}, {"10.244.1.02", false}, {"10.244.1.", false}, {"", false}} {
		if _, ok := hostOf(0, tt.ip); ok != tt.ok {
			t.Errorf("hostOf(node-1, %q) = %v", tt.ip, ok)
		}
	}
	if PodCIDR("node-3") != "10.244.3.0/24" || PodCIDR("node-9") != "" {
		t.Error("PodCIDR")
	}
}

// readyReplicas is written by the controllers that own it, as real ones
// do: the ReplicaSet controller counts its Ready pods that are not
// terminating, the Deployment controller adds up its ReplicaSets'. It
// follows the pods: up as they start, down when a node goes Unknown (its
// pods marked not Ready) or a pod is killed, back up as replacements run.
func TestReadyReplicas(t *testing.T) {
	ready := func(c *Cluster) (rs, d int) {
		r, _ := c.ReplicaSetView()
		w, _ := c.DeploymentView()
		return r.ReadyReplicas, w.ReadyReplicas
	}
	tests := []struct {
		name  string
		story func(t *testing.T, c *Cluster)
		want  int
	}{
		{"after the guide", func(*testing.T, *Cluster) {}, 3},
		{"scaled up", func(t *testing.T, c *Cluster) { must(t, c.SetReplicas(5)); settle(t, c) }, 5},
		{"scaled down", func(t *testing.T, c *Cluster) { must(t, c.SetReplicas(1)); settle(t, c) }, 1},
		{"node Unknown, before the eviction", func(t *testing.T, c *Cluster) {
			c.Advance(unknownAt(t, c, "node-2") - c.Now())
			settle(t, c)
		}, 2},
		{"node Unknown, after the eviction", func(t *testing.T, c *Cluster) {
			c.Advance(unknownAt(t, c, "node-2") + DefaultTolerationSeconds + time.Second - c.Now())
			settle(t, c)
		}, 3},
		{"node back before the eviction", func(t *testing.T, c *Cluster) {
			c.Advance(unknownAt(t, c, "node-2") + time.Minute - c.Now())
			must(t, c.SetNode("node-2", true))
			settle(t, c)
		}, 3},
		{"controller-manager stopped: stale", func(t *testing.T, c *Cluster) {
			must(t, c.SetComponent(ProcessControllerManager, false))
			must(t, c.KillPod(c.Pods()[0].Name))
			settle(t, c)
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := live(t, 61)
			tt.story(t, c)
			if rs, d := ready(c); rs != tt.want || d != tt.want {
				t.Fatalf("readyReplicas: ReplicaSet %d, Deployment %d; want %d", rs, d, tt.want)
			}
			checked(t, c)
		})
	}
	t.Run("the ReplicaSet's first, then the Deployment's", func(t *testing.T) {
		c := New(62)
		msgs := traced(c)
		c.FinishGuide()
		settle(t, c)
		var order []string
		for _, m := range *msgs {
			if m.Kind == KindWrite && (m.Reason == ReasonRSStatus || m.Reason == ReasonDeployStatus) {
				order = append(order, m.From)
				if m.Value != 3 || m.Sub != SubStatus {
					t.Fatalf("status write %+v", m)
				}
			}
		}
		if !slices.Equal(order, []string{LaneReplicaSet, LaneDeployment}) {
			t.Fatalf("status writes by %v", order)
		}
	})
	t.Run("a killed pod counts no more at once", func(t *testing.T) {
		c := live(t, 63)
		must(t, c.KillPod(c.Pods()[0].Name))
		for range 20 {
			if rs, _ := ready(c); rs == 2 {
				break
			}
			_, _ = c.Step()
		}
		rs, _ := ready(c)
		if rs != 2 {
			t.Fatalf("readyReplicas %d while the replacement starts", rs)
		}
		settle(t, c)
		if rs, d := ready(c); rs != 3 || d != 3 {
			t.Fatalf("readyReplicas %d, %d after the replacement", rs, d)
		}
	})
}
