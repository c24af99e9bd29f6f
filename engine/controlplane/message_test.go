package controlplane

import (
	"slices"
	"testing"
)

// nobodyCallsAnybody reports whether m has the apiserver at one end, or is a
// CRI call from the kubelet to containerd: 「コンポーネント同士を結ぶ線は 1 本も
// 無い」. Its kind must match its direction.
func nobodyCallsAnybody(m Message) bool {
	switch m.Kind {
	case KindWrite:
		return m.To == LaneAPIServer && m.From != LaneAPIServer && m.From != LaneContainerd
	case KindWatch:
		return m.From == LaneAPIServer && m.To != LaneAPIServer && m.To != LaneKubectl && m.To != LaneContainerd
	case KindCRI:
		return m.From == LaneKubelet && m.To == LaneContainerd
	}
	return false
}

func TestEveryShapeHasTheAPIServerAtOneEndOrIsACRICall(t *testing.T) {
	for _, sh := range append(slices.Clone(writeShapes), watchShapes...) {
		m := Message{From: sh.from, To: sh.to, Kind: sh.kind, Verb: sh.verb, Resource: sh.resource, Sub: sh.sub, Reason: sh.reason}
		if !nobodyCallsAnybody(m) {
			t.Errorf("shape %+v", sh)
		}
		if !slices.Contains(Lanes(), sh.from) || !slices.Contains(Lanes(), sh.to) {
			t.Errorf("shape %+v uses a lane the diagram does not have", sh)
		}
	}
	for _, s := range criShapes {
		for _, calls := range s.calls {
			m := &Message{From: LaneKubelet, To: LaneContainerd, Kind: KindCRI, Reason: s.reason, Calls: calls}
			if slices.Contains(calls, CallPullImage) {
				m.Image = Image
			}
			if !validShape(m) || !nobodyCallsAnybody(*m) {
				t.Errorf("CRI shape %+v", m)
			}
			m.Via = RuntimeDockershim.via()
			if !validShape(m) {
				t.Errorf("CRI shape via dockershim %+v", m)
			}
		}
	}
}

// Every message the stories send, including the fan-out of every watch, is
// one of the shapes, so the watch filters and the tables agree.
func TestStoriesSendOnlyKnownShapes(t *testing.T) {
	c := New(30)
	msgs := traced(c)
	c.FinishGuide()
	must(t, c.SetRuntime(RuntimeDockershim))
	must(t, c.SetReplicas(10))
	settle(t, c)
	must(t, c.KillPod(c.Pods()[0].Name))
	must(t, c.SetNode("node-2", false))
	for range 4 {
		_, _ = c.SkipToNext()
		settle(t, c)
	}
	must(t, c.SetComponent(ProcessScheduler, false))
	must(t, c.SetComponent(ProcessControllerManager, false))
	must(t, c.SetNode("node-2", true))
	settle(t, c)
	must(t, c.SetComponent(ProcessControllerManager, true))
	must(t, c.SetComponent(ProcessScheduler, true))
	must(t, c.SetReplicas(1))
	settle(t, c)
	seen := map[shape]bool{}
	for _, m := range *msgs {
		if !nobodyCallsAnybody(m) || !validShape(&m) {
			t.Fatalf("message %+v", m)
		}
		seen[shapeOf(&m)] = true
	}
	if len(seen) < 30 {
		t.Fatalf("only %d shapes seen: the story should cover most", len(seen))
	}
}

func TestWatchesListsEachComponent(t *testing.T) {
	w := Watches()
	for _, lane := range []string{LaneDeployment, LaneReplicaSet, LaneScheduler, LaneKubelet, LaneNodeLife} {
		if len(w[lane]) == 0 {
			t.Errorf("%s watches nothing", lane)
		}
	}
	if _, ok := w[LaneKubectl]; ok {
		t.Error("kubectl does not watch")
	}
}
