package triggers

import (
	"slices"
	"strconv"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/engine/reconcile"
)

// clusterOf returns an edge cluster holding Running pods pod-1 … pod-n,
// and failed marks some of them Failed.
func clusterOf(n int, failed ...string) *Cluster {
	cl := newCluster()
	for range n {
		name, _ := cl.create()
		cl.start(name)
	}
	for _, f := range failed {
		cl.fail(f)
	}
	return cl
}

func TestEdgeControllerHandle(t *testing.T) {
	tests := []struct {
		name      string
		pods      int
		failed    []string
		gone      []string // deleted before the event
		known     []string
		ev        Event
		want      []Action
		wantKnown []string
		wantPods  []string
	}{
		{"a death: delete the dead, create one", 3, []string{"pod-2"}, nil, []string{"pod-1", "pod-2", "pod-3"},
			Event{Kind: PodDied, Pod: 2},
			[]Action{{ActDelete, 2}, {ActCreate, 4}},
			[]string{"pod-1", "pod-3", "pod-4"}, []string{"pod-1", "pod-3", "pod-4"}},
		{"the same death again: one too many", 3, nil, []string{"pod-2"}, []string{"pod-1", "pod-3"},
			Event{Kind: PodDied, Pod: 2},
			[]Action{{ActDeleteGone, 2}, {ActCreate, 4}},
			[]string{"pod-1", "pod-3", "pod-4"}, []string{"pod-1", "pod-3", "pod-4"}},
		{"desired up: create the difference", 3, nil, nil, []string{"pod-1", "pod-2", "pod-3"},
			Event{Kind: DesiredChanged, Old: 3, New: 5},
			[]Action{{ActCreate, 4}, {ActCreate, 5}},
			[]string{"pod-1", "pod-2", "pod-3", "pod-4", "pod-5"}, []string{"pod-1", "pod-2", "pod-3", "pod-4", "pod-5"}},
		{"desired down: delete known pods from the end of name order", 3, nil, nil, []string{"pod-1", "pod-2", "pod-3"},
			Event{Kind: DesiredChanged, Old: 3, New: 1},
			[]Action{{ActDelete, 3}, {ActDelete, 2}},
			[]string{"pod-1"}, []string{"pod-1"}},
		{"desired down: only known pods, never the others", 3, nil, nil, []string{"pod-1"},
			Event{Kind: DesiredChanged, Old: 3, New: 1},
			[]Action{{ActDelete, 1}, {Kind: ActDeleteUnknown}},
			nil, []string{"pod-2", "pod-3"}},
		{"desired down: it believes a dead pod alive and deletes it", 3, []string{"pod-3"}, nil, []string{"pod-1", "pod-2", "pod-3"},
			Event{Kind: DesiredChanged, Old: 3, New: 2},
			[]Action{{ActDelete, 3}},
			[]string{"pod-1", "pod-2"}, []string{"pod-1", "pod-2"}},
		{"desired down after a restart: knows nothing, deletes nothing", 3, nil, nil, nil,
			Event{Kind: DesiredChanged, Old: 3, New: 2},
			[]Action{{Kind: ActDeleteUnknown}},
			nil, []string{"pod-1", "pod-2", "pod-3"}},
		{"desired down: a pod it remembers but is gone", 2, nil, nil, []string{"pod-1", "pod-2", "pod-9"},
			Event{Kind: DesiredChanged, Old: 3, New: 2},
			[]Action{{ActDeleteGone, 9}},
			[]string{"pod-1", "pod-2"}, []string{"pod-1", "pod-2"}},
		{"created: remembered", 3, nil, nil, []string{"pod-1"},
			Event{Kind: PodCreated, Pod: 3}, nil,
			[]string{"pod-1", "pod-3"}, []string{"pod-1", "pod-2", "pod-3"}},
		{"running: remembered", 3, nil, nil, nil,
			Event{Kind: PodRunning, Pod: 2}, nil,
			[]string{"pod-2"}, []string{"pod-1", "pod-2", "pod-3"}},
		{"deleted: forgotten", 3, nil, nil, []string{"pod-1", "pod-2"},
			Event{Kind: PodDeleted, Pod: 2}, nil,
			[]string{"pod-1"}, []string{"pod-1", "pod-2", "pod-3"}},
		{"at the quota: deleting the dead pod makes room", MaxPods, []string{"pod-5"}, nil, []string{"pod-5"},
			Event{Kind: PodDied, Pod: 5},
			[]Action{{ActDelete, 5}, {ActCreate, 25}}, []string{"pod-25"}, nil},
		{"beyond the quota: refused", MaxPods, nil, nil, nil,
			Event{Kind: DesiredChanged, Old: 0, New: 2},
			[]Action{{Kind: ActCreateRefused}, {Kind: ActCreateRefused}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := clusterOf(tt.pods, tt.failed...)
			for _, g := range tt.gone {
				cl.delete(g)
			}
			c := NewEdgeController(tt.known...)
			got := c.Handle(tt.ev, cl)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("actions %v, want %v", got, tt.want)
			}
			if k := c.Known(); !slices.Equal(k, tt.wantKnown) && !(len(k) == 0 && len(tt.wantKnown) == 0) {
				t.Fatalf("knows %v, want %v", k, tt.wantKnown)
			}
			if tt.wantPods != nil {
				if p := names(cl.Pods()); !slices.Equal(p, tt.wantPods) {
					t.Fatalf("pods %v, want %v", p, tt.wantPods)
				}
			}
			if len(cl.Pods()) > MaxPods {
				t.Fatalf("%d pods, beyond the quota", len(cl.Pods()))
			}
		})
	}
}

// The edge controller never deletes a pod it has not heard of, whatever it
// hears: only names it knows or the dead pod an event names.
func TestEdgeControllerNeverTouchesUnheardPods(t *testing.T) {
	for old := 0; old <= MaxDesired; old++ {
		for nw := 0; nw <= MaxDesired; nw++ {
			cl := clusterOf(8)
			c := NewEdgeController("pod-7", "pod-2")
			c.Handle(Event{Kind: DesiredChanged, Old: old, New: nw}, cl)
			for i := 1; i <= 8; i++ {
				n := "pod-" + strconv.Itoa(i)
				if n == "pod-7" || n == "pod-2" {
					continue
				}
				if !slices.Contains(names(cl.Pods()), n) {
					t.Fatalf("%d → %d deleted %s, which it never heard of", old, nw, n)
				}
			}
		}
	}
}

func TestEdgeMemoryIsBounded(t *testing.T) {
	c := NewEdgeController()
	for i := 1; i <= 3*MaxKnown; i++ {
		c.Handle(Event{Kind: PodRunning, Pod: PodID(i)}, newCluster())
	}
	if n := len(c.Known()); n != MaxKnown {
		t.Fatalf("remembers %d names, want the bound %d", n, MaxKnown)
	}
	c.Forget()
	if n := len(c.Known()); n != 0 {
		t.Fatalf("remembers %d after Forget", n)
	}
}

func TestEdgeClusterPrimitives(t *testing.T) {
	cl := clusterOf(2)
	if cl.start("pod-1") || cl.start("pod-9") {
		t.Fatal("start of a Running or unknown pod")
	}
	if !cl.fail("pod-1") || cl.fail("pod-1") || cl.fail("pod-9") {
		t.Fatal("fail must fail an alive pod once")
	}
	if !cl.delete("pod-1") || cl.delete("pod-1") {
		t.Fatal("delete must report whether the pod was there")
	}
	name, ok := cl.create()
	if !ok || name != "pod-3" || cl.Seq() != 3 {
		t.Fatalf("create after a delete = %s, %v, seq %d; names are never reused", name, ok, cl.Seq())
	}
	if p := cl.Pods(); p[len(p)-1].Phase != reconcile.Pending {
		t.Fatalf("a new pod is %v", p[len(p)-1].Phase)
	}
}
