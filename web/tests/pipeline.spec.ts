// Chapters 001 and 003: what sits between the API server and Reconcile.
// Only a key reaches Reconcile; the workqueue merges duplicates; a no-op
// reconcile leaves the child's resourceVersion alone; an edit bumps the
// generation and is reconciled; status written always without a predicate
// loops for ever, and either fix stops it; "not ready" as an error backs
// off, as RequeueAfter keeps a 5 s rhythm; deletion is a last reconcile,
// and without a controller the CR stays Terminating until its finalizer is
// removed by hand. Then the page's duties: both languages, axe, 360 px,
// projector, embed, snapshot resume, screenshots.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import {
  test, expect, open, waitOpen, fast, clockMs, waitClock, JAPANESE, freePort, startServer, stopServers, type Server, type Locator, type Page,
} from './fixtures';

// ---------------------------------------------------------------- helpers

const pp = (page: Page) => page.getByTestId('pipeline-demo');
const obj = (d: Locator, name: string) => d.locator(`[data-testid="object"][data-name="default/${name}"]`);
const child = (d: Locator, name: string) => d.locator(`[data-testid="child"][data-name="default/${name}-config"]`);
const row = (d: Locator, name: string) => d.locator(`[data-testid="report-row"][data-key="default/${name}"]`);
const key = (d: Locator, name: string) => d.locator(`[data-testid="queue-item"][data-key="default/${name}"]`);
const trap = (d: Locator, name: string) => d.locator(`[data-testid="trap"][data-trap="${name}"]`);
const reconciles = (d: Locator) => d.getByTestId('reconciles');

async function num(loc: Locator, attr = 'data-value'): Promise<number> {
  return Number(await loc.getAttribute(attr));
}

/**
 * Presses button until check holds, pressing again only while it does not:
 * a busy demo swaps its fragments several times a second, and a click that
 * lands on a button in the instant it is replaced sends nothing.
 */
async function until(button: Locator, check: () => Promise<boolean>) {
  await expect(async () => {
    if (!(await check())) await button.click();
    await expect.poll(check, { timeout: 5000 }).toBe(true);
  }).toPass({ timeout: 30_000 });
}

/** Presses a one-button switch (or a cycle, such as not-ready-as's three
 *  values) until it shows want, waiting for each press to change it. */
async function flip(d: Locator, testid: string, want: string, attr = 'data-value') {
  const el = d.getByTestId(testid);
  await expect(async () => {
    for (let i = 0; i < 3; i++) {
      const v = await el.getAttribute(attr);
      if (v === want) return;
      await el.click();
      await expect.poll(() => el.getAttribute(attr), { timeout: 5000 }).not.toBe(v);
    }
    expect(await el.getAttribute(attr)).toBe(want);
  }).toPass({ timeout: 30_000 });
}

/** Creates the App name with the create button. */
async function create(d: Locator, name: string) {
  const b = d.getByTestId('cr-create');
  await until(b, async () => {
    if (await obj(d, name).count()) return true;
    await expect(b).toHaveAttribute('data-value', name); // the next free name, or already made
    return false;
  });
}

/** Switches a trap on or off. */
async function setTrap(d: Locator, name: string, on: boolean) {
  await until(trap(d, name).getByTestId('trap-toggle'), async () => (await trap(d, name).getAttribute('data-on')) === String(on));
}

/** Waits until app is Ready and its generation observed. */
async function waitReady(d: Locator, name: string) {
  const o = obj(d, name);
  await expect(o).toHaveAttribute('data-ready', 'True');
  const gen = await o.getAttribute('data-generation');
  await expect(o).toHaveAttribute('data-observed-generation', gen!);
}

/** Waits until the pipeline is still: no watch event on its way, nothing
 *  queued, no worker busy, all seen in one frame. */
async function waitQuiet(d: Locator) {
  await expect.poll(() => d.evaluate((el) => el.querySelectorAll(
    '[data-testid="watch-event"], [data-testid="queue-item"], [data-testid="worker"][data-busy="true"]').length),
  { message: 'the pipeline is still' }).toBe(0);
}

/** Expects the reconcile count to stay put over ms of virtual time. */
async function expectStill(d: Locator, ms: number) {
  const n = await num(reconciles(d));
  await waitClock(d, (await clockMs(d)) + ms, 2 * ms + 5000);
  expect(await num(reconciles(d)), `reconciles over ${ms} ms of virtual time`).toBe(n);
}

/** Opens /pipeline (or path) and checks the starting state. */
async function start(page: Page, path = '/pipeline') {
  await open(page, path);
  const d = pp(page);
  await waitReady(d, 'app-1');
  return d;
}

// ---------------------------------------------------------------- the chapters' stories

test.describe('pipeline demo', () => {
  test('the starting state: app-1 created and reconciled to Ready, the defaults of chapter 001', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await expect(d.getByTestId('object')).toHaveCount(1);
    const a = obj(d, 'app-1');
    await expect(a).toHaveAttribute('data-generation', '1');
    await expect(a).toHaveAttribute('data-observed-generation', '1');
    await expect(a).toHaveAttribute('data-deleting', 'false');
    await expect(a).toHaveAttribute('data-finalizers', '1');
    await expect(child(d, 'app-1')).toHaveAttribute('data-log-level', 'info');
    await expect(d.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(d.getByTestId('predicate-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(d.getByTestId('status-write')).toHaveAttribute('data-value', 'on-change');
    await expect(d.getByTestId('dependency-toggle')).toHaveAttribute('data-value', 'present');
    await expect(d.getByTestId('not-ready-as')).toHaveAttribute('data-value', 'requeue');
    await expect(d.getByTestId('workers')).toHaveAttribute('data-value', '1');
    await expect(d.getByTestId('queue-kind')).toHaveAttribute('data-value', 'priority');
    await expect(d.getByTestId('secret-watch')).toHaveAttribute('aria-pressed', 'false');
    await expect(d.getByTestId('worker')).toHaveCount(1);
    await expect(d.getByTestId('queue-item')).toHaveCount(0);
    await expect(d.getByTestId('report-row')).toHaveCount(1);
    await expect(row(d, 'app-1')).toHaveAttribute('data-result', 'success');
    await expect(d.getByTestId('cr-create')).toHaveAttribute('data-value', 'app-2');
    for (const t of ['runaway', 'conflict', 'already-exists', 'not-visible', 'slow-object', 'stampede', 'stuck-finalizer']) {
      await expect(trap(d, t)).toHaveAttribute('data-on', 'false');
    }
    // Converged: nothing happens by itself.
    await expectStill(d, 1500);
  });

  test('a no-op reconcile leaves the child\'s resourceVersion: nothing is written', async ({ page }) => {
    const d = await start(page);
    await flip(d, 'pause', 'true');
    const rv = await child(d, 'app-1').getAttribute('data-resource-version');
    const store = await d.getByTestId('store-rv').getAttribute('data-value');
    const n = await num(reconciles(d));
    for (let i = 1; i <= 3; i++) {
      // Nothing is ready: the step resyncs, as the periodic resync does,
      // and one worker reconciles app-1.
      await d.getByTestId('step').click();
      await expect(reconciles(d)).toHaveAttribute('data-value', String(n + i));
      await expect(row(d, 'app-1')).toHaveAttribute('data-action', 'noop');
      await expect(row(d, 'app-1')).toHaveAttribute('data-status', 'unchanged');
      await expect(row(d, 'app-1')).toHaveAttribute('data-requeue', 'none');
    }
    await expect(child(d, 'app-1')).toHaveAttribute('data-resource-version', rv!);
    await expect(d.getByTestId('store-rv')).toHaveAttribute('data-value', store!);
  });

  test('an edit bumps the generation and is reconciled; duplicate events are merged into one key', async ({ page }) => {
    const d = await start(page);
    const a = obj(d, 'app-1');
    const rv = await child(d, 'app-1').getAttribute('data-resource-version');
    // Paused, two edits: two watch events on their way for one key.
    await flip(d, 'pause', 'true');
    await a.getByTestId('cr-edit').click();
    await expect(a).toHaveAttribute('data-generation', '2');
    await a.getByTestId('cr-edit').click();
    await expect(a).toHaveAttribute('data-generation', '3');
    await expect(a).toHaveAttribute('data-log-level', 'warn');
    await expect(a).toHaveAttribute('data-observed-generation', '1');
    await expect(d.getByTestId('watch-event')).toHaveCount(2);
    await expect(d.locator('[data-testid="cache-item"][data-state="stale"]')).toHaveCount(1);
    const n = await num(reconciles(d));
    // No key is ready yet, so the step resyncs and reconciles app-1 from a
    // cache that has not seen the edits: nothing to do. Meanwhile both
    // events arrive: the first marks the key dirty (it is being
    // processed), the second finds it so and is merged into it.
    await d.getByTestId('step').click();
    await expect(reconciles(d)).toHaveAttribute('data-value', String(n + 1));
    await expect(row(d, 'app-1')).toHaveAttribute('data-action', 'noop');
    await expect(d.locator('[data-testid="log"] li[data-kind="enqueue-dirty"]')).toHaveCount(1);
    await expect(d.locator('[data-testid="log"] li[data-kind="enqueue-collapsed"]')).toHaveCount(1);
    // Done: the key was added while it was processed, so it is handed out
    // again at once, and a worker is already observing the fresh cache.
    await expect(key(d, 'app-1')).toHaveAttribute('data-state', 'processing');
    await expect(d.getByTestId('queue-item')).toHaveCount(1);
    await expect(d.getByTestId('watch-event')).toHaveCount(0);
    // One more reconcile for both edits: only the key reached Reconcile.
    await d.getByTestId('step').click();
    await expect(reconciles(d)).toHaveAttribute('data-value', String(n + 2));
    await expect(row(d, 'app-1')).toHaveAttribute('data-action', 'update');
    await expect(child(d, 'app-1')).toHaveAttribute('data-log-level', 'warn');
    await expect(child(d, 'app-1')).not.toHaveAttribute('data-resource-version', rv!);
    await expect(a).toHaveAttribute('data-observed-generation', '3');
    await flip(d, 'pause', 'false');
    await waitReady(d, 'app-1');
  });

  test('status always + predicate off: reconciles climb without end; either fix stops them', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await fast(d);
    await flip(d, 'status-write', 'always');
    for (const fix of ['predicate', 'status-write'] as const) {
      await flip(d, 'predicate-toggle', 'false', 'aria-pressed');
      await expect(trap(d, 'runaway')).toHaveAttribute('data-on', 'true');
      const n0 = await num(reconciles(d));
      await expect.poll(() => num(reconciles(d)), { message: 'reconciles climb' }).toBeGreaterThan(n0 + 8);
      const n1 = await num(reconciles(d));
      await expect.poll(() => num(reconciles(d)), { message: 'and keep climbing' }).toBeGreaterThan(n1 + 8);
      if (fix === 'predicate') await flip(d, 'predicate-toggle', 'true', 'aria-pressed');
      else await flip(d, 'status-write', 'on-change');
      await expect(trap(d, 'runaway')).toHaveAttribute('data-on', 'false');
      await waitQuiet(d);
      await expectStill(d, 4000);
    }
    // The second fix left the predicate off: status on change alone stops it.
    await expect(d.getByTestId('predicate-toggle')).toHaveAttribute('aria-pressed', 'false');
    await expect(d.getByTestId('status-write')).toHaveAttribute('data-value', 'on-change');
  });

  test('dependency missing as an error: failures climb with doubling waits; as RequeueAfter: no failures, a 5 s rhythm', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await fast(d);
    await flip(d, 'dependency-toggle', 'missing');
    await expect(d.getByTestId('secret')).toHaveAttribute('data-value', 'missing');
    // The Secret has no watch: changing how not-ready is returned redeploys
    // the controller, which reconciles every App at once.
    await flip(d, 'not-ready-as', 'error');
    await expect(obj(d, 'app-1')).toHaveAttribute('data-ready', 'False');
    const k = key(d, 'app-1');
    await expect.poll(() => num(k, 'data-requeues')).toBeGreaterThanOrEqual(8);
    await expect(row(d, 'app-1')).toHaveAttribute('data-requeue', 'backoff');
    await expect(row(d, 'app-1')).toHaveAttribute('data-reason', 'DependencyMissing');
    // The failures and the wait they got, read in one go: a frame may come
    // between two reads.
    const failed = () => d.evaluate((el) => {
      const q = el.querySelector('[data-testid="queue-item"][data-key="default/app-1"]');
      const r = el.querySelector('[data-testid="report-row"][data-key="default/app-1"]');
      return [Number(q?.getAttribute('data-requeues')), Number(r?.getAttribute('data-requeue-in'))];
    });
    const [f, w1] = await failed();
    let [g, w2] = [f, w1];
    await expect.poll(async () => { [g, w2] = await failed(); return g; }).toBeGreaterThan(f);
    expect(w2, `the wait after ${g} failures, against ${w1} after ${f}`).toBe(w1 * 2 ** (g - f));
    await expect(k).toHaveAttribute('data-state', /^(waiting|processing|ready)$/);
    expect(await num(reconciles(d), 'data-error')).toBeGreaterThanOrEqual(f);

    // The same missing Secret, returned as RequeueAfter 5 s.
    await flip(d, 'not-ready-as', 'requeue');
    await expect(row(d, 'app-1')).toHaveAttribute('data-requeue', 'after');
    await expect(row(d, 'app-1')).toHaveAttribute('data-requeue-in', '5000');
    await expect(k).toHaveAttribute('data-state', 'waiting');
    await expect(k).toHaveAttribute('data-requeues', '0');
    const errors = await num(reconciles(d), 'data-error');
    // The clock and the count, read in one go: the test may read late, and
    // the demo's time runs on meanwhile.
    const clockAndCount = () => d.evaluate((el) => [
      Number(el.querySelector('[data-testid="clock"]')?.getAttribute('data-value')),
      Number(el.querySelector('[data-testid="reconciles"]')?.getAttribute('data-requeue-after'))]);
    const [t0, ra] = await clockAndCount();
    await waitClock(d, t0 + 22_000, 20_000);
    const [t1, ra1] = await clockAndCount();
    const got = ra1 - ra;
    // Each round: the 5 s wait, then a 0.4 s reconcile.
    expect(got, `RequeueAfter reconciles in ${t1 - t0} ms`).toBeGreaterThanOrEqual(3);
    expect(got, `RequeueAfter reconciles in ${t1 - t0} ms`).toBeLessThanOrEqual(Math.floor((t1 - t0) / 5400) + 1);
    expect(await num(reconciles(d), 'data-error')).toBe(errors);
    await expect(k).toHaveAttribute('data-requeues', '0');

    // The Secret back: Ready at the next look, and quiet.
    await flip(d, 'dependency-toggle', 'present');
    await waitReady(d, 'app-1');
  });

  test('delete with the controller on: a last reconcile cleans up, then the CR is gone', async ({ page }) => {
    const d = await start(page);
    await flip(d, 'pause', 'true');
    await obj(d, 'app-1').getByTestId('cr-delete').click();
    // Deletion only stamps deletionTimestamp: the App is still there.
    await expect(obj(d, 'app-1')).toHaveAttribute('data-deleting', 'true');
    await expect(obj(d, 'app-1')).toHaveAttribute('data-finalizers', '1');
    await flip(d, 'pause', 'false');
    await expect(obj(d, 'app-1')).toHaveCount(0);
    await expect(child(d, 'app-1')).toHaveCount(0);
    await expect(d.getByTestId('external')).toHaveCount(0);
    // The report keeps the CR's row: its last reconcile was the cleanup.
    await expect(row(d, 'app-1')).toHaveAttribute('data-action', 'cleanup');
    await expect(d.getByTestId('cr-create')).toHaveAttribute('data-value', 'app-1');
  });

  test('delete with the controller off: Terminating until the finalizer is removed by hand', async ({ page }) => {
    const d = await start(page);
    await flip(d, 'controller-toggle', 'false', 'aria-pressed');
    await expect(trap(d, 'stuck-finalizer')).toHaveAttribute('data-on', 'true');
    await obj(d, 'app-1').getByTestId('cr-delete').click();
    await expect(obj(d, 'app-1')).toHaveAttribute('data-deleting', 'true');
    await waitClock(d, (await clockMs(d)) + 3000);
    await expect(obj(d, 'app-1')).toHaveAttribute('data-deleting', 'true');
    await expect(obj(d, 'app-1')).toHaveAttribute('data-finalizers', '1');
    // One step needs a worker: refused, with a sentence.
    await d.getByTestId('step').click();
    await expect(d.getByTestId('error')).toHaveAttribute('data-value', 'true');
    await obj(d, 'app-1').getByTestId('remove-finalizer').click();
    await expect(obj(d, 'app-1')).toHaveCount(0);
    await expect(d.getByTestId('error')).toHaveAttribute('data-value', '');
    // The cleanup never ran: the external record is left an orphan.
    await expect(d.locator('[data-testid="external"][data-name="app-1"]')).toHaveAttribute('data-orphan', 'true');
    await expect(row(d, 'app-1')).not.toHaveAttribute('data-action', 'cleanup');
  });

  test('create up to three CRs on two workers; s is one step', async ({ page }) => {
    const d = await start(page);
    // The keyboard: s is one step (one worker, one reconcile).
    await flip(d, 'pause', 'true');
    const n = await num(reconciles(d));
    await page.locator('body').press('s');
    await expect(reconciles(d)).toHaveAttribute('data-value', String(n + 1));
    await flip(d, 'pause', 'false');
    await fast(d);
    await flip(d, 'workers', '2');
    await expect(d.getByTestId('worker')).toHaveCount(2);
    for (const name of ['app-2', 'app-3']) await create(d, name);
    await expect(d.getByTestId('cr-create')).toBeDisabled();
    for (const name of ['app-1', 'app-2', 'app-3']) await waitReady(d, name);
    await expect(d.getByTestId('report-row')).toHaveCount(3);
    for (const name of ['app-2', 'app-3']) {
      await expect(child(d, name)).toHaveAttribute('data-log-level', 'info');
    }
  });

  test('traps panel: each trap one or two clicks away, its symptom, and a fix in the chapter\'s words', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await fast(d);
    const apiErrors = d.locator('[data-testid="metric"][data-name="api_errors"]');

    // The status conflict: status from the cache's copy, then an edit.
    await setTrap(d, 'conflict', true);
    await expect(trap(d, 'conflict').getByTestId('trap-symptom')).toBeVisible();
    await until(trap(d, 'conflict').getByTestId('trap-trigger'),
      async () => (await obj(d, 'app-1').getAttribute('data-generation')) === '2');
    await expect.poll(() => num(apiErrors, 'data-conflicts')).toBeGreaterThan(0);
    await until(trap(d, 'conflict').locator('[data-testid="trap-fix"][data-fix="status-from:latest"]'),
      async () => (await trap(d, 'conflict').getAttribute('data-on')) === 'false');
    await waitReady(d, 'app-1');

    // "Already exists": one click, errors climb; get-then-branch ends them.
    await setTrap(d, 'already-exists', true);
    await expect.poll(() => num(apiErrors, 'data-already-exists')).toBeGreaterThan(3);
    await expect(row(d, 'app-1')).toHaveAttribute('data-reason', 'AlreadyExists');
    await until(trap(d, 'already-exists').locator('[data-testid="trap-fix"][data-fix="child-write:get-then-branch"]'),
      async () => (await trap(d, 'already-exists').getAttribute('data-on')) === 'false');
    await waitQuiet(d);
    await expect(row(d, 'app-1')).toHaveAttribute('data-result', 'success');

    // One slow object delays the rest: app-2 waits, ready, behind app-1.
    await setTrap(d, 'slow-object', true);
    await expect(d.locator('[data-testid="worker"][data-key="default/app-1"]')).toHaveAttribute('data-phase', 'external');
    await until(trap(d, 'slow-object').getByTestId('trap-trigger'), async () => (await obj(d, 'app-2').count()) === 1);
    await expect(key(d, 'app-2')).toHaveAttribute('data-state', 'ready');
    await expect(row(d, 'app-1')).toHaveAttribute('data-reason', 'Timeout');
    // Two workers: app-3 no longer waits behind app-1's hung call.
    await until(trap(d, 'slow-object').locator('[data-testid="trap-fix"][data-fix="workers:2"]'),
      async () => (await d.getByTestId('workers').getAttribute('data-value')) === '2');
    await create(d, 'app-3');
    await waitReady(d, 'app-3');
    await setTrap(d, 'slow-object', false);
  });

  test('a refused action shows a sentence and changes nothing', async ({ page }) => {
    const d = await start(page);
    const before = await d.locator('[data-testid="object"]').evaluateAll((els) => els.map((e) => e.outerHTML));
    // A fourth CR, as a forged message would send it.
    await page.evaluate(() => {
      const b = document.getElementById('pp-create')!;
      b.setAttribute('hx-vals', JSON.stringify({ action: 'create', name: 'app-4' }));
      (b as HTMLButtonElement).click();
    });
    await expect(d.getByTestId('error')).toHaveAttribute('data-value', 'true');
    await expect(d.getByTestId('error')).toContainText('app-4');
    expect(await d.locator('[data-testid="object"]').evaluateAll((els) => els.map((e) => e.outerHTML))).toEqual(before);
  });
});

// ---------------------------------------------------------------- issue #19: the truth pass

const limiter = (d: Locator) => d.getByTestId('rate-limiter');
const limited = (d: Locator, name: string) => limiter(d).locator(`[data-testid="limiter-key"][data-key="default/${name}"]`);

/** Expects app's line in the rate limiter: failing, and its next delay the
 *  per-item exponential's 5 ms · 2^failures (read in one go: the line is
 *  replaced as the key fails again). */
async function expectExponential(d: Locator, name: string) {
  await expect.poll(async () => {
    const [f, next] = await limited(d, name).evaluate((e) => [e.getAttribute('data-failures'), e.getAttribute('data-next-delay')]);
    return Number(f) >= 1 && Number(next) === Math.min(5 * 2 ** Number(f), 1_000_000);
  }, { message: `${name}'s next delay is 5 ms · 2^failures` }).toBe(true);
}

test.describe('pipeline: the truth pass (issue #19)', () => {
  test('both queue kinds: the priority queue lists at low priority, its rate limiter has no bucket; the classic queue\'s has one', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await expect(d.getByTestId('queue-kind')).toHaveAttribute('data-value', 'priority');
    await expect(limiter(d)).toHaveAttribute('data-value', 'item-exponential');
    await expect(limiter(d)).toContainText('レートリミッター');
    await expect(limiter(d).getByTestId('limiter-key')).toHaveCount(0);
    await expect(limiter(d).getByTestId('limiter-bucket')).toHaveCount(0);
    // The initial list goes in at low priority: paused, the controller
    // starts, lists both Apps, and its worker takes app-1; app-2 waits.
    await flip(d, 'controller-toggle', 'false', 'aria-pressed');
    await create(d, 'app-2');
    await flip(d, 'pause', 'true');
    await flip(d, 'controller-toggle', 'true', 'aria-pressed');
    await expect(key(d, 'app-1')).toHaveAttribute('data-state', 'processing');
    await expect(key(d, 'app-2')).toHaveAttribute('data-state', 'ready');
    await expect(key(d, 'app-2')).toHaveAttribute('data-priority', '-100');
    await flip(d, 'pause', 'false');
    await fast(d);
    await waitReady(d, 'app-2');
    // A failing key: the per-item exponential alone.
    await flip(d, 'dependency-toggle', 'missing');
    await flip(d, 'not-ready-as', 'error');
    await expectExponential(d, 'app-1');
    await expect(limiter(d).getByTestId('limiter-bucket')).toHaveCount(0);
    // The classic queue: the same key, the bucket beside it.
    await flip(d, 'queue-kind', 'classic');
    await expect(limiter(d)).toHaveAttribute('data-value', 'max-of');
    const bucket = limiter(d).getByTestId('limiter-bucket');
    await expect(bucket).toHaveAttribute('data-burst', '100');
    expect(await num(bucket)).toBeLessThanOrEqual(100);
    await expect(limited(d, 'app-1')).toHaveCount(1);
    await expect(key(d, 'app-2')).toHaveAttribute('data-priority', '0'); // no priorities on the classic queue
    // Success forgets the failures: the limiter is empty again.
    await flip(d, 'dependency-toggle', 'present');
    await waitReady(d, 'app-1');
    await expect(limiter(d).getByTestId('limiter-key')).toHaveCount(0);
  });

  test('Requeue: true is rate limited like an error, yet counted as requeue', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await fast(d);
    await flip(d, 'dependency-toggle', 'missing');
    await flip(d, 'not-ready-as', 'requeue-true');
    await expect(row(d, 'app-1')).toHaveAttribute('data-result', 'requeue');
    await expect(row(d, 'app-1')).toHaveAttribute('data-requeue', 'backoff');
    await expect.poll(() => num(reconciles(d), 'data-requeue')).toBeGreaterThanOrEqual(3);
    expect(await num(reconciles(d), 'data-error')).toBe(0);
    await expectExponential(d, 'app-1');
  });

  test('Watches on the Secret: its return reconciles the waiting App at once, and the wait is gone', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    await flip(d, 'secret-watch', 'true', 'aria-pressed');
    await flip(d, 'dependency-toggle', 'missing');
    // The Secret's DELETED event reconciles app-1: RequeueAfter 5 s.
    await expect(row(d, 'app-1')).toHaveAttribute('data-requeue', 'after');
    const k = key(d, 'app-1');
    await expect(k).toHaveAttribute('data-state', 'waiting');
    const due = Number(await k.locator('[data-eta]').getAttribute('data-eta'));
    await flip(d, 'dependency-toggle', 'present');
    await waitReady(d, 'app-1');
    // The reconcile that made it Ready ran before the wait was over (the
    // report's time, the engine's own, not when the test saw it).
    const [, m, sec] = /(\d+):(\d+\.\d)/.exec((await row(d, 'app-1').locator('time').first().textContent())!)!;
    expect(Number(m) * 60_000 + Number(sec) * 1000, `Ready before the RequeueAfter ends at ${due} ms`).toBeLessThan(due);
    await expect(d.locator('[data-testid="log"] li[data-kind="enqueue-added"]').filter({ hasText: 'Watches' })).not.toHaveCount(0);
    // The add consumed the wait: app-1 does not come back.
    await waitQuiet(d);
    await expectStill(d, 5000);
  });

  test('a child edited by hand: Owns enqueues the owner, whose reconcile puts the data back', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    // The repair's report row lasts until the next reconcile (its own
    // write comes back through Owns): record every row the page shows.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as any).ppRows = seen;
      new MutationObserver(() => {
        const r = document.querySelector('[data-testid="report-row"][data-key="default/app-1"]');
        const v = r && `${r.getAttribute('data-action')}/${r.getAttribute('data-reconciles')}`;
        if (v && seen[seen.length - 1] !== v) seen.push(v);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const c = child(d, 'app-1');
    const rv = Number(await c.getAttribute('data-resource-version'));
    await until(c.getByTestId('child-edit'), async () => Number(await c.getAttribute('data-resource-version')) > rv);
    const user = d.locator('[data-testid="write"][data-actor="user"][data-res="ConfigMap"][data-name="app-1-config"]');
    const worker = d.locator('[data-testid="write"][data-actor="worker"][data-verb="update"][data-res="ConfigMap"][data-name="app-1-config"]');
    await expect(user).toHaveCount(1);
    await expect(worker).toHaveCount(1);
    await expect(c).toHaveAttribute('data-log-level', 'info');
    expect(Number(await c.getAttribute('data-resource-version'))).toBeGreaterThan(rv + 1);
    await expect(d.locator('[data-testid="log"] li[data-kind="enqueue-added"]').filter({ hasText: 'Owns' })).not.toHaveCount(0);
    await expect.poll(() => page.evaluate(() => ((window as any).ppRows as string[]).map((v) => v.split('/')[0])),
      { message: 'the report showed the repair' }).toContain('update');
    await waitQuiet(d);
  });

  test('the notes, one per topic, from the first load whatever the traps', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page);
    const topics = ['counters', 'rv', 'gc', 'apf', 'delays', 'resync', 'queue', 'observe-beat', 'identical-write', 'ssa',
      'predicate-scope', 'redeploy'];
    const check = async () => {
      for (const t of topics) {
        const n = d.locator(`[data-testid="note"][data-topic="${t}"]`);
        await expect(n, t).toHaveCount(1);
        await expect(n, t).toBeVisible();
        await expect(n, t).toHaveClass(/\breal\b/);
      }
      await expect(page.getByTestId('note')).toHaveCount(topics.length);
    };
    await check();
    await expect(d.locator('#pp-traps h3')).toContainText('よくあるバグ');
    await setTrap(d, 'runaway', true);
    await expect(trap(d, 'runaway').getByTestId('trap-why')).toContainText('lastReconcileTime');
    await check();
    await setTrap(d, 'runaway', false);
    await expect(trap(d, 'runaway').getByTestId('trap-why')).toHaveCount(0);
  });
});

// ---------------------------------------------------------------- languages, accessibility, screens

/** A full page: three CRs, one of them Terminating, a trap on, failures. */
async function fill(d: Locator) {
  await fast(d);
  await flip(d, 'workers', '2');
  for (const name of ['app-2', 'app-3']) await create(d, name);
  for (const name of ['app-1', 'app-2', 'app-3']) await waitReady(d, name);
  await flip(d, 'dependency-toggle', 'missing');
  await flip(d, 'not-ready-as', 'error');
  await expect(obj(d, 'app-2')).toHaveAttribute('data-ready', 'False');
  await setTrap(d, 'stuck-finalizer', true);
  await expect(d.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
  await until(trap(d, 'stuck-finalizer').getByTestId('trap-trigger'),
    async () => (await obj(d, 'app-1').getAttribute('data-deleting')) === 'true');
}

async function axe(page: Page) {
  // As a11y.spec.ts scans (legacy mode, violations only: half the time).
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa']).setLegacyMode().analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

test.describe('pipeline: languages and accessibility', () => {
  // The first load of every route, language and mode is scanned by
  // a11y.spec.ts; here the full page, once in each language, mode and route.
  for (const [route, variant] of [['/pipeline', ''], ['/pipeline', '?lang=en&mode=present'],
    ['/embed/pipeline', '?lang=en'], ['/embed/pipeline', '?mode=present']]) {
    test(`axe: ${route}${variant}`, async ({ page }) => {
      test.setTimeout(60_000);
      const d = await start(page, route + variant);
      await fill(d);
      await setTrap(d, 'runaway', true);
      await expect(trap(d, 'runaway').getByTestId('trap-symptom')).toBeVisible();
      // Scanned still: a runaway's frames would swap the page under axe.
      await flip(d, 'pause', 'true');
      await expect(d.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
      expect(await axe(page), 'a full page').toEqual([]);
    });
  }

  test('English has no Japanese, whatever the page shows', async ({ page }) => {
    test.setTimeout(60_000);
    const d = await start(page, '/pipeline?lang=en');
    await fill(d);
    for (const t of ['runaway', 'conflict', 'already-exists', 'not-visible', 'slow-object', 'stampede']) {
      await setTrap(d, t, true);
    }
    await flip(d, 'controller-toggle', 'true', 'aria-pressed');
    await d.getByTestId('step').click();
    const text = await page.evaluate(() => document.body.innerText);
    expect(text.split('\n').filter((l) => JAPANESE.test(l))).toEqual([]);
    const attrs = await page.evaluate((src) => {
      const ja = new RegExp(src);
      const out: string[] = [];
      document.querySelectorAll('*').forEach((el) => {
        for (const a of ['aria-label', 'title', 'data-eta-format']) {
          const v = el.getAttribute(a);
          if (v && ja.test(v)) out.push(`${el.tagName} ${a}=${v}`);
        }
      });
      return out;
    }, JAPANESE.source);
    expect(attrs).toEqual([]);
  });

  test('the live region says each reconcile in a sentence', async ({ page }) => {
    const d = await start(page);
    const live = d.getByTestId('live');
    await expect(live).toHaveAttribute('aria-live', 'polite');
    await flip(d, 'pause', 'true');
    await d.getByTestId('step').click();
    await expect(live).toContainText('default/app-1');
    await expect(live).toContainText('何もしない');
  });
});

test.describe('pipeline on a phone', () => {
  test.use({ viewport: { width: 360, height: 800 } });
  for (const variant of ['', '?lang=en']) {
    test(`360 px: no horizontal scroll${variant}`, async ({ page }) => {
      test.setTimeout(60_000);
      const d = await start(page, '/pipeline' + variant);
      await fill(d);
      await setTrap(d, 'runaway', true);
      await expect(trap(d, 'runaway').getByTestId('trap-symptom')).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      // The lanes stack: each starts below the one before.
      const tops = await d.locator('.pp-lane').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
      expect(tops).toEqual([...tops].sort((a, b) => a - b));
      expect(new Set(tops).size).toBe(5);
    });
  }
});

test.describe('pipeline on a projector', () => {
  test.use({ viewport: { width: 1920, height: 1080 } });
  for (const variant of ['', '&lang=en']) {
    test(`1920×1080 ?mode=present${variant}: the metrics strip and the lanes on the first screen`, async ({ page }) => {
      test.setTimeout(60_000);
      const d = await start(page, '/pipeline?mode=present' + variant);
      expect(await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize))).toBeGreaterThanOrEqual(24);
      const fits = async (what: string) => {
        for (const sel of ['#pp-metrics', '.pp-lanes']) {
          const b = await d.locator(sel).boundingBox();
          expect(b, sel).not.toBeNull();
          expect(b!.y + b!.height, `${sel} bottom, ${what}`).toBeLessThanOrEqual(1080);
        }
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1920);
      };
      await fits('starting state');
      // The controls a presenter presses are on the first screen too.
      for (const id of ['step', 'pause', 'controller-toggle', 'predicate-toggle', 'dependency-toggle']) {
        const b = await d.getByTestId(id).boundingBox();
        expect(b!.y + b!.height, id).toBeLessThanOrEqual(1080);
      }
      await fill(d);
      await fits('three CRs, one Terminating');
      const small = await d.locator('button').evaluateAll((els) => els
        .filter((e) => (e as HTMLElement).offsetParent !== null)
        .map((e) => ({ id: e.id, h: e.getBoundingClientRect().height }))
        .filter((b) => b.h < 44));
      expect(small, 'buttons under 44 px').toEqual([]);
    });
  }
});

// ---------------------------------------------------------------- embed

test.describe('pipeline embedded', () => {
  let parent: http.Server;
  let parentURL = '';
  test.beforeAll(async () => {
    parent = http.createServer((req, res) => {
      const src = new URL(req.url || '/', 'http://x').searchParams.get('src') || '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapter</title>
<link rel="icon" href="data:,"></head><body style="margin:0;padding:16px">
<h1>Chapter 001</h1><iframe id="demo" title="demo" src="${src}" style="width:1000px;height:300px;border:0"></iframe>
<script>window.resizes=[];addEventListener('message',function(e){if(!e.data||e.data.type!=='reconcile-demo:resize')return;
window.resizes.push({origin:e.origin,height:e.data.height});document.getElementById('demo').style.height=e.data.height+'px';});</script>
</body></html>`);
    });
    await new Promise<void>((r) => parent.listen(0, '127.0.0.1', r));
    parentURL = `http://localhost:${(parent.address() as AddressInfo).port}/`;
  });
  test.afterAll(async () => { await new Promise((r) => parent.close(r)); });

  type Resize = { origin: string; height: number };
  const last = async (page: Page) => (await page.evaluate(() => (window as unknown as { resizes: Resize[] }).resizes)).at(-1);

  test('/embed/pipeline has no site chrome, works in a cross-origin iframe and sizes it', async ({ page, baseURL }) => {
    const src = `${baseURL}/embed/pipeline`;
    await page.goto(`${parentURL}?src=${encodeURIComponent(src)}`);
    const frame = page.frameLocator('#demo');
    const d = frame.getByTestId('pipeline-demo');
    await expect(d.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expect(frame.locator('header.site-head')).toHaveCount(0);
    await waitReady(d, 'app-1');
    await expect.poll(async () => (await last(page))?.height ?? 0).toBeGreaterThan(0);
    const h1 = (await last(page))!.height;
    expect((await last(page))!.origin).toBe(new URL(src).origin);
    await expect(page.locator('#demo')).toHaveCSS('height', `${h1}px`);
    // Two more CRs: a taller demo, a taller frame, no inner scroll.
    await fast(d);
    for (const name of ['app-2', 'app-3']) {
      await create(d, name);
      await waitReady(d, name);
    }
    await expect.poll(async () => (await last(page))!.height).toBeGreaterThan(h1);
    const h2 = (await last(page))!.height;
    await expect.poll(() => frame.locator('html').evaluate((el) => el.scrollHeight)).toBeLessThanOrEqual(h2 + 1);
  });
});

// ---------------------------------------------------------------- snapshot resume

test.describe('pipeline snapshot resume', () => {
  const servers: Server[] = [];
  test.afterAll(stopServers);

  test('a restarted server rebuilds the demo from the page\'s snapshot', async ({ page, errors }) => {
    test.setTimeout(90_000);
    errors.allow(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws\?.*' failed/);
    errors.allow(/^console\.error: (Event|\[object Event\]|JSHandle@object)/);
    const port = await freePort();
    servers.push(await startServer(port));
    await page.goto(`http://127.0.0.1:${port}/pipeline`);
    const d = pp(page);
    await waitOpen(d);
    await waitReady(d, 'app-1');
    const sid = await d.getAttribute('data-sid');

    // A distinctive state: app-2 and app-3, app-1 edited twice, two
    // workers, predicate off, the controller off and app-3 Terminating.
    await fast(d);
    await create(d, 'app-2');
    await waitReady(d, 'app-2');
    await create(d, 'app-3');
    await waitReady(d, 'app-3');
    for (const gen of ['2', '3']) {
      await until(obj(d, 'app-1').getByTestId('cr-edit'), async () => (await obj(d, 'app-1').getAttribute('data-generation')) === gen);
    }
    await flip(d, 'workers', '2');
    await flip(d, 'predicate-toggle', 'false', 'aria-pressed');
    for (const name of ['app-1', 'app-2', 'app-3']) await waitReady(d, name);
    await flip(d, 'controller-toggle', 'false', 'aria-pressed');
    await until(obj(d, 'app-3').getByTestId('cr-delete'), async () => (await obj(d, 'app-3').getAttribute('data-deleting')) === 'true');
    const shown = async () => d.locator('[data-testid="object"], [data-testid="child"], [data-testid="report-row"]')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-name') || e.getAttribute('data-key'),
        e.getAttribute('data-resource-version'), e.getAttribute('data-generation'), e.getAttribute('data-deleting'),
        e.getAttribute('data-action')].join(' ')));
    const before = await shown();
    await expect.poll(() => page.evaluate((k) => sessionStorage.getItem(k), `snap:${sid}`)).toContain('"deletionTimestamp"');

    servers[0].proc.kill('SIGTERM');
    await expect(d.getByTestId('connection')).toHaveAttribute('data-state', /^(closed|connecting)$/);
    expect(await servers[0].exited).toBe(0);
    servers.push(await startServer(port));
    await expect(d.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 40_000 });
    await expect(d.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(1);
    expect(await d.getAttribute('data-sid')).toBe(sid);
    expect(await shown()).toEqual(before);
    await expect(d.getByTestId('workers')).toHaveAttribute('data-value', '2');
    await expect(d.getByTestId('predicate-toggle')).toHaveAttribute('aria-pressed', 'false');
    await expect(d.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    // And it goes on: the controller back, the cleanup runs.
    await flip(d, 'controller-toggle', 'true', 'aria-pressed');
    await expect(obj(d, 'app-3')).toHaveCount(0);
    await expect(row(d, 'app-3')).toHaveAttribute('data-action', 'cleanup');
  });
});

// ---------------------------------------------------------------- screenshots

const DIR = path.resolve(__dirname, '..', 'screenshots');

/** A telling state, held still: three CRs on two workers, the dependency
 *  missing and returned as an error (failures, backoff), an edit on its way
 *  through the lanes, a trap on. */
async function stage(page: Page) {
  const d = pp(page);
  await waitReady(d, 'app-1');
  await fast(d);
  await flip(d, 'workers', '2');
  for (const name of ['app-2', 'app-3']) {
    await create(d, name);
    await waitReady(d, name);
  }
  await setTrap(d, 'conflict', true);
  await waitQuiet(d);
  await flip(d, 'dependency-toggle', 'missing');
  await flip(d, 'not-ready-as', 'error');
  await expect.poll(() => num(key(d, 'app-2'), 'data-requeues')).toBeGreaterThanOrEqual(5);
  await flip(d, 'pause', 'true');
  await obj(d, 'app-1').getByTestId('cr-edit').click();
  await expect(d.getByTestId('watch-event')).not.toHaveCount(0);
  await page.evaluate(() => { (document.activeElement as HTMLElement | null)?.blur(); window.scrollTo(0, 0); });
}

test.describe('screenshots', { tag: '@screenshot' }, () => {
  const SHOTS = [
    { name: 'pipeline-desktop', path: '/pipeline', viewport: { width: 1366, height: 900 }, fullPage: true },
    { name: 'pipeline-projector', path: '/pipeline?mode=present', viewport: { width: 1920, height: 1080 }, fullPage: false },
    { name: 'pipeline-phone', path: '/pipeline', viewport: { width: 360, height: 800 }, fullPage: true },
    { name: 'pipeline-en', path: '/pipeline?lang=en', viewport: { width: 1366, height: 900 }, fullPage: true },
  ];
  for (const s of SHOTS) {
    test(s.name, async ({ page }) => {
      test.setTimeout(60_000);
      await page.setViewportSize(s.viewport);
      await open(page, s.path);
      await stage(page);
      await page.screenshot({ path: path.join(DIR, `${s.name}.png`), fullPage: s.fullPage, animations: 'disabled' });
    });
  }
});
