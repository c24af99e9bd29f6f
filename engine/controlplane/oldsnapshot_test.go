package controlplane

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"
)

// loadSnapshot reads a snapshot from testdata. The v1-*.json files were
// written by the engine before snapshot version 2 (taints, podIPs, Ready,
// readyReplicas, per-pod tolerations).
func loadSnapshot(t *testing.T, name string) Snapshot {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	must(t, err)
	var s Snapshot
	must(t, json.Unmarshal(b, &s))
	return s
}

// Version 1 snapshots still restore: a tainted node gets both taints,
// sandboxes and running pods get addresses, running pods are Ready,
// readyReplicas is counted, each pod on a node counting down to its
// eviction gets the node's deadline, and a status write in flight carries
// its pod's IP. The cluster then writes version 2 and carries on.
func TestOldSnapshotRestores(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, c *Cluster)
	}{
		{"v1-tainted.json", func(t *testing.T, c *Cluster) {
			n := nodeView(c, "node-1")
			if !reflect.DeepEqual(n.Taints, unreachableTaints()) || n.Ready != ConditionUnknown {
				t.Fatalf("node-1 %+v", n)
			}
			pods := podsOn(c, "node-1")
			if len(pods) != 2 || pods[0].IP != "10.244.1.2" || pods[1].IP != "10.244.1.3" {
				t.Fatalf("pods on node-1 %+v: want .2 and .3 in name order", pods)
			}
			for _, p := range pods {
				if !p.Evicting || p.EvictAt != c.Now()+239800*ms1 || !p.Ready {
					t.Fatalf("%+v: want Ready (as version 1 had it) and the node's deadline", p)
				}
			}
			if rs, _ := c.ReplicaSetView(); rs.ReadyReplicas != 5 {
				t.Fatalf("readyReplicas %d, want the 5 running pods", rs.ReadyReplicas)
			}
			// What version 1 never did happens now: the node lifecycle
			// controller marks node-1's pods not Ready, and readyReplicas
			// follows.
			if d, ok := c.NextEvent(); !ok || d.Kind != DueNodeLifecycle || d.In != 0 || d.Name != "node-1" {
				t.Fatalf("NextEvent %+v, %v", d, ok)
			}
			_, _ = c.SkipToNext()
			settle(t, c)
			if rs, _ := c.ReplicaSetView(); rs.ReadyReplicas != 3 || podsOn(c, "node-1")[0].Ready {
				t.Fatalf("readyReplicas %d after the marking", rs.ReadyReplicas)
			}
			c.Advance(239800*ms1 + time.Second)
			settle(t, c)
			for _, p := range podsOn(c, "node-1") {
				if p.Phase != PhaseTerminating {
					t.Fatalf("%+v not evicted at the old deadline", p)
				}
			}
		}},
		{"v1-busy.json", func(t *testing.T, c *Cluster) {
			if n := nodeView(c, "node-3"); len(n.Taints) != 2 {
				t.Fatalf("node-3 %+v", n)
			}
			for _, p := range c.Pods() {
				if (p.Phase == PhaseRunning || p.Phase == PhaseTerminating) != (p.IP != "") {
					t.Fatalf("%+v: an IP exactly when Running or stopping", p)
				}
			}
		}},
		{"v1-status-in-flight.json", func(t *testing.T, c *Cluster) {
			in := c.InFlight()
			if len(in) != 1 || in[0].Reason != ReasonPodRunning {
				t.Fatalf("in flight %+v", in)
			}
			o := in[0].Objects[0]
			if i := nodeIndex(o.Node); o.IP != podIP(i, c.rt[i].sandboxes[o.Name].host) {
				t.Fatalf("the status write in flight carries %q, not its sandbox's IP", o.IP)
			}
			settle(t, c)
			if rs, _ := c.ReplicaSetView(); rs.ReadyReplicas != 6 || !c.Converged() {
				t.Fatalf("readyReplicas %d", rs.ReadyReplicas)
			}
			if p := podsOn(c, o.Node); !slicesContainsIP(p, o.IP) {
				t.Fatalf("pods on %s %+v: none has %s", o.Node, p, o.IP)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			old := loadSnapshot(t, tt.file)
			if old.V != 1 {
				t.Fatalf("%s is version %d", tt.file, old.V)
			}
			c, err := Restore(old)
			if err != nil {
				t.Fatal(err)
			}
			checked(t, c)
			if s := c.Snapshot(); s.V != SnapshotVersion {
				t.Fatalf("the restored cluster writes version %d", s.V)
			}
			roundTrip(t, c)
			c, _ = Restore(old)
			tt.check(t, c)
			c.Advance(10 * time.Minute)
			checked(t, c)
		})
	}
}

func slicesContainsIP(pods []PodView, ip string) bool {
	for _, p := range pods {
		if p.IP == ip {
			return true
		}
	}
	return false
}

// A version 1 snapshot holding what only version 2 writes was not written
// by any engine: it is refused.
func TestOldSnapshotWithNewFieldsIsRefused(t *testing.T) {
	tests := map[string]func(s *Snapshot){
		"taints":        func(s *Snapshot) { s.Live.Nodes[0].Taints = unreachableTaints() },
		"pod IP":        func(s *Snapshot) { s.Live.Pods[0].IP = "10.244.1.2" },
		"pod Ready":     func(s *Snapshot) { s.Live.Pods[0].Ready = true },
		"readyReplicas": func(s *Snapshot) { s.Live.RSReady = 1 },
		"sandbox IP":    func(s *Snapshot) { s.Live.Nodes[0].Sandboxes[0].IP = "10.244.1.2" },
		"last host":     func(s *Snapshot) { s.Live.Nodes[0].LastHost = 2 },
		"tolerations":   func(s *Snapshot) { s.Live.CM.Nodes[0].Tolerations = map[string]int64{s.Live.Pods[0].Name: 1} },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			s := loadSnapshot(t, "v1-tainted.json")
			mutate(&s)
			if c, err := Restore(s); err == nil || c != nil {
				t.Fatal("accepted")
			}
		})
	}
}
