package controlplane

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The fuzz target decodes its input as a program: two bytes per operation,
// an opcode and an argument.
const (
	opNext     = iota // guide: Next
	opBack            // guide: Back
	opReplicas        // SetReplicas(arg%13 - 1): -1 and 11 are refused
	opKill            // kill pod arg%len, or an unknown name
	opSched           // toggle the scheduler
	opCM              // toggle the controller-manager
	opNode            // toggle node arg%4 (node-4 does not exist)
	opAdvance         // Advance(arg × 50 ms)
	opLong            // Advance(arg × 10 s)
	opSkip            // SkipToNext
	opStep            // Step
	opRuntime         // toggle the runtime stack
	opPreset          // a preset: scheduler outage (arg even) or node outage
	opRestore         // continue with the cluster rebuilt from its JSON snapshot
	opFinish          // FinishGuide
	numOps
)

const maxOps = 80

// fuzzCluster runs a program against a cluster and checks the invariants
// after every operation.
func runProgram(t *testing.T, seed uint64, data []byte) {
	c := New(seed)
	var delivered []Message
	trace := func(m Message) { delivered = append(delivered, m) }
	// Binding decisions: no node chosen has a NoSchedule taint (the pods
	// tolerate none), and each has room for the pass's pods beside those
	// bound or being bound. A node that is not Ready but not tainted yet may
	// be chosen, as kube-scheduler does.
	var bindErr string
	onBind := func(binds []Object) {
		extra := map[string]int{}
		for _, m := range c.inflight {
			if m.Reason == ReasonBind && m.Kind == KindWrite {
				for _, o := range m.Objects {
					extra[o.Node]++
				}
			}
		}
		for _, o := range binds {
			extra[o.Node]++
			n := c.api.node(o.Node)
			if n.hasEffect(EffectNoSchedule) || c.api.assigned(o.Node)+extra[o.Node] > NodeCapacity {
				bindErr = "bound " + o.Name + " to " + o.Node
			}
		}
	}
	c.trace, c.onBind = trace, onBind
	// A pod keeps its IP for its life: by name and UID, the IP it had.
	ips := map[string]seenIP{}
	for i := 0; i+1 < len(data) && i < 2*maxOps; i += 2 {
		op, arg := int(data[i])%numOps, data[i+1]
		before := c.Snapshot()
		now := c.Now()
		var err error
		switch op {
		case opNext:
			_, err = c.Next()
		case opBack:
			err = c.Back()
		case opReplicas:
			n := int(arg)%13 - 1
			err = c.SetReplicas(n)
			if (err == nil) != (n >= 0 && n <= MaxReplicas && c.guide == GuideSteps) {
				t.Fatalf("SetReplicas(%d) = %v", n, err)
			}
		case opKill:
			name := "web-nope"
			if pods := c.Pods(); len(pods) > 0 && arg < 240 {
				name = pods[int(arg)%len(pods)].Name
			}
			err = c.KillPod(name)
		case opSched:
			err = c.SetComponent(ProcessScheduler, !c.running[ProcessScheduler])
		case opCM:
			err = c.SetComponent(ProcessControllerManager, !c.running[ProcessControllerManager])
		case opNode:
			name := "node-" + string(rune('1'+arg%4))
			err = c.SetNode(name, !c.running[name])
			if (err == nil) != (arg%4 < 3 && c.guide == GuideSteps) {
				t.Fatalf("SetNode(%s) = %v", name, err)
			}
		case opAdvance:
			c.Advance(time.Duration(arg) * 50 * ms1)
		case opLong:
			c.Advance(time.Duration(arg) * 10 * time.Second)
		case opSkip:
			due, ok := c.NextDue()
			d, moved := c.SkipToNext()
			if ok != moved || (ok && d != due) {
				t.Fatalf("SkipToNext moved %v, %v; NextDue said %v, %v", d, moved, due, ok)
			}
		case opStep:
			due, ok := c.NextDue()
			d, moved := c.Step()
			if ok != moved || (ok && d != due) {
				t.Fatalf("Step moved %v, %v; NextDue said %v, %v", d, moved, due, ok)
			}
		case opRuntime:
			rt := RuntimeDockershim
			if c.Runtime() == rt {
				rt = RuntimeContainerd
			}
			err = c.SetRuntime(rt)
		case opPreset:
			if arg%2 == 0 {
				err = c.PresetSchedulerOutage()
			} else {
				_, err = c.PresetNodeOutage()
			}
		case opRestore:
			b, jerr := json.Marshal(before)
			if jerr != nil {
				t.Fatal(jerr)
			}
			var s Snapshot
			if jerr := json.Unmarshal(b, &s); jerr != nil {
				t.Fatal(jerr)
			}
			r, rerr := Restore(s)
			if rerr != nil {
				t.Fatalf("snapshot does not restore: %v\n%s", rerr, b)
			}
			c = r
			c.trace, c.onBind = trace, onBind
		case opFinish:
			c.FinishGuide()
		}
		if err != nil && op != opNext && op != opBack && op != opPreset {
			if after := c.Snapshot(); !reflect.DeepEqual(after, before) {
				t.Fatalf("op %d refused (%v) but changed the cluster", op, err)
			}
		}
		// Back, and a runtime switch during the guide, replay the guide.
		if c.Now() < now && op != opBack && !(op == opRuntime && before.Live == nil) {
			t.Fatalf("op %d: time went back from %v to %v", op, now, c.Now())
		}
		if bindErr != "" {
			t.Fatalf("op %d: %s", op, bindErr)
		}
		checkInvariants(t, c, delivered)
		checkIPs(t, c, ips)
		delivered = delivered[:0]
	}
}

// seenIP is the IP a pod was seen with.
type seenIP struct {
	uid int64
	ip  string
}

// checkIPs checks that no two pods on a node share an IP and that a pod's
// IP, once written, never changes.
func checkIPs(t *testing.T, c *Cluster, seen map[string]seenIP) {
	t.Helper()
	onNode := map[string]string{}
	for _, p := range c.api.sortedPods() {
		if p.ip == "" {
			continue
		}
		if other, ok := onNode[p.node+" "+p.ip]; ok {
			t.Fatalf("%s and %s share %s on %s", other, p.name, p.ip, p.node)
		}
		onNode[p.node+" "+p.ip] = p.name
		if was, ok := seen[p.name]; ok && was.uid == p.created && was.ip != p.ip {
			t.Fatalf("%s's IP moved from %s to %s", p.name, was.ip, p.ip)
		}
		seen[p.name] = seenIP{p.created, p.ip}
	}
}

// checkInvariants checks what holds between any two operations.
func checkInvariants(t *testing.T, c *Cluster, delivered []Message) {
	t.Helper()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if c.stalled {
		t.Fatal("an Advance hit maxItems")
	}
	for _, m := range append(delivered, c.InFlight()...) {
		if !nobodyCallsAnybody(m) || !validShape(&m) || m.Arrive < m.Sent {
			t.Fatalf("message %+v", m)
		}
	}
	for _, m := range delivered {
		if m.Arrive > c.Now() {
			t.Fatalf("message %d delivered before its time", m.Seq)
		}
	}
	if len(c.Events()) > MaxEvents || len(c.Messages()) > DiagramSize || len(c.inflight) > MaxInFlight {
		t.Fatal("a log outgrew its bound")
	}
	// Converged: with nothing in flight and the controllers listening, the
	// ReplicaSet has exactly its replicas of pods that are not terminating.
	if len(c.inflight) == 0 && c.synced[LaneReplicaSet] && c.synced[LaneDeployment] && c.api.rs != nil {
		alive := 0
		for _, p := range c.api.pods {
			if !p.terminating {
				alive++
			}
		}
		if alive != c.api.rs.replicas || c.api.rs.replicas != c.api.deploy.replicas {
			t.Fatalf("quiet with %d pods alive, ReplicaSet %d, Deployment %d", alive, c.api.rs.replicas, c.api.deploy.replicas)
		}
		// … and readyReplicas counts the Ready ones, on both.
		ready := 0
		for _, p := range c.api.pods {
			if p.ready && !p.terminating {
				ready++
			}
		}
		if c.api.rs.ready != ready || c.api.deploy.ready != ready {
			t.Fatalf("quiet with %d pods Ready, readyReplicas: ReplicaSet %d, Deployment %d", ready, c.api.rs.ready, c.api.deploy.ready)
		}
	}
	if due, ok := c.NextDue(); ok && due < 0 {
		t.Fatalf("NextDue = %v", due)
	}
	snap := c.Snapshot()
	r, err := Restore(snap)
	if err != nil {
		t.Fatalf("snapshot does not restore: %v", err)
	}
	if got := r.Snapshot(); !reflect.DeepEqual(got, snap) {
		t.Fatalf("snapshot round trip:\n got %+v\nwant %+v", got.Live, snap.Live)
	}
	// Nothing happens before NextDue says: a copy advanced to just before it
	// delivers nothing and logs nothing; a quiet copy stays quiet for a day.
	if !c.live {
		return
	}
	n := 0
	r.trace = func(Message) { n++ }
	seq := r.eventSeq
	due, ok := r.NextDue()
	wait := 24 * time.Hour
	if ok {
		wait = due - ms1
	}
	r.Advance(wait)
	if n != 0 || r.eventSeq != seq {
		t.Fatalf("%d messages and %d events before NextDue (%v, %v)", n, r.eventSeq-seq, due, ok)
	}
}

func FuzzCluster(f *testing.F) {
	prog := func(ops ...[2]byte) []byte {
		var b []byte
		for _, o := range ops {
			b = append(b, o[0], o[1])
		}
		return b
	}
	f.Add(uint64(1), prog([2]byte{opFinish, 0}, [2]byte{opNode, 1}, [2]byte{opSkip, 0}, [2]byte{opAdvance, 20},
		[2]byte{opSkip, 0}, [2]byte{opAdvance, 100}, [2]byte{opNode, 1}, [2]byte{opLong, 10}))
	f.Add(uint64(2), prog([2]byte{opNext, 0}, [2]byte{opNext, 0}, [2]byte{opBack, 0}, [2]byte{opFinish, 0},
		[2]byte{opSched, 0}, [2]byte{opReplicas, 11}, [2]byte{opAdvance, 40}, [2]byte{opRestore, 0}, [2]byte{opSched, 0},
		[2]byte{opAdvance, 200}))
	f.Add(uint64(3), prog([2]byte{opFinish, 0}, [2]byte{opReplicas, 11}, [2]byte{opAdvance, 200}, [2]byte{opNode, 2},
		[2]byte{opLong, 6}, [2]byte{opLong, 40}, [2]byte{opRestore, 0}, [2]byte{opNode, 2}, [2]byte{opStep, 0},
		[2]byte{opStep, 0}, [2]byte{opRestore, 0}, [2]byte{opLong, 2}))
	f.Add(uint64(4), prog([2]byte{opFinish, 0}, [2]byte{opCM, 0}, [2]byte{opKill, 0}, [2]byte{opNode, 0},
		[2]byte{opAdvance, 3}, [2]byte{opRestore, 0}, [2]byte{opLong, 30}, [2]byte{opCM, 0}, [2]byte{opSkip, 0},
		[2]byte{opRuntime, 0}, [2]byte{opPreset, 0}, [2]byte{opRestore, 0}, [2]byte{opSkip, 0}, [2]byte{opPreset, 1},
		[2]byte{opLong, 50}))
	f.Add(uint64(5), prog([2]byte{opFinish, 0}, [2]byte{opReplicas, 11}, [2]byte{opAdvance, 1}, [2]byte{opSched, 0},
		[2]byte{opSched, 0}, [2]byte{opAdvance, 3}, [2]byte{opKill, 1}, [2]byte{opKill, 2}, [2]byte{opReplicas, 2},
		[2]byte{opStep, 0}, [2]byte{opRestore, 0}, [2]byte{opNode, 0}, [2]byte{opNode, 0}, [2]byte{opAdvance, 60}))
	f.Fuzz(func(t *testing.T, seed uint64, data []byte) { runProgram(t, seed, data) })
}
