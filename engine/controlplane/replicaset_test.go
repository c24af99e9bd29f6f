package controlplane

import (
	"slices"
	"testing"
)

// createBatches returns the sizes of the ReplicaSet controller's POST Pod
// writes among msgs and whether each went out the moment the one before
// was answered (one sync's slow start).
func createBatches(msgs []Message) ([]int, bool) {
	var sizes []int
	var last Message
	chained := true
	for _, m := range msgs {
		if m.Kind != KindWrite || m.Reason != ReasonCreatePods {
			continue
		}
		if len(sizes) > 0 && m.Sent != last.Arrive {
			chained = false
		}
		sizes = append(sizes, len(m.Objects))
		last = m
	}
	return sizes, chained
}

// Live, the ReplicaSet controller creates missing pods in slow-start
// batches, as replicaset.go's slowStartBatch: 1, then twice the last batch
// (at most what is still missing), each once the last is answered.
func TestSlowStartBatches(t *testing.T) {
	tests := []struct {
		name  string
		story func(t *testing.T, c *Cluster)
		want  []int
		// oneSync: each batch goes out the moment the one before is answered.
		oneSync bool
	}{
		{"3 → 4", func(t *testing.T, c *Cluster) { must(t, c.SetReplicas(4)) }, []int{1}, true},
		{"3 → 6", func(t *testing.T, c *Cluster) { must(t, c.SetReplicas(6)) }, []int{1, 2}, true},
		{"3 → 10", func(t *testing.T, c *Cluster) { must(t, c.SetReplicas(10)) }, []int{1, 2, 4}, true},
		{"0 → 10", func(t *testing.T, c *Cluster) {
			must(t, c.SetReplicas(0))
			settle(t, c)
			must(t, c.SetReplicas(10))
		}, []int{1, 2, 4, 3}, true},
		{"two kills: each sync starts at 1", func(t *testing.T, c *Cluster) {
			must(t, c.KillPod(c.Pods()[0].Name))
			settle(t, c)
			must(t, c.KillPod(c.Pods()[1].Name))
		}, []int{1, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := live(t, 70)
			msgs := traced(c)
			tt.story(t, c)
			settle(t, c)
			if got, chained := createBatches(*msgs); !slices.Equal(got, tt.want) || chained != tt.oneSync {
				t.Fatalf("batches %v (each as the last is answered: %v), want %v (%v)", got, chained, tt.want, tt.oneSync)
			}
			if !c.Converged() {
				t.Fatalf("pods %+v", c.Pods())
			}
			checked(t, c)
		})
	}
}

// slowStartBatch's rule, case by case: a fresh sync starts at 1; an
// answered batch doubles; a batch in which a create failed (the apiserver
// named no pod) stops the slow start; the guide sends all at once.
func TestSlowStartBatchRule(t *testing.T) {
	done := func(names ...string) trigger {
		m := &Message{Kind: KindWrite, Reason: ReasonCreatePods}
		for _, n := range names {
			m.Objects = append(m.Objects, Object{Name: n})
		}
		return trigger{kind: onDone, msg: m}
	}
	tests := []struct {
		name    string
		t       trigger
		guided  bool
		missing int
		batch   int
		ok      bool
	}{
		{"a watch event", trigger{kind: onWatch, msg: &Message{}}, false, 7, 1, true},
		{"a list", trigger{kind: onList, msg: &Message{}}, false, 7, 1, true},
		{"1 answered", done("a"), false, 6, 2, true},
		{"2 answered", done("a", "b"), false, 4, 4, true},
		{"4 answered, 3 left", done("a", "b", "c", "d"), false, 3, 3, true},
		{"a create failed", done("a", ""), false, 5, 0, false},
		{"another request answered", trigger{kind: onDone, msg: &Message{Reason: ReasonDeletePods}}, false, 2, 1, true},
		{"the guide", trigger{kind: onWatch, msg: &Message{}}, true, 3, 3, true},
	}
	for _, tt := range tests {
		if batch, ok := slowStartBatch(tt.t, tt.guided, tt.missing); batch != tt.batch || ok != tt.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tt.name, batch, ok, tt.batch, tt.ok)
		}
	}
}

// The guide keeps the chapter's sequence diagram: its fifth message is the
// ReplicaSet controller's POST Pod ×3, one arrow, on either runtime and
// after Back; slow start is for the live cluster.
func TestGuideStillPostsThreePods(t *testing.T) {
	for _, rt := range []Runtime{RuntimeContainerd, RuntimeDockershim} {
		c := New(71)
		must(t, c.SetRuntime(rt))
		for range 5 {
			_, err := c.Next()
			must(t, err)
		}
		must(t, c.Back())
		m, err := c.Next()
		must(t, err)
		want, _ := GuideStepInfo(5)
		if m.Step != 5 || m.From != want.From || m.Reason != ReasonCreatePods || len(m.Objects) != 3 || len(c.Pods()) != 3 {
			t.Fatalf("%s: message 5 %+v, pods %d", rt, m, len(c.Pods()))
		}
		if in := c.InFlight(); len(in) != 1 || in[0].To != LaneScheduler || len(in[0].Objects) != 3 {
			t.Fatalf("%s: after message 5, in flight %+v", rt, in)
		}
	}
}
