package controlplane

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// busy returns a live cluster in the middle of everything: a node dead and
// tainted with evicted pods, the scheduler stopped with a restart due, a
// pod unschedulable, messages in flight through dockershim.
func busy(t *testing.T) *Cluster {
	t.Helper()
	c := live(t, 40)
	must(t, c.SetReplicas(9))
	settle(t, c)
	must(t, c.SetNode("node-3", false))
	_, _ = c.SkipToNext()
	settle(t, c)
	_, _ = c.SkipToNext()
	settle(t, c)
	must(t, c.SetRuntime(RuntimeDockershim))
	must(t, c.PresetSchedulerOutage())
	c.Advance(450 * ms1) // a pod killed: its replacement and its stop on their way
	return c
}

func roundTrip(t *testing.T, c *Cluster) {
	t.Helper()
	snap := c.Snapshot()
	b, err := json.Marshal(snap)
	must(t, err)
	if len(b) > 8<<10 {
		t.Fatalf("snapshot is %d bytes", len(b))
	}
	var back Snapshot
	must(t, json.Unmarshal(b, &back))
	r, err := Restore(back)
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, b)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, snap)
	}
	if !reflect.DeepEqual(r.Pods(), c.Pods()) || !reflect.DeepEqual(r.Nodes(), c.Nodes()) ||
		!reflect.DeepEqual(r.InFlight(), c.InFlight()) || !reflect.DeepEqual(r.Components(), c.Components()) {
		t.Fatal("the restored cluster looks different")
	}
	// The restored cluster goes on exactly as the original.
	for _, d := range []time.Duration{100 * ms1, time.Second, time.Minute, 10 * time.Minute} {
		c.Advance(d)
		r.Advance(d)
		if !reflect.DeepEqual(c.Snapshot(), r.Snapshot()) {
			t.Fatalf("diverged after %v", d)
		}
	}
}

func TestSnapshotRoundTrips(t *testing.T) {
	t.Run("guide", func(t *testing.T) {
		for n := 0; n <= GuideSteps; n++ {
			c := New(41)
			must(t, c.SetRuntime(RuntimeDockershim))
			for range n {
				_, _ = c.Next()
			}
			snap := c.Snapshot()
			if snap.Live != nil || snap.Guide != n {
				t.Fatalf("guide snapshot %+v", snap)
			}
			r, err := Restore(snap)
			must(t, err)
			if !reflect.DeepEqual(r.Messages(), c.Messages()) || !reflect.DeepEqual(r.InFlight(), c.InFlight()) || r.Now() != c.Now() {
				t.Fatalf("the guide at %d did not come back", n)
			}
		}
	})
	t.Run("converged", func(t *testing.T) {
		c := live(t, 42)
		c.Advance(time.Second)
		roundTrip(t, c)
	})
	t.Run("busy", func(t *testing.T) { roundTrip(t, busy(t)) })
	t.Run("controller-manager restarting", func(t *testing.T) {
		c := live(t, 43)
		must(t, c.SetComponent(ProcessControllerManager, false))
		must(t, c.KillPod(c.Pods()[0].Name))
		must(t, c.SetComponent(ProcessControllerManager, true))
		roundTrip(t, c)
	})
	t.Run("mid-step", func(t *testing.T) {
		c := live(t, 44)
		must(t, c.KillPod(c.Pods()[1].Name))
		_, _ = c.SkipToNext()
		_, _ = c.Step() // one of two notifications due at the same moment
		roundTrip(t, c)
	})
}

func TestRestoreLogsRestoredAndKeepsSeqs(t *testing.T) {
	c := busy(t)
	r, err := Restore(c.Snapshot())
	must(t, err)
	if e := r.Events(); len(e) != 1 || e[0].Kind != EventRestored || len(r.Messages()) != 0 {
		t.Fatalf("events %+v", e)
	}
	must(t, r.SetReplicas(2))
	if in := r.InFlight(); in[len(in)-1].Seq <= c.msgSeq-1 {
		t.Fatal("a new message reused a sequence number")
	}
}

// Restore refuses every snapshot the engine could not have written, and
// never panics.
func TestRestoreRefusesForgedSnapshots(t *testing.T) {
	base := busy(t).Snapshot()
	if base.Live == nil || len(base.Live.InFlight) == 0 || len(base.Live.Scheduler.Queue) == 0 && !base.Live.Scheduler.Restart {
		t.Fatalf("the base snapshot is not busy enough: %+v", base.Live)
	}
	clone := func() Snapshot {
		b, _ := json.Marshal(base)
		var s Snapshot
		_ = json.Unmarshal(b, &s)
		return s
	}
	firstPod := func(s *Snapshot) *PodState { return &s.Live.Pods[0] }
	tests := map[string]func(s *Snapshot){
		"version":             func(s *Snapshot) { s.V = 3 },
		"version 0":           func(s *Snapshot) { s.V = 0 },
		"seed":                func(s *Snapshot) { s.Seed = "-1" },
		"seed with zeros":     func(s *Snapshot) { s.Seed = "007" },
		"runtime":             func(s *Snapshot) { s.Runtime = "docker" },
		"guide step":          func(s *Snapshot) { s.Guide = 12 },
		"live mid-guide":      func(s *Snapshot) { s.Guide = 5 },
		"negative time":       func(s *Snapshot) { s.Live.Now = -1 },
		"huge time":           func(s *Snapshot) { s.Live.Now = maxSnapshotNow + 1 },
		"rand":                func(s *Snapshot) { s.Live.Rand = "x" },
		"rv":                  func(s *Snapshot) { s.Live.RV = 0 },
		"msg seq":             func(s *Snapshot) { s.Live.MsgSeq = -1 },
		"replicas":            func(s *Snapshot) { s.Live.Replicas = 11 },
		"rs replicas":         func(s *Snapshot) { s.Live.RSReplicas = -1 },
		"deploy rv":           func(s *Snapshot) { s.Live.DeployRV = s.Live.RV + 1 },
		"pod name":            func(s *Snapshot) { firstPod(s).Name = "web-aeiou" },
		"pod name alphabet":   func(s *Snapshot) { n := firstPod(s); n.Name = n.Name[:len(n.Name)-1] + "a" },
		"pod order":           func(s *Snapshot) { s.Live.Pods[0], s.Live.Pods[1] = s.Live.Pods[1], s.Live.Pods[0] },
		"duplicate pod":       func(s *Snapshot) { s.Live.Pods[1] = s.Live.Pods[0] },
		"pod node":            func(s *Snapshot) { firstPod(s).Node = "node-9" },
		"pod created":         func(s *Snapshot) { firstPod(s).Created = firstPod(s).RV + 1 },
		"pod created twice":   func(s *Snapshot) { s.Live.Pods[1].Created = s.Live.Pods[0].Created },
		"running unbound":     func(s *Snapshot) { p := firstPod(s); p.Node, p.Running, p.Terminating = "", true, false },
		"too many pods":       func(s *Snapshot) { s.Live.Pods = append(s.Live.Pods, make([]PodState, MaxPods)...) },
		"node count":          func(s *Snapshot) { s.Live.Nodes = s.Live.Nodes[:2] },
		"node name":           func(s *Snapshot) { s.Live.Nodes[0].Name = "node-0" },
		"node ready":          func(s *Snapshot) { s.Live.Nodes[0].Ready = "False" },
		"lease ahead":         func(s *Snapshot) { s.Live.Nodes[0].LeaseAgo = -1 },
		"lease before time":   func(s *Snapshot) { s.Live.Nodes[0].LeaseAgo = s.Live.Now + 1 },
		"sandbox of nobody":   func(s *Snapshot) { s.Live.Nodes[0].Sandboxes = []SandboxState{{Pod: ReplicaSetName() + "-bbbbb"}} },
		"synced stopped":      func(s *Snapshot) { s.Live.Nodes[2].Synced = true },
		"restart running":     func(s *Snapshot) { s.Live.Scheduler.Running = true },
		"restart too far":     func(s *Snapshot) { s.Live.Scheduler.RestartIn = int64(2 * SchedulerOutage / time.Millisecond) },
		"restart time alone":  func(s *Snapshot) { s.Live.Scheduler.Restart = false },
		"queue unsynced":      func(s *Snapshot) { s.Live.Scheduler.Queue = []QueuedState{{Pod: firstPod(s).Name, Attempts: 1}} },
		"nlc nodes":           func(s *Snapshot) { s.Live.CM.Nodes = s.Live.CM.Nodes[:1] },
		"nlc evict far":       func(s *Snapshot) { s.Live.CM.Nodes[2].EvictIn = int64(DefaultTolerationSeconds/time.Millisecond) + 1 },
		"nlc since ahead":     func(s *Snapshot) { s.Live.CM.Nodes[0].SinceAgo = -5 },
		"nlc unsynced memory": func(s *Snapshot) { s.Live.CM.Synced[2] = false },
		"cm synced stopped":   func(s *Snapshot) { s.Live.CM.Running = false },
		"message seq":         func(s *Snapshot) { s.Live.InFlight[0].Seq = s.Live.MsgSeq + 1 },
		"message shape":       func(s *Snapshot) { s.Live.InFlight[0].From = LaneScheduler },
		"message lane":        func(s *Snapshot) { s.Live.InFlight[0].To = "etcd" },
		"message latency":     func(s *Snapshot) { s.Live.InFlight[0].In += 1 },
		"message object":      func(s *Snapshot) { s.Live.InFlight[0].Objects = []Object{{Name: "x"}} },
		"message no objects":  func(s *Snapshot) { s.Live.InFlight[0].Objects = nil },
		"message value":       func(s *Snapshot) { s.Live.InFlight[0].Value = 99 },
		"message calls":       func(s *Snapshot) { s.Live.InFlight[0].Calls = []string{CallPullImage} },
		"message order":       func(s *Snapshot) { s.Live.InFlight = append(s.Live.InFlight, s.Live.InFlight[0]) },
		"too many in flight":  func(s *Snapshot) { s.Live.InFlight = make([]MessageState, MaxInFlight+1) },
		"sent in the future":  func(s *Snapshot) { s.Live.InFlight[0].SentAgo = -1 },
		"capacity":            func(s *Snapshot) { overfill(s) },
		"queued bad attempts": func(s *Snapshot) {
			s.Live.Scheduler.Synced = true
			s.Live.Scheduler.Running = true
			s.Live.Scheduler.Restart = false
			s.Live.Scheduler.RestartIn = 0
			s.Live.Scheduler.Queue = []QueuedState{{Pod: firstPod(s).Name}}
		},
		"sandboxes out of order": func(s *Snapshot) {
			n := &s.Live.Nodes[0]
			n.Sandboxes = append(n.Sandboxes, n.Sandboxes[0])
		},
		"pod IP of another node": func(s *Snapshot) { runningOn(s, "node-1")[0].IP = "10.244.2.9" },
		"pod IP twice": func(s *Snapshot) {
			p := runningOn(s, "node-1")
			p[1].IP = p[0].IP
		},
		"pod IP, not running": func(s *Snapshot) {
			for i := range s.Live.Pods {
				if p := &s.Live.Pods[i]; !p.Running {
					p.IP = "10.244.1.9"
				}
			}
		},
		"running without IP":   func(s *Snapshot) { runningOn(s, "node-1")[0].IP = "" },
		"IP not its sandbox's": func(s *Snapshot) { runningOn(s, "node-1")[0].IP = "10.244.1.200" },
		"ready, not running": func(s *Snapshot) {
			for i := range s.Live.Pods {
				if p := &s.Live.Pods[i]; !p.Running {
					p.Ready = true
				}
			}
		},
		"one taint":            func(s *Snapshot) { s.Live.Nodes[2].Taints = s.Live.Nodes[2].Taints[:1] },
		"another taint":        func(s *Snapshot) { s.Live.Nodes[2].Taints[0].Key = "example.com/gpu" },
		"version 1 taint":      func(s *Snapshot) { s.Live.Nodes[0].Tainted = true },
		"sandbox IP":           func(s *Snapshot) { s.Live.Nodes[0].Sandboxes[0].IP = "10.244.1.1" },
		"sandbox IP elsewhere": func(s *Snapshot) { s.Live.Nodes[0].Sandboxes[0].IP = "10.244.2.2" },
		"sandbox IP twice": func(s *Snapshot) {
			n := &s.Live.Nodes[0]
			n.Sandboxes[1].IP = n.Sandboxes[0].IP
		},
		"last host":            func(s *Snapshot) { s.Live.Nodes[0].LastHost = 255 },
		"rs readyReplicas":     func(s *Snapshot) { s.Live.RSReady = MaxReplicas + 1 },
		"deploy readyReplicas": func(s *Snapshot) { s.Live.DeployReady = -1 },
		"message IP":           func(s *Snapshot) { s.Live.InFlight[0].Objects[0].IP = "10.244.1.2" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			s := clone()
			mutate(&s)
			c, err := Restore(s)
			if err == nil || c != nil {
				t.Fatalf("accepted %s", name)
			}
			if !strings.HasPrefix(err.Error(), "restore snapshot: ") {
				t.Fatalf("error %q is not wrapped", err)
			}
		})
	}
	if _, err := Restore(clone()); err != nil {
		t.Fatalf("the unforged snapshot: %v", err)
	}
}

// runningOn returns the pods of a snapshot running on node, not terminating.
func runningOn(s *Snapshot, node string) []*PodState {
	var out []*PodState
	for i := range s.Live.Pods {
		if p := &s.Live.Pods[i]; p.Node == node && p.Running && !p.Terminating {
			out = append(out, p)
		}
	}
	return out
}

// countingDown returns a live cluster whose node-1 is tainted, its pods'
// tolerations running out.
func countingDown(t *testing.T) *Cluster {
	t.Helper()
	c := live(t, 45)
	must(t, c.SetReplicas(5))
	settle(t, c)
	must(t, c.SetNode("node-1", false))
	_, _ = c.SkipToNext()
	settle(t, c)
	c.Advance(time.Minute)
	return c
}

// The node lifecycle controller's per-pod tolerations are checked against
// the pods: a snapshot whose tolerations it could not have is refused.
func TestRestoreRefusesForgedTolerations(t *testing.T) {
	base := countingDown(t).Snapshot()
	nlc := func(s *Snapshot) *NLCNodeState { return &s.Live.CM.Nodes[0] }
	if n := nlc(&base); len(n.Tolerations) != 2 || !n.Evict {
		t.Fatalf("base %+v", n)
	}
	pod := func(s *Snapshot, node string) string {
		for _, p := range s.Live.Pods {
			if p.Node == node {
				return p.Name
			}
		}
		return ""
	}
	tests := map[string]func(s *Snapshot){
		"a pod elsewhere":   func(s *Snapshot) { nlc(s).Tolerations[pod(s, "node-2")] = 1000 },
		"an unknown pod":    func(s *Snapshot) { nlc(s).Tolerations[ReplicaSetName()+"-bbbbb"] = 1000 },
		"too far":           func(s *Snapshot) { nlc(s).Tolerations[pod(s, "node-1")] = 300001 },
		"countdown differs": func(s *Snapshot) { nlc(s).EvictIn-- },
		"no countdown":      func(s *Snapshot) { nlc(s).Evict, nlc(s).EvictIn = false, 0 },
		"on a node untainted": func(s *Snapshot) {
			s.Live.CM.Nodes[1].Tolerations = map[string]int64{pod(s, "node-2"): 1000}
			s.Live.CM.Nodes[1].Evict, s.Live.CM.Nodes[1].EvictIn = true, 1000
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			b, _ := json.Marshal(base)
			var s Snapshot
			must(t, json.Unmarshal(b, &s))
			mutate(&s)
			if c, err := Restore(s); err == nil || c != nil {
				t.Fatal("accepted")
			}
		})
	}
	roundTrip(t, countingDown(t))
}

// overfill binds a fifth pod to node-1.
func overfill(s *Snapshot) {
	n := 0
	for i := range s.Live.Pods {
		if p := &s.Live.Pods[i]; p.Node != "node-1" && n < NodeCapacity+1 {
			p.Node, p.Running, p.Terminating = "node-1", false, false
		}
		if s.Live.Pods[i].Node == "node-1" {
			n++
		}
	}
}

// A caller's clock is not made of milliseconds: a browser session advances
// by whatever real time passed, scaled by its speed. Snapshots are in
// milliseconds, so the clock moves in whole milliseconds and Advance carries
// the rest (kept in the snapshot): every snapshot restores, round-trips, and
// the restored cluster goes on exactly as the original. (A message sent at
// 50 000.4 ms once wrote sentAgo 1 and in 198, which Restore refused: its
// latency did not match its shape.)
func TestSubMillisecondAdvanceRestores(t *testing.T) {
	c := live(t, 43)
	step := 9*ms1 + 377*time.Microsecond + 13
	var total time.Duration
	start := c.Now()
	for i := range 12000 {
		if i == 500 {
			_, _ = c.PresetNodeOutage()
		}
		if i == 900 {
			must(t, c.SetReplicas(7))
		}
		c.Advance(step)
		total += step
		if i%97 != 0 {
			continue
		}
		snap := c.Snapshot()
		b, err := json.Marshal(snap)
		if err != nil {
			t.Fatal(err)
		}
		var back Snapshot
		must(t, json.Unmarshal(b, &back))
		r, err := Restore(back)
		if err != nil {
			t.Fatalf("step %d at %v: restore: %v\n%s", i, c.Now(), err, b)
		}
		if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
			t.Fatalf("step %d: round trip:\n got %+v\nwant %+v", i, got, snap)
		}
		c2 := r
		for range 5 {
			c.Advance(step)
			c2.Advance(step)
		}
		total += 5 * step
		if !reflect.DeepEqual(c.Snapshot(), c2.Snapshot()) {
			t.Fatalf("step %d: the restored cluster diverged", i)
		}
	}
	if got := c.Now() - start; got > total || total-got >= ms1 {
		t.Fatalf("advanced %v in all, the clock moved %v", total, got)
	}
	if c.Now()%ms1 != 0 {
		t.Fatalf("the clock is off the millisecond: %v", c.Now())
	}
}
