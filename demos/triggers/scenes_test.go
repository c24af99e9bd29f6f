package triggers

import (
	"strings"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

// The chapter's scenes of this demo, as links the chapter site can embed:
// each is played with real actions, and its link opens that moment.
var scenes = []demotest.Scene{
	{Name: "edge-stuck-after-drop", Title: "イベントを落とすと edge 側は直らず、level 側は直る", Play: func(p *demotest.Player) {
		p.Do(`{"action":"drop-events","on":true}`)
		p.Do(`{"action":"kill","pod":"pod-1"}`)
		p.Until(20*time.Second, "the level side converged again", func(h map[string]string) bool {
			return strings.Contains(h["tr-level-diff"], `data-converged="true"`) &&
				strings.Contains(h["tr-edge-diff"], `data-converged="false"`)
		})
	}},
}

func TestScenes(t *testing.T) { demotest.CheckScenes(t, Kind, scenes) }
