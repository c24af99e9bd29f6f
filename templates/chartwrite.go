package templates

import "github.com/a-h/templ"

// Chart owns <prefix>-chart, whole. Its plot is drawn in time coordinates:
// the page moves the plot's viewBox as the clock runs, so the chart scrolls
// with no frame from the server; the numbers behind it are in a table for
// screen readers.
//
// It is written by hand, as the templ component it was wrote it
// (testdata/chart.golden, and the demos' goldens): a chart is redrawn with
// most of reconcile's and operator's actions, and templ formatted, boxed
// and escaped each of its two hundred dynamic attributes.
func Chart(c ChartProps) templ.Component { return ChartHolding(c, true) }

// ChartHolding is the chart as a demo declares it: the plot
// (<prefix>-chart-plot: its lines, bands and the view it scrolls) and the
// table (<prefix>-chart-table) are fragments of their own, which change
// with each value, where the axes, the ticks and the legend change only
// with the scale. It writes them whole when whole (on the page), and else
// as empty elements with hx-preserve, so the page keeps its own.
func ChartHolding(c ChartProps, whole bool) templ.Component {
	return handWritten(func(h *HTML) { writeChart(h, c, whole) })
}

// ChartPlot is the chart's plot alone, a fragment of its own.
func ChartPlot(c ChartProps) templ.Component { return handWritten(func(h *HTML) { writePlot(h, c) }) }

// ChartData is the chart's table alone, a fragment of its own.
func ChartData(c ChartProps) templ.Component { return handWritten(func(h *HTML) { writeTable(h, c) }) }

// writeChart writes the chart, its plot and its table whole or held.
func writeChart(h *HTML, c ChartProps, whole bool) {
	h.Raw(`<figure id="`)
	h.Text(c.Prefix)
	h.Raw(`-chart" class="panel chart" data-testid="chart"><figcaption id="`)
	h.Text(c.Prefix)
	h.Raw(`-chart-title">`)
	h.Text(c.Title)
	h.Raw(`</figcaption><svg viewBox="0 0 `)
	h.Int(chartW)
	h.Raw(` `)
	h.Int(chartH)
	h.Raw(`" role="img" aria-labelledby="`)
	h.Text(c.Prefix)
	h.Raw(`-chart-title `)
	h.Text(c.Prefix)
	h.Raw(`-chart-desc"><desc id="`)
	h.Text(c.Prefix)
	h.Raw(`-chart-desc">`)
	h.Text(c.Desc)
	h.Raw(`</desc>`)
	for _, t := range c.YTicks {
		h.Raw(` <line class="grid" x1="`)
		h.Int(plotX)
		h.Raw(`" x2="`)
		h.Int(chartW)
		h.Raw(`" y1="`)
		h.Float1(t.Pos)
		h.Raw(`" y2="`)
		h.Float1(t.Pos)
		h.Raw(`"></line> <text class="tick" x="34" y="`)
		h.Float1(t.Pos + 5)
		h.Raw(`" text-anchor="end">`)
		h.Text(t.Label)
		h.Raw(`</text>`)
	}
	h.Raw(` <g class="xticks" data-chart-ticks data-plot-x="`)
	h.Int(plotX)
	h.Raw(`" data-plot-w="`)
	h.Int(plotW)
	h.Raw(`" data-y="`)
	h.Int(chartH - 4)
	h.Raw(`">`)
	for _, t := range c.XTicks {
		h.Raw(`<text class="tick" x="`)
		h.Float1(t.Pos)
		h.Raw(`" y="`)
		h.Int(chartH - 4)
		h.Raw(`" text-anchor="middle">`)
		h.Text(t.Label)
		h.Raw(`</text>`)
	}
	h.Raw(`</g> `)
	if whole {
		writePlot(h, c)
	} else {
		h.Raw(`<svg id="`)
		h.Text(c.Prefix)
		h.Raw(`-chart-plot" hx-preserve></svg>`)
	}
	h.Raw(`</svg> `)
	if len(c.Legend) > 0 {
		h.Raw(`<ul class="legend">`)
		for _, lg := range c.Legend {
			h.Raw(`<li class="`)
			h.Text(lg.Class)
			h.Raw(`"><span class="swatch" aria-hidden="true"></span>`)
			h.Text(lg.Label)
			h.Raw(`</li>`)
		}
		h.Raw(`</ul>`)
	}
	if whole {
		writeTable(h, c)
	} else {
		h.Raw(`<div id="`)
		h.Text(c.Prefix)
		h.Raw(`-chart-table" hx-preserve></div>`)
	}
	h.Raw(`</figure>`)
}

// writePlot writes the plot: <prefix>-chart-plot, the nested SVG of the
// chart's lines or bands, whose x axis is virtual time from the origin.
func writePlot(h *HTML, c ChartProps) {
	h.Raw(`<svg id="`)
	h.Text(c.Prefix)
	h.Raw(`-chart-plot" class="plot" x="`)
	h.Int(plotX)
	h.Raw(`" y="`)
	h.Int(plotY)
	h.Raw(`" width="`)
	h.Int(plotW)
	h.Raw(`" height="`)
	h.Int(plotH)
	h.Raw(`" viewBox="`)
	h.Text(c.viewBox())
	h.Raw(`" preserveAspectRatio="none" data-chart-plot data-origin="`)
	h.Int64(c.Origin)
	h.Raw(`" data-window="`)
	h.Int64(c.Window)
	h.Raw(`" data-min-span="`)
	h.Int64(c.MinSpan)
	h.Raw(`" data-plot-h="`)
	h.Int(plotH)
	h.Raw(`">`)
	for _, b := range c.Bands {
		h.Raw(`<rect class="band `)
		h.Text(b.Class)
		h.Raw(`" x="`)
		h.Float1(b.X)
		h.Raw(`" y="0" width="`)
		h.Float1(b.W)
		h.Raw(`" height="`)
		h.Int(plotH)
		h.Raw(`"></rect> `)
	}
	for _, ln := range c.Lines {
		h.Raw(`<path class="series `)
		h.Text(ln.Class)
		h.Raw(`" d="`)
		h.Text(ln.D)
		h.Raw(`"></path>`)
	}
	h.Raw(`</svg>`)
}

// writeTable writes the table for screen readers: <prefix>-chart-table.
func writeTable(h *HTML, c ChartProps) {
	h.Raw(`<div id="`)
	h.Text(c.Prefix)
	h.Raw(`-chart-table" class="sr-only"><table data-testid="chart-table"><caption>`)
	h.Text(c.Title)
	h.Raw(`</caption> <thead><tr>`)
	for _, th := range c.Table.Head {
		h.Raw(`<th scope="col">`)
		h.Text(th)
		h.Raw(`</th>`)
	}
	h.Raw(`</tr></thead> <tbody>`)
	for _, r := range c.Table.Rows {
		h.Raw(`<tr>`)
		for _, v := range r {
			h.Raw(`<td>`)
			h.Text(v)
			h.Raw(`</td>`)
		}
		h.Raw(`</tr>`)
	}
	h.Raw(`</tbody></table></div>`)
}
