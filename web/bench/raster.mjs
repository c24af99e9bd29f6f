// What a quiet demo page costs the browser: for every demo, at a desktop's
// and a projector's size, the CPU Chromium spends over two seconds of a
// page left alone (its clock running) after a reader's first clicks, on
// its main thread and rasterizing (a benchmark script, not a timed test).
//
//   BASE=http://127.0.0.1:8099 node bench/raster.mjs
//   (make bench-raster starts the server and runs it)
//
// Chromium here rasterizes in software, as on a laptop without a GPU: a
// page that repaints a costly picture on every tick of its clock shows as
// raster time. A reconcile page kept a core busy this way (its dashed
// desired line drawn 28 hours long, static/chart.js).
import { chromium } from '@playwright/test';

const BASE = process.env.BASE || 'http://127.0.0.1:8099';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SECONDS = Number(process.env.SECONDS || 2);
const SIZES = [['desktop', 1366, 900, ''], ['projector', 1920, 1080, '?mode=present']];
// A reader's first clicks, which leave the demo as it was declared; the
// reconcile page was cheap until its desired count first changed.
const CLICKS = {
  reconcile: ['[data-testid="replicas-inc"]', '[data-testid="replicas-dec"]'],
  operator: ['[data-testid="members-inc"]', '[data-testid="members-dec"]'],
};

const browser = await chromium.launch({ executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'] });
const kinds = (await (await fetch(`${BASE}/`)).text()).match(/data-testid="index-entry" data-kind="([a-z]+)"/g)
  .map((m) => m.match(/data-kind="([a-z]+)"/)[1]);

console.log(`a quiet page's CPU in Chromium over ${SECONDS} s (ms): main thread, raster`);
console.log('demo          size        main  raster');
for (const kind of kinds) {
  for (const [size, width, height, query] of SIZES) {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${BASE}/${kind}${query}`);
    await page.waitForSelector('[data-testid="connection"][data-state="open"]');
    for (const sel of CLICKS[kind] || []) {
      await page.click(sel);
      await page.waitForTimeout(300);
    }
    await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline', 'toplevel'] });
    await page.waitForTimeout(SECONDS * 1000);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const threads = {};
    for (const e of trace.traceEvents) if (e.ph === 'M' && e.name === 'thread_name') threads[`${e.pid}/${e.tid}`] = e.args.name;
    let main = 0, raster = 0;
    for (const e of trace.traceEvents) {
      if (e.ph !== 'X') continue;
      if (e.name === 'RasterTask') raster += e.tdur || 0;
      if (e.name === 'ThreadControllerImpl::RunTask' && threads[`${e.pid}/${e.tid}`] === 'CrRendererMain') main += e.tdur || 0;
    }
    console.log(`${kind.padEnd(13)} ${size.padEnd(10)} ${(main / 1000).toFixed(0).padStart(5)} ${(raster / 1000).toFixed(0).padStart(7)}`);
    await page.close();
  }
}
await browser.close();
