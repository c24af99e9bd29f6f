package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-demo/reconcile-demo/engine/sim"
	t "github.com/reconcile-demo/reconcile-demo/templates"
)

// Chart geometry, in SVG user units: the plot spans [chartLeft, chartW]
// horizontally and [chartTop, chartH-chartBottom] vertically.
const (
	chartW      = 600
	chartH      = 180
	chartLeft   = 40
	chartTop    = 8
	chartBottom = 28
)

// span is the time the chart shows: the last window, or less while the demo
// is younger, so the first seconds are not a sliver at the right edge.
func span(now, window time.Duration) time.Duration {
	return min(window, max(now, minSpan))
}

// minSpan is the shortest span a chart shows.
const minSpan = 20 * time.Second

func xOf(at, now, window time.Duration) float64 {
	from := now - window
	if at < from {
		at = from
	}
	return chartLeft + float64(at-from)/float64(window)*(chartW-chartLeft)
}

func xTicks(window time.Duration) []t.ChartTick {
	var ticks []t.ChartTick
	step := 15
	if window < 40*time.Second {
		step = 5
	}
	for s := int(window/time.Second) % step; s <= int(window/time.Second); s += step {
		x := chartLeft + float64(s)/window.Seconds()*(chartW-chartLeft)
		label := "-" + strconv.Itoa(int(window.Seconds())-s) + "s"
		if s == int(window.Seconds()) {
			label = "0s"
		}
		ticks = append(ticks, t.ChartTick{Pos: x, Label: label})
	}
	return ticks
}

// replicaChart draws desired against Running, Pending and Failed over the
// window as step lines.
func replicaChart(l t.Lang, hist []sim.Sample, now, window time.Duration) t.ChartProps {
	top := 5
	for _, s := range hist {
		top = max(top, s.Desired, s.Running+s.Pending+s.Failed)
	}
	plotH := float64(chartH - chartTop - chartBottom)
	yOf := func(v int) float64 { return chartTop + plotH - float64(v)/float64(top)*plotH }
	series := []struct {
		class string
		get   func(sim.Sample) int
		key   string
	}{
		{"s-desired", func(s sim.Sample) int { return s.Desired }, "legend.desired"},
		{"s-running", func(s sim.Sample) int { return s.Running }, "phase.Running"},
		{"s-pending", func(s sim.Sample) int { return s.Pending }, "phase.Pending"},
		{"s-failed", func(s sim.Sample) int { return s.Failed }, "phase.Failed"},
	}
	window = span(now, window)
	c := t.ChartProps{Title: t.T(l, "rc.chart"), Desc: t.T(l, "rc.chart.desc"), Width: chartW, Height: chartH,
		XTicks: xTicks(window), Max: top}
	for v := 0; v <= top; v += max(1, top/5) {
		c.YTicks = append(c.YTicks, t.ChartTick{Pos: yOf(v), Label: strconv.Itoa(v)})
	}
	for _, s := range series {
		var b strings.Builder
		for i, h := range hist {
			x0 := xOf(h.At, now, window)
			x1 := xOf(now, now, window)
			if i+1 < len(hist) {
				x1 = xOf(hist[i+1].At, now, window)
			}
			y := yOf(s.get(h))
			fmt.Fprintf(&b, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y)
		}
		c.Lines = append(c.Lines, t.ChartLine{Class: s.class, Points: strings.TrimSpace(b.String())})
		c.Legend = append(c.Legend, t.ChartLegend{Class: s.class, Label: t.T(l, s.key)})
	}
	return c
}

// phaseChart draws the operator's Status.phase over the window as bands.
func phaseChart(l t.Lang, hist []sim.PhaseSample, now, window time.Duration) t.ChartProps {
	window = span(now, window)
	c := t.ChartProps{Title: t.T(l, "op.chart"), Desc: t.T(l, "op.chart.desc"), Width: chartW, Height: chartH,
		XTicks: xTicks(window)}
	seen := map[string]bool{}
	for i, h := range hist {
		x0 := xOf(h.At, now, window)
		x1 := xOf(now, now, window)
		if i+1 < len(hist) {
			x1 = xOf(hist[i+1].At, now, window)
		}
		if x1 <= x0 {
			continue
		}
		class := "b-" + strings.ToLower(h.Phase)
		c.Bands = append(c.Bands, t.ChartBand{Class: class, X: x0, W: x1 - x0, Label: h.Phase})
		if !seen[h.Phase] {
			seen[h.Phase] = true
			c.Legend = append(c.Legend, t.ChartLegend{Class: class, Label: t.T(l, "opphase."+h.Phase)})
		}
	}
	return c
}
