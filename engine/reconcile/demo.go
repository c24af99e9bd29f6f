package reconcile

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds what the demo needs beside the chapter's code: starting one
// pod at a time (kubelet's per-pod start delay) and a snapshot that lets a
// cluster be rebuilt after a server restart. Nothing here changes how
// Reconcile behaves.

// Start makes the named pod Running if it is Pending, and reports whether it
// did. StartPending is Start for every Pending pod at once.
func (c *Cluster) Start(name string) bool {
	p, ok := c.pods[name]
	if !ok || p.Phase != Pending {
		return false
	}
	p.Phase = Running
	return true
}

// Seq returns the number used by the last pod created: the next pod is
// pod-(Seq()+1). Names are never reused.
func (c *Cluster) Seq() int { return c.seq }

// Would reports, without changing anything, what the next Reconcile would do:
// how many Failed pods it would delete, how many pods it would create and how
// many excess alive pods it would delete.
func (c *Controller) Would(cl *Cluster) (deleteFailed, create, deleteExcess int) {
	alive := 0
	for _, p := range cl.pods {
		if p.Phase == Failed {
			deleteFailed++
		} else {
			alive++
		}
	}
	switch {
	case alive < c.desired:
		create = c.desired - alive
	case alive > c.desired:
		deleteExcess = alive - c.desired
	}
	return deleteFailed, create, deleteExcess
}

// MaxSeq bounds the sequence number a restored cluster may carry. It is far
// beyond what a demo can reach (a few creations a second for the life of
// the virtual clock), and far below overflow.
const MaxSeq = 1 << 50

// MaxPods bounds a restored cluster: no snapshot may hold more pods than this.
const MaxPods = 64

// Restore rebuilds a cluster from pods and the sequence number of the last
// pod created. Every name must be pod-N with 1 <= N <= seq, unique, and every
// phase one of Pending, Running, Failed. It returns an error and no cluster
// when any of that does not hold.
func Restore(pods []Pod, seq int) (*Cluster, error) {
	if seq < 0 || seq > MaxSeq {
		return nil, fmt.Errorf("restore cluster: seq %d out of range", seq)
	}
	if len(pods) > MaxPods {
		return nil, fmt.Errorf("restore cluster: %d pods, at most %d", len(pods), MaxPods)
	}
	c := NewCluster()
	c.seq = seq
	for _, p := range pods {
		n, ok := strings.CutPrefix(p.Name, "pod-")
		if !ok {
			return nil, fmt.Errorf("restore cluster: bad pod name %q", p.Name)
		}
		i, err := strconv.Atoi(n)
		if err != nil || i < 1 || i > seq || "pod-"+strconv.Itoa(i) != p.Name {
			return nil, fmt.Errorf("restore cluster: bad pod name %q", p.Name)
		}
		if p.Phase != Pending && p.Phase != Running && p.Phase != Failed {
			return nil, fmt.Errorf("restore cluster: pod %s has bad phase %d", p.Name, int(p.Phase))
		}
		if _, dup := c.pods[p.Name]; dup {
			return nil, fmt.Errorf("restore cluster: duplicate pod %s", p.Name)
		}
		c.pods[p.Name] = &Pod{Name: p.Name, Phase: p.Phase}
	}
	return c, nil
}
