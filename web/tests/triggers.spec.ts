// Chapter 000 ③: edge- and level-triggered, side by side. Two mirrored
// clusters receive the same changes; an edge-triggered controller (reacts
// to the events it hears) watches one, the chapter's level-triggered
// Reconcile (recounts every time) the other. Break the event stream and
// only the level side catches up: a lost death is never repaired on the
// edge side, a duplicated one makes it create one pod too many, and after
// a restart in the middle of a burst of kills it knows nothing at all.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test, expect, open, waitOpen, fast, speedButton, clockMs, JAPANESE, freePort, startServer, stopServers, type Locator, type Page } from './fixtures';

type Side = 'edge' | 'level';

const trDemo = (page: Page) => page.getByTestId('triggers-demo');
const cluster = (tr: Locator, s: Side) => tr.locator(`[data-testid="cluster"][data-trigger="${s}"]`);
const podIn = (c: Locator, name: string) => c.locator(`[data-testid="pod"][data-name="${name}"]`);
const events = (c: Locator) => c.getByTestId('event');
const lessonRow = (tr: Locator, row: string) => tr.locator(`[data-testid="lesson-row"][data-row="${row}"]`);

/** The side's pods as "name phase", in page order. */
async function podsOf(c: Locator): Promise<string[]> {
  return c.getByTestId('pod').evaluateAll((els) =>
    els.map((e) => `${e.getAttribute('data-name')} ${e.getAttribute('data-phase')}`));
}

/** Waits until the side has n pods, all Running, and says 一致. */
async function waitConverged(c: Locator, n: number) {
  await expect(c.locator('[data-testid="pod"][data-phase="Running"]')).toHaveCount(n);
  await expect(c.getByTestId('pod')).toHaveCount(n);
  await expect(c.getByTestId('observed')).toHaveAttribute('data-value', String(n));
  await expect(c.getByTestId('diff')).toHaveAttribute('data-converged', 'true');
}

/** The starting state: desired 3, both sides converged on pod-1..3. */
async function waitStart(tr: Locator) {
  await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', '3');
  for (const s of ['edge', 'level'] as const) {
    await waitConverged(cluster(tr, s), 3);
    expect(await podsOf(cluster(tr, s))).toEqual(['pod-1 Running', 'pod-2 Running', 'pod-3 Running']);
  }
}

/** Kills name through the edge column's card (the kill lands on both sides). */
async function kill(tr: Locator, name: string) {
  const before = await events(cluster(tr, 'level')).count() + await events(cluster(tr, 'edge')).count();
  await podIn(cluster(tr, 'edge'), name).getByTestId('kill').click();
  // Each side's cluster emits "died" down its stream, whatever its fate.
  await expect.poll(async () => await events(cluster(tr, 'level')).count() + await events(cluster(tr, 'edge')).count())
    .toBeGreaterThan(before);
}

/** Presses a switch or button and waits for the value it shows. */
async function press(btn: Locator, attr: string, value: string) {
  await btn.click();
  await expect(btn).toHaveAttribute(attr, value);
}

async function pause(tr: Locator) {
  await press(tr.getByTestId('pause'), 'data-value', 'true');
  await expect(tr.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
}

async function resume(tr: Locator) {
  await press(tr.getByTestId('pause'), 'data-value', 'false');
  await expect(tr.getByTestId('clock')).toHaveAttribute('data-paused', 'false');
}

/** The number of lines in a side's controller log. */
const logCount = async (c: Locator) => Number(await c.getByTestId('log').getAttribute('data-value'));

test.describe('triggers demo: the chapter\'s story', () => {
  test('starts with desired 3 on both sides, converged, the stream healthy', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    await waitStart(tr);
    await expect(tr.getByTestId('drop-events')).toHaveAttribute('data-value', 'false');
    await expect(tr.getByTestId('duplicate-next')).toHaveAttribute('data-armed', 'false');
    await expect(tr.getByTestId('swap-next')).toHaveAttribute('data-armed', 'false');
    await expect(tr.getByTestId('restart')).toHaveAttribute('data-value', 'false');
    await expect(tr.getByTestId('event')).toHaveCount(0);
    await expect(tr.getByTestId('lesson-row')).toHaveCount(5);
    expect(await tr.getByTestId('lesson-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-row'))))
      .toEqual(['writes', 'trigger', 'missed', 'recovery', 'example']);
    await expect(tr.locator('[data-testid="lesson-row"][data-active="true"]')).toHaveCount(0);
    await expect(cluster(tr, 'edge').getByTestId('memory')).toHaveAttribute('data-value', '3');
    // Time runs, and nothing changes: a converged demo is quiet.
    const t0 = await clockMs(tr);
    await expect.poll(() => clockMs(tr)).toBeGreaterThan(t0 + 1500);
    await waitStart(tr);
    await expect(tr.getByTestId('event')).toHaveCount(0);
  });

  test('events dropped: a killed pod is repaired on the level side and never on the edge side', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    const edge = cluster(tr, 'edge');
    const level = cluster(tr, 'level');
    await fast(tr);
    await waitStart(tr);

    await press(tr.getByTestId('drop-events'), 'data-value', 'true');
    await kill(tr, 'pod-1');
    // The death is lost on both streams ...
    for (const c of [edge, level]) {
      await expect(events(c).first()).toHaveAttribute('data-kind', 'died');
      await expect(events(c).first()).toHaveAttribute('data-fate', 'dropped');
      await expect(events(c).first()).toHaveAttribute('data-pod', 'pod-1');
    }
    await expect(lessonRow(tr, 'missed')).toHaveAttribute('data-active', 'true');
    // ... the level side recounts at its next reconcile and catches up ...
    await waitConverged(level, 3);
    expect(await podsOf(level)).toEqual(['pod-2 Running', 'pod-3 Running', 'pod-4 Running']);
    // ... the edge side never heard of it: pod-1 stays Failed, for good.
    await expect(podIn(edge, 'pod-1')).toHaveAttribute('data-phase', 'Failed');
    await expect(edge.getByTestId('observed')).toHaveAttribute('data-value', '2');
    await expect(edge.getByTestId('diff')).toHaveAttribute('data-converged', 'false');
    await expect(edge.getByTestId('diff')).toHaveAttribute('data-state', 'stuck');
    await expect(edge.getByTestId('memory')).toHaveAttribute('data-value', '3'); // it still believes pod-1 alive

    // However many steps: each is one more recount on the level side and
    // nothing on the edge side, which has no event to handle.
    await pause(tr);
    for (let i = 0; i < 5; i++) {
      const n = await logCount(level);
      await tr.getByTestId('step').click();
      await expect.poll(() => logCount(level)).toBe(Math.min(n + 1, 24));
      await expect(podIn(edge, 'pod-1')).toHaveAttribute('data-phase', 'Failed');
      await expect(edge.getByTestId('observed')).toHaveAttribute('data-value', '2');
    }
    await expect(level.locator('[data-testid="log"] li[data-kind="noop"]')).toHaveCount(5);
    await expect(edge.getByTestId('log')).toHaveAttribute('data-value', '0');

    // The network comes back; time runs: still nothing on the edge side.
    await press(tr.getByTestId('drop-events'), 'data-value', 'false');
    await resume(tr);
    const t0 = await clockMs(tr);
    await expect.poll(() => clockMs(tr)).toBeGreaterThan(t0 + 4000);
    expect(await podsOf(edge)).toEqual(['pod-1 Failed', 'pod-2 Running', 'pod-3 Running']);
    await expect(edge.getByTestId('diff')).toHaveAttribute('data-state', 'stuck');
    await waitConverged(level, 3);
  });

  test('a duplicated event makes the edge side create one pod too many, the level side not', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    const edge = cluster(tr, 'edge');
    const level = cluster(tr, 'level');
    await fast(tr);
    await waitStart(tr);

    await press(tr.getByTestId('duplicate-next'), 'data-armed', 'true');
    await expect(edge.getByTestId('stream')).toHaveAttribute('data-dup-armed', 'true');
    await kill(tr, 'pod-2');
    await expect(tr.getByTestId('duplicate-next')).toHaveAttribute('data-armed', 'false');
    for (const c of [edge, level]) {
      const died = c.locator('[data-testid="event"][data-kind="died"]');
      await expect(died).toHaveAttribute('data-fate', 'duplicated');
      await expect(died).toHaveAttribute('data-delivered', '2');
    }
    // "A pod died", twice: the edge controller created twice.
    await expect(edge.getByTestId('observed')).toHaveAttribute('data-value', '4');
    await expect(edge.locator('[data-testid="pod"][data-phase="Running"]')).toHaveCount(4);
    expect(await podsOf(edge)).toEqual(['pod-1 Running', 'pod-3 Running', 'pod-4 Running', 'pod-5 Running']);
    await expect(edge.getByTestId('diff')).toHaveAttribute('data-state', 'stuck');
    await expect(edge.locator('[data-testid="log"] li[data-kind="create"]')).toHaveCount(2);
    await expect(lessonRow(tr, 'trigger')).toHaveAttribute('data-active', 'true');
    // The level side recounted on each copy; the second found nothing to do.
    await waitConverged(level, 3);
    expect(await podsOf(level)).toEqual(['pod-1 Running', 'pod-3 Running', 'pod-4 Running']);
    await expect(level.locator('[data-testid="log"] li[data-kind="create"]')).toHaveCount(1);
  });

  test('after a restart during a burst of kills, only the level side recovers', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    const edge = cluster(tr, 'edge');
    const level = cluster(tr, 'level');
    await fast(tr);
    await waitStart(tr);

    // Paused, so the deaths are still on their way when the restart comes.
    await pause(tr);
    await kill(tr, 'pod-1');
    await kill(tr, 'pod-2');
    await expect(edge.locator('[data-testid="event"][data-inflight="true"]')).toHaveCount(2);
    await press(tr.getByTestId('restart'), 'data-value', 'true');
    await expect(tr.getByTestId('restart')).toBeDisabled();
    await expect(edge.getByTestId('memory')).toHaveAttribute('data-value', '0');
    for (const c of [edge, level]) {
      await expect(c.locator('[data-testid="event"][data-fate="dropped"]')).toHaveCount(2);
      await expect(c.getByTestId('diff')).toHaveAttribute('data-state', 'down');
    }
    // While down, a step is refused and says why.
    await tr.getByTestId('step').click();
    await expect(tr.getByTestId('error')).toHaveAttribute('data-value', 'true');
    // One more kill while nobody listens.
    await kill(tr, 'pod-3');
    await expect(edge.locator('[data-testid="event"][data-kind="died"][data-pod="pod-3"]')).toHaveAttribute('data-fate', 'dropped');
    await resume(tr);

    await expect(tr.getByTestId('restart')).toHaveAttribute('data-value', 'false');
    await expect(lessonRow(tr, 'recovery')).toHaveAttribute('data-active', 'true');
    await waitConverged(level, 3);
    expect(await podsOf(level)).toEqual(['pod-4 Running', 'pod-5 Running', 'pod-6 Running']);
    // The edge controller came back knowing nothing, and heard nothing.
    expect(await podsOf(edge)).toEqual(['pod-1 Failed', 'pod-2 Failed', 'pod-3 Failed']);
    await expect(edge.getByTestId('observed')).toHaveAttribute('data-value', '0');
    await expect(edge.getByTestId('diff')).toHaveAttribute('data-state', 'stuck');
    await expect(edge.locator('[data-testid="log"] li[data-kind="startup"]')).toHaveCount(1);
    const t0 = await clockMs(tr);
    await expect.poll(() => clockMs(tr)).toBeGreaterThan(t0 + 3000);
    await expect(edge.getByTestId('observed')).toHaveAttribute('data-value', '0');
  });

  test('swapped events: the edge side acts on a stale difference, the level side recounts', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    const edge = cluster(tr, 'edge');
    const level = cluster(tr, 'level');
    await fast(tr);
    await waitStart(tr);
    await press(tr.getByTestId('swap-next'), 'data-armed', 'true');
    await tr.getByTestId('replicas-inc').click();
    await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await tr.getByTestId('replicas-dec').click();
    await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await expect(edge.locator('[data-testid="event"][data-fate="swapped"]')).toHaveCount(2);
    await expect(lessonRow(tr, 'trigger')).toHaveAttribute('data-active', 'true');
    // It heard "4 → 3" first and deleted pod-3, which was needed.
    await expect(edge.locator('[data-testid="log"] li[data-kind="delete"]').first()).toContainText('pod-3');
    await waitConverged(level, 3);
    expect(await podsOf(level)).toEqual(['pod-1 Running', 'pod-2 Running', 'pod-3 Running']);
  });
});

test.describe('triggers demo: controls', () => {
  test('desired and kill act on both sides; bounds refuse; reset goes back to the start', async ({ page }) => {
    await open(page, '/triggers');
    const tr = trDemo(page);
    await fast(tr);
    await waitStart(tr);
    await tr.getByTestId('replicas-inc').click();
    await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect(lessonRow(tr, 'writes')).toHaveAttribute('data-active', 'true');
    for (const s of ['edge', 'level'] as const) await waitConverged(cluster(tr, s), 4);
    // The keyboard: "-" is fewer replicas.
    await tr.getByTestId('replicas-dec').focus();
    await page.keyboard.press('-');
    await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', '3');
    for (const s of ['edge', 'level'] as const) await waitConverged(cluster(tr, s), 3);
    for (let n = 2; n >= 0; n--) {
      await tr.getByTestId('replicas-dec').click();
      await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', String(n));
    }
    await expect(tr.getByTestId('replicas-dec')).toBeDisabled();
    for (const s of ['edge', 'level'] as const) await waitConverged(cluster(tr, s), 0);
    await tr.getByTestId('reset').click();
    await waitStart(tr);
    await expect(tr.getByTestId('event')).toHaveCount(0);
    await expect(tr.locator('[data-testid="log"] li[data-kind="reset"]')).toHaveCount(2);
    // A kill on the level column's card lands on both sides too.
    await podIn(cluster(tr, 'level'), 'pod-3').getByTestId('kill').click();
    for (const s of ['edge', 'level'] as const) {
      await expect(cluster(tr, s).locator('[data-testid="event"][data-kind="died"][data-pod="pod-3"]')).toHaveCount(1);
    }
    for (const s of ['edge', 'level'] as const) await waitConverged(cluster(tr, s), 3);
  });
});

// ---------------------------------------------------------------- a11y, i18n, layout

/** A state with every kind of chip and text: a death lost in a blip. */
async function stage(page: Page) {
  const tr = trDemo(page);
  await fast(tr);
  await waitStart(tr);
  await press(tr.getByTestId('drop-events'), 'data-value', 'true');
  await kill(tr, 'pod-1');
  await waitConverged(cluster(tr, 'level'), 3);
  await press(tr.getByTestId('drop-events'), 'data-value', 'false');
  await press(tr.getByTestId('duplicate-next'), 'data-armed', 'true');
  await kill(tr, 'pod-2');
  await expect(cluster(tr, 'edge').getByTestId('observed')).toHaveAttribute('data-value', '3');
  await waitConverged(cluster(tr, 'level'), 3);
  await speedButton(tr, '1').click();
  await expect(tr.getByTestId('speed')).toHaveAttribute('data-value', '1');
}

/** Ten replicas on both sides: the fullest the level side gets. */
async function tenReplicas(tr: Locator) {
  for (let n = Number(await tr.getByTestId('desired').getAttribute('data-value')) + 1; n <= 10; n++) {
    await tr.getByTestId('replicas-inc').click();
    await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', String(n));
  }
  await waitConverged(cluster(tr, 'level'), 10);
}

test.describe('triggers demo: languages and screens', () => {
  // axe scans /triggers and /embed/triggers in both languages and modes
  // with every other page (a11y.spec.ts).

  for (const route of ['/triggers?lang=en', '/embed/triggers?lang=en']) {
    test(`no Japanese on ${route}`, async ({ page }) => {
      await open(page, route);
      await stage(page);
      const tr = trDemo(page);
      await pause(tr);
      await press(tr.getByTestId('restart'), 'data-value', 'true');
      const text = await page.locator('body').innerText();
      expect(text.match(new RegExp(JAPANESE.source, 'g')) ?? []).toEqual([]);
      const attrs = await page.evaluate(() => Array.from(document.querySelectorAll('*')).flatMap((e) =>
        Array.from(e.attributes).map((a) => a.value)).join('\n'));
      expect(attrs.match(/[\u3040-\u30ff\u3400-\u9fff]/g) ?? []).toEqual([]);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    });
  }

  for (const lang of ['', '?lang=en']) {
    test(`360 px: nothing scrolls sideways${lang}`, async ({ page }) => {
      await page.setViewportSize({ width: 360, height: 800 });
      await open(page, '/triggers' + lang);
      await stage(page);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.getByTestId('replicas-inc').click();
      await expect(page.getByTestId('desired')).toHaveAttribute('data-value', '4');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    });
  }

  for (const lang of ['', '&lang=en']) {
    test(`projector 1920×1080: the story fits one screen${lang}`, async ({ page }) => {
      await page.setViewportSize({ width: 1920, height: 1080 });
      await open(page, '/triggers?mode=present' + lang);
      await expect(page.locator('body')).toHaveClass(/\bpresent\b/);
      await stage(page);
      const tr = trDemo(page);
      await tenReplicas(tr);
      for (const id of ['lesson', 'restart', 'step']) {
        const box = await tr.getByTestId(id).first().boundingBox();
        expect(box!.y + box!.height, `${id} bottom`).toBeLessThanOrEqual(1080);
      }
      for (const s of ['edge', 'level'] as const) {
        // A frame may swap the stream out between finding it and measuring it.
        await expect.poll(async () => {
          const box = await cluster(tr, s).getByTestId('stream').boundingBox();
          return box ? box.y + box.height : Infinity;
        }, { message: `${s} stream bottom` }).toBeLessThanOrEqual(1080);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1920);
      // Big targets for a presenter.
      for (const id of ['step', 'restart', 'drop-events', 'duplicate-next', 'swap-next', 'replicas-inc']) {
        const box = await tr.getByTestId(id).first().boundingBox();
        expect(box!.height, `${id} height`).toBeGreaterThanOrEqual(44);
      }
    });
  }
});

// ---------------------------------------------------------------- embed

let parent: http.Server;
let parentURL = '';

test.describe('triggers demo: embedded', () => {
  test.beforeAll(async () => {
    parent = http.createServer((req, res) => {
      const src = new URL(req.url || '/', 'http://x').searchParams.get('src') || '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapter</title>
<link rel="icon" href="data:,"></head><body style="margin:0;padding:16px">
<h1>Chapter 000</h1><iframe id="demo" title="demo" src="${src}" style="width:900px;height:300px;border:0"></iframe>
<script>window.resizes = [];
addEventListener('message', function (e) {
  if (!e.data || e.data.type !== 'reconcile-demo:resize') return;
  window.resizes.push(e.data.height);
  document.getElementById('demo').style.height = e.data.height + 'px';
});</script></body></html>`);
    });
    await new Promise<void>((r) => parent.listen(0, '127.0.0.1', r));
    parentURL = `http://localhost:${(parent.address() as AddressInfo).port}/`;
  });
  test.afterAll(async () => { await new Promise((r) => parent.close(r)); });

  test('works in a cross-origin iframe and sizes it', async ({ page, baseURL }) => {
    const src = `${baseURL}/embed/triggers`;
    await page.goto(`${parentURL}?src=${encodeURIComponent(src)}`);
    const frame = page.frameLocator('#demo');
    const tr = frame.getByTestId('triggers-demo');
    await expect(tr.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expect(frame.locator('header.site-head')).toHaveCount(0);
    const last = async () => (await page.evaluate(() => (window as unknown as { resizes: number[] }).resizes)).at(-1) ?? 0;
    await expect.poll(last).toBeGreaterThan(0);
    await fast(tr);
    await waitStart(tr);
    const h1 = await last();
    await expect(page.locator('#demo')).toHaveCSS('height', `${h1}px`);
    // More pods, a taller frame.
    for (let n = 4; n <= 10; n++) {
      // The frame grows as pods come: a click by coordinates may land where
      // the button was a moment ago, so dispatch it to the button itself.
      await tr.getByTestId('replicas-inc').dispatchEvent('click');
      await expect(tr.getByTestId('desired')).toHaveAttribute('data-value', String(n));
    }
    await waitConverged(cluster(tr, 'level'), 10);
    await expect.poll(last, { message: 'the frame reports a taller height' }).toBeGreaterThan(h1);
    const h2 = await last();
    await expect.poll(() => frame.locator('html').evaluate((el) => el.scrollHeight)).toBeLessThanOrEqual(h2 + 1);
  });
});

// ---------------------------------------------------------------- snapshot resume

test.describe('triggers demo: snapshot resume', () => {
  test.afterAll(stopServers);

  test('a restarted server rebuilds both sides from the page\'s snapshot', async ({ page, errors }) => {
    test.setTimeout(90_000);
    // While no server listens the browser reports the refused reconnects.
    errors.allow(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws\?.*' failed/);
    errors.allow(/^console\.error: (Event|\[object Event\]|JSHandle@object)/);
    const port = await freePort();
    const first = await startServer(port);
    await page.goto(`http://127.0.0.1:${port}/triggers`);
    const tr = trDemo(page);
    await waitOpen(tr);
    await fast(tr);
    await waitStart(tr);
    // A distinctive state: drop on, pod-1 lost on the edge side, paused.
    await press(tr.getByTestId('drop-events'), 'data-value', 'true');
    await kill(tr, 'pod-1');
    await waitConverged(cluster(tr, 'level'), 3);
    await pause(tr);
    const sid = await tr.getAttribute('data-sid');
    await expect.poll(() => page.evaluate((k) => {
      const v = sessionStorage.getItem(k);
      return v ? JSON.parse(v).world.drop : null;
    }, `snap:${sid}`)).toBe(true);
    const before = { edge: await podsOf(cluster(tr, 'edge')), level: await podsOf(cluster(tr, 'level')) };
    const clock = await clockMs(tr);

    first.proc.kill('SIGTERM');
    await expect(tr.getByTestId('connection')).toHaveAttribute('data-state', /^(closed|connecting)$/);
    await first.exited;
    await startServer(port);
    await expect(tr.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 40_000 });
    await expect(tr.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(2);
    expect(await podsOf(cluster(tr, 'edge'))).toEqual(before.edge);
    expect(await podsOf(cluster(tr, 'level'))).toEqual(before.level);
    await expect(tr.getByTestId('drop-events')).toHaveAttribute('data-value', 'true');
    await expect(tr.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    expect(await clockMs(tr)).toBe(clock);
    await expect(cluster(tr, 'edge').getByTestId('diff')).toHaveAttribute('data-state', 'stuck');
    await expect(lessonRow(tr, 'missed')).toHaveAttribute('data-active', 'true');
    await expect(cluster(tr, 'edge').locator('[data-testid="event"][data-fate="dropped"]')).toHaveCount(1);
    // It carries on: a kill on the new process lands on both sides.
    await press(tr.getByTestId('drop-events'), 'data-value', 'false');
    await resume(tr);
    await kill(tr, 'pod-2');
    await waitConverged(cluster(tr, 'level'), 3);
    await expect(cluster(tr, 'edge').locator('[data-testid="pod"][data-phase="Running"]')).toHaveCount(2);
    expect(await podsOf(cluster(tr, 'edge'))).toEqual(['pod-1 Failed', 'pod-3 Running', 'pod-4 Running']);
  });
});

// ---------------------------------------------------------------- screenshots

const DIR = path.resolve(__dirname, '..', 'screenshots');

test.describe('screenshots', { tag: '@screenshot' }, () => {
  const shots = [
    { name: 'triggers-desktop', path: '/triggers', viewport: { width: 1366, height: 900 }, fullPage: true },
    { name: 'triggers-projector', path: '/triggers?mode=present', viewport: { width: 1920, height: 1080 }, fullPage: false },
    { name: 'triggers-phone', path: '/triggers', viewport: { width: 360, height: 800 }, fullPage: true },
    { name: 'triggers-en', path: '/triggers?lang=en', viewport: { width: 1366, height: 900 }, fullPage: true },
    { name: 'triggers-projector-10', path: '/triggers?mode=present&lang=en', viewport: { width: 1920, height: 1080 }, fullPage: true, ten: true },
  ];
  for (const s of shots) {
    test(s.name, async ({ page }) => {
      await page.setViewportSize(s.viewport);
      await open(page, s.path);
      await stage(page);
      if ('ten' in s) await tenReplicas(trDemo(page));
      await page.screenshot({ path: path.join(DIR, `${s.name}.png`), fullPage: s.fullPage, animations: 'disabled' });
    });
  }
});
