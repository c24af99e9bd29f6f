package operator

import (
	"strings"
	"testing"

	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

// The chapter's scenes of this demo, as links the chapter site can embed:
// each is played with real actions, and its link opens that moment.
var scenes = []demotest.Scene{
	{Name: "degraded-backup-missing", Title: "バックアップが無く Degraded で止まる", Play: func(p *demotest.Player) {
		p.Do(`{"action":"backup","present":false}`)
		p.Do(`{"action":"step"}`)
		p.Until(0, "Degraded", func(h map[string]string) bool {
			return strings.Contains(h["op-status"], `data-testid="status-phase" data-value="Degraded"`)
		})
	}},
	{Name: "one-move-per-reconcile", Title: "1回の調整で1手: 復元 → メンバー → リーダー", Play: func(p *demotest.Player) {
		for range 3 {
			p.Do(`{"action":"step"}`)
		}
	}},
}

func TestScenes(t *testing.T) { demotest.CheckScenes(t, Kind, scenes) }
