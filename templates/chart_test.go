package templates

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/reconcile-demo/reconcile-demo/internal/golden"
)

// TestLineChartDrawsSteps: a series is a step line with a corner only where
// it changes, in deciseconds from the newest change, reaching far past it;
// the chart spans the window once the demo is that old, less before.
func TestLineChartDrawsSteps(t *testing.T) {
	var points []byte
	c := LineChart("rc", "title", "desc", time.Minute, twoSeries("a", "A", "b", "B"), &points)
	if c.Top != 5 {
		t.Fatalf("top %d, want 5 (at least)", c.Top)
	}
	// y of v: 144 - v/5*144.
	want := []string{
		"M-20 115.2H0V57.6H1000000",
		"M-20 144H-10V86.4H1000000",
	}
	for i, ln := range c.Lines {
		if ln.D != want[i] {
			t.Errorf("series %s path %q, want %q", ln.Class, ln.D, want[i])
		}
	}
	if vb := c.viewBox(); vb != "-200.0 0 200.0 144" {
		t.Errorf("a young demo spans the first 20 s: viewBox %q", vb)
	}
	if c.Origin != 2000 {
		t.Errorf("origin %d ms, want the newest step's 2000", c.Origin)
	}
	old := LineChart("rc", "t", "d", time.Minute, []Series{{Class: "a", Steps: []Step{{5*time.Minute + 300*time.Millisecond, 1}}}}, new([]byte))
	if vb := old.viewBox(); vb != "-600.0 0 600.0 144" {
		t.Errorf("an old demo spans the window: viewBox %q", vb)
	}
	if len(c.Table.Rows) != 3 || strings.Join(c.Table.Rows[2], " ") != "00:02.0 3 2" {
		t.Errorf("table %v", c.Table.Rows)
	}
}

func TestXTicks(t *testing.T) {
	for _, tc := range []struct {
		span time.Duration
		want string
	}{
		{20 * time.Second, "-20s -15s -10s -5s 0s"},
		{60 * time.Second, "-60s -45s -30s -15s 0s"},
		{42 * time.Second, "-30s -15s 0s"},
	} {
		var got []string
		for _, tk := range XTicks(tc.span) {
			got = append(got, tk.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("XTicks(%v) = %v, want %s", tc.span, got, tc.want)
		}
	}
}

// TestLogShowsTheNewestLines: a page shows at most LogShown lines, the
// newest, oldest first.
func TestLogShowsTheNewestLines(t *testing.T) {
	var lines []LogLine
	for i := 1; i <= LogShown+6; i++ {
		lines = append(lines, LogLine{Seq: i, At: "00:00.0", Kind: "k", Text: "line"})
	}
	var b strings.Builder
	if err := Log(Ja, "rc", "log", lines).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, "<li "); n != LogShown {
		t.Fatalf("%d lines shown, want %d", n, LogShown)
	}
	if !strings.Contains(html, `data-seq="7"`) || strings.Contains(html, `data-seq="6"`) || !strings.Contains(html, `data-value="24"`) {
		t.Fatalf("not the newest lines: %.300s", html)
	}
}

// TestLineRowsMatchesAScan: the table behind a line chart holds the newest
// moments at which any series changed, with each series' value then (the
// last step at or before it), as a plain scan of every step finds them,
// whatever the series and however many steps share a moment.
func TestLineRowsMatchesAScan(t *testing.T) {
	scan := func(series []Series) [][]string {
		var times []time.Duration
		for _, s := range series {
			for _, st := range s.Steps {
				times = append(times, st.At)
			}
		}
		slices.Sort(times)
		times = slices.Compact(times)
		times = times[max(0, len(times)-tableRows):]
		var rows [][]string
		for _, at := range times {
			row := []string{ClockText(at)}
			for _, s := range series {
				v := ""
				for _, st := range s.Steps {
					if st.At <= at {
						v = strconv.Itoa(st.V)
					}
				}
				row = append(row, v)
			}
			rows = append(rows, row)
		}
		return rows
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		series := make([]Series, 1+r.IntN(4))
		for i := range series {
			at := time.Duration(r.IntN(3)) * time.Second
			for range r.IntN(20) {
				series[i].Steps = append(series[i].Steps, Step{At: at, V: r.IntN(4)})
				at += time.Duration(r.IntN(3)) * time.Second // 0: steps sharing a moment
			}
		}
		if got, want := lineRowsOf(series), scan(series); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("series %v:\nrows %v\nwant %v", series, got, want)
		}
	}
}

// TestAppendNumAsFormatted: a chart's numbers are written as
// strconv.AppendFloat writes them rounded to a tenth, for coordinates,
// halves, negative zeros and what no chart holds.
func TestAppendNumAsFormatted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []float64{0, math.Copysign(0, -1), -0.04, 0.05, -0.05, 0.15, 2.25, -2.25, 115.2, 57.6, 1e6, -1e6, 123456.75,
		1e15, -1e15, 1 << 53, 1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64}
	for range 100000 {
		cases = append(cases, (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(8))))
	}
	for _, f := range cases {
		want := strconv.AppendFloat(nil, math.Round(f*10)/10, 'f', -1, 64)
		if got := appendNum(nil, f); string(got) != string(want) {
			t.Fatalf("appendNum(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestChartWritesItsGolden: the hand-written chart writes, byte for byte,
// what its templ component wrote for a line chart, a band chart and an
// empty one (testdata/chart.golden), names and labels escaped; the demos'
// goldens hold their charts too.
func TestChartWritesItsGolden(t *testing.T) {
	var pts []byte
	line := LineChart("rc", "Pods & <desired>", "desc \"q\"", time.Minute, twoSeries("s-a", "A<", "s-b", "B"), &pts)
	band := BandChart("op", "Phase", "d", time.Minute, []Span{{0, "b-x", "X"}, {1500 * time.Millisecond, "b-y", "Y&"}, {4 * time.Second, "b-x", "X"}}, "phase")
	empty := BandChart("op", "t", "d", time.Minute, nil, "h")
	var got strings.Builder
	for _, c := range []ChartProps{line, band, empty} {
		if err := Chart(c).Render(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		got.WriteString("\n")
	}
	golden.Check(t, "testdata/chart.golden", got.String())
}

// twoSeries are two series of three seconds: 1, 1, 3 and 0, 2, 2.
func twoSeries(classA, labelA, classB, labelB string) []Series {
	return []Series{
		{Class: classA, Label: labelA, Steps: []Step{{0, 1}, {time.Second, 1}, {2 * time.Second, 3}}},
		{Class: classB, Label: labelB, Steps: []Step{{0, 0}, {time.Second, 2}, {2 * time.Second, 2}}},
	}
}

// lineRowsOf returns lineRows' rows, their text in an array of their own.
func lineRowsOf(series []Series) [][]string {
	rows, _ := lineRows(series, nil)
	return rows
}

// TestChartHoldsItsPlotAndTable: the chart a frame sends holds its plot and
// its table as empty elements that the page keeps (hx-preserve), and the
// plot and the table written alone are what the whole chart has in their
// place.
func TestChartHoldsItsPlotAndTable(t *testing.T) {
	var pts []byte
	line := LineChart("rc", "Pods & <desired>", "desc", time.Minute, twoSeries("s-a", "A<", "s-b", "B"), &pts)
	band := BandChart("op", "Phase", "d", time.Minute, []Span{{0, "b-x", "X"}, {1500 * time.Millisecond, "b-y", "Y&"}}, "phase")
	render := func(c templ.Component) string {
		var b strings.Builder
		if err := c.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, c := range []ChartProps{line, band} {
		whole, held := render(Chart(c)), render(ChartHolding(c, false))
		plot, data := render(ChartPlot(c)), render(ChartData(c))
		for _, want := range []string{`<svg id="` + c.Prefix + `-chart-plot" hx-preserve></svg>`, `<div id="` + c.Prefix + `-chart-table" hx-preserve></div>`} {
			if !strings.Contains(held, want) {
				t.Errorf("%s: the held chart has no %s", c.Prefix, want)
			}
		}
		if strings.Contains(held, "<path") || strings.Contains(held, "<rect") || strings.Contains(held, "<td>") {
			t.Errorf("%s: the held chart writes its plot or table: %s", c.Prefix, held)
		}
		if !strings.HasPrefix(plot, `<svg id="`+c.Prefix+`-chart-plot" class="plot"`) || !strings.HasPrefix(data, `<div id="`+c.Prefix+`-chart-table" class="sr-only">`) {
			t.Errorf("%s: the plot or the table does not own its id: %.60s, %.60s", c.Prefix, plot, data)
		}
		if c.Prefix == "rc" { // a line chart draws only the parts asked for, as the whole has them
			of := func(parts ChartParts) ChartProps {
				return LineChartOf(parts, "rc", "Pods & <desired>", "desc", time.Minute, twoSeries("s-a", "A<", "s-b", "B"), new([]byte))
			}
			if got := render(ChartPlot(of(ChartLines))); got != plot {
				t.Errorf("the plot of the lines alone\n%s\nis not the whole chart's\n%s", got, plot)
			}
			if got := render(ChartData(of(ChartRows))); got != data {
				t.Errorf("the table of the rows alone\n%s\nis not the whole chart's\n%s", got, data)
			}
			if got := render(ChartHolding(of(ChartAxes), false)); got != held {
				t.Errorf("the held chart of its axes alone\n%s\nis not the whole chart's\n%s", got, held)
			}
			if p := of(ChartAxes); len(p.Lines) != 0 || len(p.Table.Rows) != 0 || len(p.Table.Head) != 0 {
				t.Errorf("LineChartOf(ChartAxes) drew %d lines, %d rows and a head of %d", len(p.Lines), len(p.Table.Rows), len(p.Table.Head))
			}
			if p := of(ChartLines | ChartRows); len(p.XTicks) != 0 || len(p.YTicks) != 0 || len(p.Legend) != 0 {
				t.Errorf("LineChartOf(ChartLines|ChartRows) drew %d and %d ticks and a legend of %d", len(p.XTicks), len(p.YTicks), len(p.Legend))
			}
		}
		rebuilt := strings.Replace(held, `<svg id="`+c.Prefix+`-chart-plot" hx-preserve></svg>`, plot, 1)
		rebuilt = strings.Replace(rebuilt, `<div id="`+c.Prefix+`-chart-table" hx-preserve></div>`, data, 1)
		if rebuilt != whole {
			t.Errorf("%s: the held chart with its plot and table put back\n%s\nis not the whole chart\n%s", c.Prefix, rebuilt, whole)
		}
	}
}
