// Click → DOM in Chromium, for every demo beside a bare WebSocket echo in
// the same browser and run (a benchmark script, not a timed test).
//
//   BASE=http://127.0.0.1:8099 BARE=http://127.0.0.1:8098 node bench/click.mjs
//   (make bench-page starts the server and the bare hub and runs it)
//
// Each click is timed in the page: from the click event to the end of the
// last htmx:wsAfterMessage handler (the DOM swapped and the page's own
// handlers done), split into the page before the send, the server and the
// network (send → the message event; it includes any rendering the page
// does meanwhile), the swap (static/app.js replaces each fragment by id),
// and the page's handlers (the snapshot kept, focus and log scroll
// restored).
import { chromium } from '@playwright/test';

const BASE = process.env.BASE || 'http://127.0.0.1:8099';
const BARE = process.env.BARE || 'http://127.0.0.1:8098';
const N = Number(process.env.CLICKS || 200);
const WARMUP = 20;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// What to click in each demo: buttons that change what the page shows, in
// turn; any demo not listed toggles pause.
const PLAN = {
  reconcile: ['[data-testid="replicas-inc"]', '[data-testid="replicas-dec"]'],
  operator: ['[data-testid="members-inc"]', '[data-testid="members-dec"]'],
};

const probe = () => {
  window.__bench = { samples: [], cur: null };
  const now = () => performance.now();
  document.addEventListener('click', (e) => {
    if (e.target.closest && e.target.closest('[ws-send]')) window.__bench.cur = { t0: now() };
  }, true);
  document.addEventListener('htmx:wsBeforeSend', () => {
    const c = window.__bench.cur; if (c && !c.send) c.send = now();
  });
  document.addEventListener('htmx:wsBeforeMessage', (e) => {
    const c = window.__bench.cur;
    if (c && c.send && !c.recv) { c.recv = now(); c.bytes = String(e.detail.message).length; }
  });
  document.addEventListener('htmx:wsAfterMessage', () => {
    const c = window.__bench.cur; if (c && c.recv && !c.swapped) c.swapped = now();
  });
  // Registered after app.js's own handlers, so it runs after them.
  window.addEventListener('load', () => document.addEventListener('htmx:wsAfterMessage', () => {
    const c = window.__bench.cur;
    if (c && c.swapped && !c.done) { c.done = now(); window.__bench.samples.push(c); window.__bench.cur = null; }
  }));
};

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] : NaN;
}
const ms = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-').padStart(6);

// MOUSE=1 clicks as a user does, through Chromium's input pipeline, which
// aligns input with the next frame: every click then waits for a frame
// (about 14 ms here, the bare echo's too). By default the button's own
// click() is called, which times the page and the server alone.
const MOUSE = process.env.MOUSE === '1';
const press = (page, sel) => MOUSE ? page.click(sel) : page.evaluate((s) => document.querySelector(s).click(), sel);

async function clicks(page, selectors, n) {
  for (let i = 0; i < n; i++) {
    const before = await page.evaluate(() => window.__bench.samples.length);
    await press(page, selectors[i % selectors.length]);
    await page.waitForFunction((k) => window.__bench.samples.length > k, before, { timeout: 10_000 });
    await page.waitForTimeout(20 + Math.random() * 30);
  }
}

const browser = await chromium.launch({ executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
await page.addInitScript(probe);
const kinds = (await (await fetch(`${BASE}/`)).text()).match(/data-testid="index-entry" data-kind="([a-z]+)"/g)
  .map((m) => m.match(/data-kind="([a-z]+)"/)[1]);

console.log(`click → DOM in Chromium, ${N} clicks each (ms), ${MOUSE ? 'mouse clicks' : 'button.click()'}`);
console.log('demo           p50    p90 | before server   swap handlers | frame bytes');
for (const kind of kinds) {
  await page.goto(`${BASE}/${kind}`);
  await page.waitForSelector('[data-testid="connection"][data-state="open"]');
  const plan = PLAN[kind] || ['[data-testid="pause"]'];
  await clicks(page, plan, WARMUP);
  await page.evaluate(() => { window.__bench.samples = []; });
  await clicks(page, plan, N);
  const s = await page.evaluate(() => window.__bench.samples);
  const col = (f) => s.map(f);
  console.log(`${kind.padEnd(12)} ${ms(pct(col((x) => x.done - x.t0), 50))} ${ms(pct(col((x) => x.done - x.t0), 90))} |` +
    ` ${ms(pct(col((x) => x.send - x.t0), 50))} ${ms(pct(col((x) => x.recv - x.send), 50))}` +
    ` ${ms(pct(col((x) => x.swapped - x.recv), 50))} ${ms(pct(col((x) => x.done - x.swapped), 50))} |` +
    ` ${String(pct(col((x) => x.bytes), 50)).padStart(6)}`);
}

const bare = await browser.newPage();
await bare.goto(`${BARE}/`);
await bare.waitForFunction(() => window.__bench && window.__bench.open);
const bareClicks = async (n) => {
  for (let i = 0; i < n; i++) {
    const before = await bare.evaluate(() => window.__bench.samples.length);
    await press(bare, '#b');
    await bare.waitForFunction((k) => window.__bench.samples.length > k, before);
    await bare.waitForTimeout(20 + Math.random() * 30);
  }
};
await bareClicks(WARMUP);
await bare.evaluate(() => { window.__bench.samples = []; });
await bareClicks(N);
const b = (await bare.evaluate(() => window.__bench.samples)).map((x) => x.total);
console.log(`${'bare echo'.padEnd(12)} ${ms(pct(b, 50))} ${ms(pct(b, 90))} |`);
await browser.close();
