package controlplane

import (
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

// skipUntil presses "skip to the next event" until cond holds of the page.
func skipUntil(p *demotest.Player, what string, cond func(h map[string]string) bool) {
	for range 60 {
		if cond(demotest.RenderAll(p.T(), p.Live, demotest.View())) {
			return
		}
		if _, due := p.Live.NextDue(); due {
			p.Do(`{"action":"skip"}`)
		} else {
			p.Wait(500 * time.Millisecond)
		}
	}
	p.T().Fatalf("scene: %s did not happen in 60 skips", what)
}

// The chapter's scenes of this demo, as links the chapter site can embed:
// each is played with real actions, and its link opens that moment.
var scenes = []demotest.Scene{
	{Name: "node-unknown", Title: "ノードのハートビートが途絶えて Unknown になり、2 つの taint が付く", Play: func(p *demotest.Player) {
		p.Do(`{"action":"preset","preset":"node-outage"}`)
		skipUntil(p, "a node Unknown with both taints", func(h map[string]string) bool {
			for _, n := range []string{"cp-n-node-1", "cp-n-node-2", "cp-n-node-3"} {
				if strings.Contains(h[n], `data-ready="Unknown"`) && strings.Contains(h[n], `data-effect="NoExecute"`) {
					return true
				}
			}
			return false
		})
	}},
	{Name: "node-evicted", Title: "300 秒の toleration が切れて Pod が立ち退き、他のノードに作り直される", Play: func(p *demotest.Player) {
		p.Do(`{"action":"preset","preset":"node-outage"}`)
		skipUntil(p, "the pods evicted", func(h map[string]string) bool {
			for _, n := range []string{"cp-n-node-1", "cp-n-node-2", "cp-n-node-3"} {
				if strings.Contains(h[n], `data-ready="Unknown"`) && strings.Contains(h[n], `data-status="Terminating"`) {
					return true
				}
			}
			return false
		})
	}},
	{Name: "scheduler-outage", Title: "scheduler が止まると新しい Pod は nodeName 空のまま Pending", Play: func(p *demotest.Player) {
		p.Do(`{"action":"preset","preset":"scheduler-outage"}`)
		skipUntil(p, "pods waiting unscheduled", func(h map[string]string) bool {
			return strings.Contains(h["cp-tray"], `data-testid="pod"`)
		})
	}},
}

func TestScenes(t *testing.T) { demotest.CheckScenes(t, Kind, scenes) }
