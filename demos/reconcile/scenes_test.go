package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

// The chapters' scenes of this demo, as links the chapter site can embed:
// each is played with real actions, and its link opens that moment.
var scenes = []demotest.Scene{
	{Name: "killed-pod-replaced", Title: "落とした Pod が作り直される(004 の「Pod を1つ消す」)", Play: func(p *demotest.Player) {
		p.Until(10*time.Second, "3 pods Running", func(h map[string]string) bool {
			return strings.Count(h["rc-pods"], `data-phase="Running"`) == 3
		})
		p.Do(`{"action":"kill","pod":"pod-2"}`)
		p.Until(3*time.Second, "the replacement", func(h map[string]string) bool {
			return strings.Contains(h["rc-pods"], `data-name="pod-4"`)
		})
	}},
	{Name: "controller-stopped", Title: "コントローラーを止めると差は埋まらない", Play: func(p *demotest.Player) {
		p.Until(10*time.Second, "3 pods Running", func(h map[string]string) bool {
			return strings.Count(h["rc-pods"], `data-phase="Running"`) == 3
		})
		p.Do(`{"action":"controller","on":false}`)
		p.Do(`{"action":"kill","pod":"pod-1"}`)
		p.Do(`{"action":"replicas-inc"}`)
		p.Wait(3 * time.Second)
	}},
}

func TestScenes(t *testing.T) { demotest.CheckScenes(t, Kind, scenes) }
