package templates

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
	"unsafe"
)

// Chart geometry, in SVG user units. The outer box holds the axes; the plot
// is a nested SVG whose x axis is virtual time in deciseconds from Origin,
// so scrolling it is a change of its viewBox, which the page makes as its
// clock runs (static/app.js). The server renders a chart only when a value
// changes.
const (
	chartW     = 600
	chartH     = 180
	plotX      = 40
	plotY      = 8
	plotW      = chartW - plotX
	plotH      = chartH - plotY - 28
	minSpan    = 20 * time.Second
	tableRows  = 6
	farFuture  = 1_000_000 // deciseconds (about 28 hours): the last step reaches past any frame
	decisecond = 100 * time.Millisecond
)

// ChartProps is a chart of the last window of virtual time.
type ChartProps struct {
	Prefix  string
	Title   string
	Desc    string
	Origin  int64 // virtual ms that plot x = 0 stands for: the newest change it draws
	Window  int64 // virtual ms the chart spans once the demo is that old
	MinSpan int64 // virtual ms it spans at least, so the first seconds are not a sliver
	Top     int   // the value at the top of a line chart
	Lines   []ChartLine
	Bands   []ChartBand
	YTicks  []ChartTick
	XTicks  []ChartTick
	Legend  []ChartLegend
	Table   ChartTable
}

// ChartLine is one series, as an SVG path's data in plot coordinates: a
// step line, moved to its first point, then across and up or down at each
// change (H x V y: half the bytes of a polyline's two points a corner).
type ChartLine struct {
	Class string
	D     string
}

// ChartBand is a coloured span of time, in plot coordinates.
type ChartBand struct {
	Class string
	X, W  float64
}

// ChartTick is an axis label.
type ChartTick struct {
	Pos   float64
	Label string
}

// ChartLegend names a series.
type ChartLegend struct {
	Class string
	Label string
}

// ChartTable is the newest values behind a chart, for screen readers.
type ChartTable struct {
	Head []string
	Rows [][]string
}

// Step is the value of a series from At on.
type Step struct {
	At time.Duration
	V  int
}

// Series is one line of a line chart.
type Series struct {
	Class string
	Label string
	Steps []Step
}

// Span is a labelled stretch of time from At on, for a band chart.
type Span struct {
	At    time.Duration
	Class string
	Label string
}

// newChart starts a chart whose plot is drawn from origin, the time of the
// newest change it shows: its HTML then depends only on what it draws, not
// on the frame's time, and the page scrolls it to its own clock.
// Its time axis is labelled only with axes.
func newChart(prefix, title, desc string, origin, window time.Duration, axes bool) ChartProps {
	c := ChartProps{Prefix: prefix, Title: title, Desc: desc, Origin: origin.Milliseconds(),
		Window: window.Milliseconds(), MinSpan: minSpan.Milliseconds()}
	if axes {
		c.XTicks = XTicks(span(origin, window))
	}
	return c
}

// ChartSpan is the time a chart whose newest change is at origin shows
// at first: the last window, or less while the demo is younger. Its axis
// is labelled for it (XTicks), so a demo keys the chart's frame on it.
func ChartSpan(origin, window time.Duration) time.Duration { return span(origin, window) }

// span is the time the chart shows: the last window, or less while the demo
// is younger.
func span(now, window time.Duration) time.Duration {
	return min(window, max(now.Truncate(time.Second), minSpan))
}

// XTicks labels the time axis of a chart spanning span: every 5 s below 40 s,
// every 15 s above, counted back from now ("0s"). static/app.js computes the
// same while the span grows.
func XTicks(span time.Duration) []ChartTick {
	var ticks []ChartTick
	step := 15
	if span < 40*time.Second {
		step = 5
	}
	total := int(span / time.Second)
	for s := total % step; s <= total; s += step {
		label := "-" + strconv.Itoa(total-s) + "s"
		if s == total {
			label = "0s"
		}
		ticks = append(ticks, ChartTick{Pos: plotX + float64(s)/span.Seconds()*plotW, Label: label})
	}
	return ticks
}

// xAt returns the plot x of virtual time at in a chart whose origin is
// origin.
func xAt(at, origin time.Duration) float64 { return float64(at-origin) / float64(decisecond) }

// LineChart draws series as step lines over the window ending at the page's
// clock. The y axis runs from 0 to the largest value (at least 5).
//
// The lines' points are written into *points (emptied first), and the
// lines' strings are parts of it: the caller keeps *points as it is until
// the chart is written, and may use it again after.
func LineChart(prefix, title, desc string, window time.Duration, series []Series, points *[]byte) ChartProps {
	return LineChartOf(ChartWhole, prefix, title, desc, window, series, points)
}

// ChartParts says which of a line chart's parts LineChartOf draws: a frame
// that sends the plot needs no table and no axes, one that sends the table
// no lines (ChartHolding, ChartPlot, ChartData).
type ChartParts uint8

const (
	ChartAxes  ChartParts = 1 << iota // the ticks and the legend
	ChartLines                        // the plot's lines
	ChartRows                         // the table's head and rows
	ChartWhole = ChartAxes | ChartLines | ChartRows
)

// LineChartOf is LineChart drawing only parts of it.
func LineChartOf(parts ChartParts, prefix, title, desc string, window time.Duration, series []Series, points *[]byte) ChartProps {
	var now time.Duration // the origin: the newest step
	for _, s := range series {
		if n := len(s.Steps); n > 0 {
			now = max(now, s.Steps[n-1].At)
		}
	}
	c := newChart(prefix, title, desc, now, window, parts&ChartAxes != 0)
	c.Top = 5
	for _, s := range series {
		for _, st := range s.Steps {
			c.Top = max(c.Top, st.V)
		}
	}
	yOf := func(v int) float64 { return plotH - float64(v)/float64(c.Top)*plotH }
	for v := 0; v <= c.Top && parts&ChartAxes != 0; v += max(1, c.Top/5) {
		c.YTicks = append(c.YTicks, ChartTick{Pos: plotY + yOf(v), Label: strconv.Itoa(v)})
	}
	if parts&ChartRows != 0 {
		c.Table.Head = []string{"t"}
	}
	// Every line's path is written into one array, and each line's
	// string is its part of it (the array is never written again: an
	// append that outgrows it moves on to a new one). A step line needs a
	// corner only where its series changes: the samples where only another
	// series moved add nothing to it.
	corners := 0
	for _, s := range series {
		if parts&ChartLines == 0 {
			break
		}
		corners++
		for i := 1; i < len(s.Steps); i++ {
			if s.Steps[i].V != s.Steps[i-1].V {
				corners++
			}
		}
	}
	b := slices.Grow((*points)[:0], 16*corners)
	defer func() { *points = b }()
	for _, s := range series {
		if parts&ChartAxes != 0 {
			c.Legend = append(c.Legend, ChartLegend{Class: s.Class, Label: s.Label})
		}
		if parts&ChartRows != 0 {
			c.Table.Head = append(c.Table.Head, s.Label)
		}
		if parts&ChartLines == 0 {
			continue
		}
		start := len(b)
		for i, st := range s.Steps {
			switch {
			case i == 0:
				b = append(b, 'M')
				b = appendNum(b, xAt(st.At, now))
				b = append(b, ' ')
			case st.V == s.Steps[i-1].V:
				continue
			default:
				b = append(b, 'H')
				b = appendNum(b, xAt(st.At, now))
				b = append(b, 'V')
			}
			b = appendNum(b, yOf(st.V))
		}
		if len(s.Steps) > 0 {
			b = append(b, 'H')
			b = appendNum(b, farFuture)
		}
		d := b[start:]
		c.Lines = append(c.Lines, ChartLine{Class: s.Class, D: unsafe.String(unsafe.SliceData(d), len(d))})
	}
	if parts&ChartRows != 0 {
		c.Table.Rows, b = lineRows(series, b)
	}
	return c
}

// lineRows returns the newest tableRows moments at which a series changed,
// with every series' value then. Steps are in time order, so the newest
// moments are among the last tableRows moments of each series. The cells'
// text is appended to b (as LineChart's points are: the strings are parts
// of it), and the rows share one array of cells.
func lineRows(series []Series, b []byte) ([][]string, []byte) {
	var timesBuf [4 * tableRows]time.Duration
	times := timesBuf[:0]
	for _, s := range series {
		distinct := 0
		for i := len(s.Steps) - 1; i >= 0 && distinct < tableRows; i-- {
			if i == len(s.Steps)-1 || s.Steps[i].At != s.Steps[i+1].At {
				distinct++
			}
			times = append(times, s.Steps[i].At)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	times = times[max(0, len(times)-tableRows):]
	rows := make([][]string, 0, len(times))
	cells := make([]string, 0, len(times)*(1+len(series)))
	cell := func(start int) {
		cells = append(cells, unsafe.String(unsafe.SliceData(b[start:]), len(b)-start))
	}
	for _, at := range times {
		first := len(cells)
		start := len(b)
		b = appendClock(b, at)
		cell(start)
		for _, s := range series {
			// The value at is the last step at or before it.
			i, found := slices.BinarySearchFunc(s.Steps, at, func(st Step, at time.Duration) int { return cmp.Compare(st.At, at) })
			if found {
				// Several steps may share a moment: the last of them holds.
				for i+1 < len(s.Steps) && s.Steps[i+1].At == at {
					i++
				}
				i++
			}
			start := len(b)
			if i > 0 {
				b = strconv.AppendInt(b, int64(s.Steps[i-1].V), 10)
			}
			cell(start)
		}
		rows = append(rows, cells[first:len(cells):len(cells)])
	}
	return rows, b
}

// BandChart draws spans as coloured bands over the window ending at the
// page's clock, each lasting until the next; legend names the classes in
// first-seen order.
func BandChart(prefix, title, desc string, window time.Duration, spans []Span, head string) ChartProps {
	var now time.Duration // the origin: the newest span's start
	if n := len(spans); n > 0 {
		now = spans[n-1].At
	}
	c := newChart(prefix, title, desc, now, window, true)
	seen := map[string]bool{}
	c.Table.Head = []string{"t", head}
	for i, s := range spans {
		x0, x1 := xAt(s.At, now), float64(farFuture)
		if i+1 < len(spans) {
			x1 = xAt(spans[i+1].At, now)
		}
		if x1 > x0 {
			c.Bands = append(c.Bands, ChartBand{Class: s.Class, X: x0, W: x1 - x0})
		}
		if !seen[s.Class] {
			seen[s.Class] = true
			c.Legend = append(c.Legend, ChartLegend{Class: s.Class, Label: s.Label})
		}
	}
	for _, s := range spans[max(0, len(spans)-tableRows):] {
		c.Table.Rows = append(c.Table.Rows, []string{ClockText(s.At), s.Label})
	}
	return c
}

// viewBox is the plot's window at the frame's time: the span ending at the
// origin.
func (c ChartProps) viewBox() string {
	sp := span(time.Duration(c.Origin)*time.Millisecond, time.Duration(c.Window)*time.Millisecond)
	return fmt.Sprintf("%.1f 0 %.1f %d", -float64(sp/decisecond), float64(sp/decisecond), plotH)
}

// ClockText formats virtual time as mm:ss.s. Every log line has one, so it
// is written without fmt.
func ClockText(d time.Duration) string { return string(appendClock(make([]byte, 0, 8), d)) }

// appendClock appends ClockText(d) to b.
func appendClock(b []byte, d time.Duration) []byte {
	ds := max(int64(d.Round(decisecond)/decisecond), 0)
	m, s := ds/600, ds%600
	if m < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, m, 10)
	return append(b, ':', byte('0'+s/100), byte('0'+s/10%10), '.', byte('0'+s%10))
}

// num formats a coordinate with at most one decimal, and none when it is
// whole: charts are a large part of a frame.
func num(f float64) string { return string(appendNum(nil, f)) }

// appendNum appends num(f): what strconv.AppendFloat(b,
// math.Round(f*10)/10, 'f', -1, 64) writes (TestAppendNumAsFormatted),
// without the shortest-decimal search: a tenth rounded from f is its
// integer part and one digit.
func appendNum(b []byte, f float64) []byte {
	t := math.Round(f * 10)
	if !(math.Abs(t) < 1<<53) || t == 0 && math.Signbit(t) {
		return strconv.AppendFloat(b, t/10, 'f', -1, 64) // NaN, ±Inf, huge, -0
	}
	n := int64(t)
	if n < 0 {
		b, n = append(b, '-'), -n
	}
	b = strconv.AppendInt(b, n/10, 10)
	if d := n % 10; d != 0 {
		b = append(b, '.', byte('0'+d))
	}
	return b
}
