// The charts' scrolling (templates.Chart), linked by the demos that draw
// one: each plot is drawn in time coordinates, so the page moves its
// viewBox, and redraws the seconds under it, as the demo's clock runs
// (static/app.js runs the clock and keeps its data-value at the virtual
// time). The server sends a chart only when its numbers change.
(function () {
  'use strict';

  var tickSpans = new WeakMap(); // tick group -> span it was drawn for
  function drawTicks(g, span) {
    if (tickSpans.get(g) === span) return;
    tickSpans.set(g, span);
    var x0 = Number(g.getAttribute('data-plot-x')), w = Number(g.getAttribute('data-plot-w'));
    var y = g.getAttribute('data-y'), total = Math.floor(span / 1000), step = span < 40000 ? 5 : 15;
    var ns = 'http://www.w3.org/2000/svg';
    while (g.firstChild) g.removeChild(g.firstChild);
    for (var s = total % step; s <= total; s += step) {
      var t = document.createElementNS(ns, 'text');
      t.setAttribute('class', 'tick'); t.setAttribute('y', y); t.setAttribute('text-anchor', 'middle');
      t.setAttribute('x', (x0 + s / (span / 1000) * w).toFixed(1));
      t.textContent = s === total ? '0s' : '-' + (total - s) + 's';
      g.appendChild(t);
    }
  }
  // A line's last step reaches far into the future (templates.farFuture,
  // 28 hours), so the server need not send it again as the clock runs. The
  // page ends it just past the view's right edge: Chromium dashes a line
  // along its whole length, and desired's dashed line, a hundred thousand
  // dashes long, kept a core rasterizing a quiet reconcile page.
  var FAR = 1000000;
  var heads = new WeakMap(); // line -> its path up to the far step
  function endLines(plot, right) {
    plot.querySelectorAll('path.series').forEach(function (p) {
      var head = heads.get(p);
      if (head === undefined) {
        var d = p.getAttribute('d') || '', i = d.lastIndexOf('H');
        head = i > 0 && Number(d.slice(i + 1)) === FAR ? d.slice(0, i) : null;
        heads.set(p, head);
      }
      if (head !== null) p.setAttribute('d', head + 'H' + (Math.ceil(right) + 1));
    });
  }
  function drawCharts() {
    document.querySelectorAll('[data-chart-plot]').forEach(function (plot) {
      var demo = plot.closest('[data-demo]');
      var clock = demo && demo.querySelector('[data-testid="clock"]');
      if (!clock) return;
      var now = Number(clock.getAttribute('data-value')) || 0;
      var win = Number(plot.getAttribute('data-window')), min = Number(plot.getAttribute('data-min-span'));
      var span = Math.min(win, Math.max(Math.floor(now / 1000) * 1000, min));
      var x = (now - Number(plot.getAttribute('data-origin')) - span) / 100;
      plot.setAttribute('viewBox', x.toFixed(1) + ' 0 ' + (span / 100).toFixed(1) + ' ' + plot.getAttribute('data-plot-h'));
      endLines(plot, x + span / 100);
      var g = plot.parentNode.querySelector('[data-chart-ticks]');
      if (g) drawTicks(g, span);
    });
  }
  // Drawn in the same task as what moves them: the clock's tick
  // (app.js sets its data-value) or a frame that swaps a chart in. A timer
  // of its own had made the browser lay out and paint a quiet demo twice
  // a tick.
  new MutationObserver(drawCharts).observe(document.body,
    { subtree: true, childList: true, attributeFilter: ['data-value'] });
})();
