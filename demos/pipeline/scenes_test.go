package pipeline

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-demo/reconcile-demo/demos/demotest"
)

var reconcilesShown = regexp.MustCompile(`data-testid="reconciles" data-value="(\d+)"`)

// The chapters' scenes of this demo, as links the chapter site can embed:
// each is played with real actions, and its link opens that moment.
var scenes = []demotest.Scene{
	{Name: "runaway-reconcile", Title: "よくあるバグ: status を毎回書き、predicate が無いと調整が止まらない", Play: func(p *demotest.Player) {
		p.Do(`{"action":"trap","trap":"runaway","on":true}`)
		p.Until(2*time.Minute, "reconciles past 20", func(h map[string]string) bool {
			m := reconcilesShown.FindStringSubmatch(h["pp-metrics"])
			n, _ := strconv.Atoi(m[1])
			return n > 20
		})
	}},
}

func TestScenes(t *testing.T) { demotest.CheckScenes(t, Kind, scenes) }
