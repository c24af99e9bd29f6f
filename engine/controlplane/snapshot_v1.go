package controlplane

import (
	"errors"
	"fmt"
)

// Version 1 snapshots were written before the node lifecycle controller
// added both unreachable taints, before the kubelet wrote podIP and the
// Ready condition, before the controllers wrote readyReplicas, and while
// the node lifecycle controller evicted a node's pods at one deadline.
// Restore reads them and fills in what they lack as the engine would have
// it, deterministically:
//
//   - a tainted node has both taints (unreachable:NoSchedule and NoExecute);
//   - each node's sandboxes get the addresses .2, .3, … of its podCIDR in
//     pod name order, and that IPAM reserved the highest last;
//   - a pod that is Running is Ready, with its sandbox's IP as podIP (or,
//     its sandbox already stopped, the lowest address of its node that no
//     other pod or sandbox has);
//   - the ReplicaSet's and the Deployment's readyReplicas count the Ready
//     pods that are not terminating;
//   - each pod not terminating on a node whose eviction was counting down
//     has that node's deadline as its own;
//   - a kubelet's status write in flight carries its pod's IP.
//
// The restored cluster writes version 2 from then on. Its controllers act
// on what the old engine never did: on their next run the node lifecycle
// controller marks the pods of a node that is not Ready as not Ready, and
// the ReplicaSet controller writes readyReplicas again.

// checkV1 refuses a version 1 snapshot that holds fields only version 2
// has: no version 1 engine wrote them.
func checkV1(l *LiveState) error {
	if l.DeployReady != 0 || l.RSReady != 0 {
		return errors.New("version 1 with readyReplicas")
	}
	for _, p := range l.Pods {
		if p.Ready || p.IP != "" {
			return fmt.Errorf("version 1 pod %s with Ready or an IP", p.Name)
		}
	}
	for _, n := range l.Nodes {
		if n.Taints != nil || n.LastHost != 0 {
			return fmt.Errorf("version 1 node %s with taints or addresses", n.Name)
		}
		for _, sb := range n.Sandboxes {
			if sb.IP != "" {
				return fmt.Errorf("version 1 sandbox of %s with an IP", sb.Pod)
			}
		}
	}
	for _, n := range l.CM.Nodes {
		if n.Tolerations != nil {
			return errors.New("version 1 node lifecycle state with tolerations")
		}
	}
	for _, m := range l.InFlight {
		for _, o := range m.Objects {
			if o.IP != "" {
				return fmt.Errorf("version 1 message %d with an IP", m.Seq)
			}
		}
	}
	return nil
}

// upgradeV1 gives the restored sandboxes and pods their addresses, the pods
// their Ready condition and the ReplicaSet and Deployment their
// readyReplicas.
func (c *Cluster) upgradeV1() {
	for i, n := range nodeNames {
		rt := &c.rt[i]
		used := map[int]bool{}
		for _, name := range sortedKeys(rt.sandboxes) {
			h := firstHost + len(used)
			rt.sandboxes[name].host, used[h] = h, true
			rt.lastHost = h
		}
		for _, p := range c.api.sortedPods() {
			if p.node != n || !p.running {
				continue
			}
			p.ready = true
			if sb := rt.sandboxes[p.name]; sb != nil {
				p.ip = podIP(i, sb.host)
				continue
			}
			h := firstHost
			for used[h] {
				h++
			}
			p.ip, used[h] = podIP(i, h), true
			rt.lastHost = max(rt.lastHost, h)
		}
	}
	ready := 0
	for _, p := range c.api.pods {
		if p.ready && !p.terminating {
			ready++
		}
	}
	c.api.rs.ready, c.api.deploy.ready = min(ready, MaxReplicas), min(ready, MaxReplicas)
}

// upgradeV1Tolerations gives each pod on node i that is not terminating the
// node's eviction deadline.
func (c *Cluster) upgradeV1Tolerations(i int, n NLCNodeState) {
	if !n.Evict {
		return
	}
	for _, p := range c.api.sortedPods() {
		if p.node == nodeNames[i] && tolerating(&c.api, p) {
			if c.nlc.evict == nil {
				c.nlc.evict = map[string]toleration{}
			}
			c.nlc.evict[p.name] = toleration{uid: p.created, at: c.now + dur(n.EvictIn)}
		}
	}
}

// upgradeV1Message gives a kubelet's status write in flight the IP of its
// pod's sandbox (the kubelet read it before it wrote), or the pod's own.
func (c *Cluster) upgradeV1Message(s MessageState) MessageState {
	if s.Reason != ReasonPodRunning || s.Kind != KindWrite {
		return s
	}
	s.Objects = orNil(s.Objects)
	for j, o := range s.Objects {
		i := nodeIndex(o.Node)
		if i < 0 {
			continue
		}
		if sb := c.rt[i].sandboxes[o.Name]; sb != nil {
			s.Objects[j].IP = podIP(i, sb.host)
		} else if p := c.api.pods[o.Name]; p != nil && p.ip != "" {
			s.Objects[j].IP = p.ip
		} else {
			s.Objects[j].IP = podIP(i, firstHost)
		}
	}
	return s
}
