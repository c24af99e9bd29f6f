// Shared fixtures and helpers of the end-to-end suite.
//
// Every test imports `test` and `expect` from here. The auto fixture
// `errors` watches every page of the test's browser context (and any other
// context a test hands it) for console errors and uncaught page errors, and
// fails the test at the end if there were any. A test that expects some
// (the restart spec: the browser reports refused WebSocket connections
// while no server listens) says so with errors.allow(pattern).
//
// Tests wait on state only (data-* attributes, counts, text), never on
// sleeps: the demo runs in virtual time and says everything it shows in
// machine-readable attributes (see DESIGN.md, "Contracts").
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test as base, expect, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { baseURL } from '../playwright.config';

export { expect };
export type { Locator, Page };

export class ErrorCollector {
  readonly errors: string[] = [];
  /** A short record of every socket's frames, attached to a failed test. */
  readonly wsLog: string[] = [];
  private t0 = Date.now();
  private allowed: RegExp[] = [];
  private watched = new WeakSet<Page>();
  private offs: (() => void)[] = [];

  /** Ignore errors matching pattern from now on (say why at the call). */
  allow(pattern: RegExp) { this.allowed.push(pattern); }

  watchPage(page: Page) {
    if (this.watched.has(page)) return;
    this.watched.add(page);
    const onConsole = (m: import('@playwright/test').ConsoleMessage) => {
      if (m.type() !== 'error') return;
      const loc = m.location();
      this.add(`console.error: ${m.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    };
    const onError = (e: Error) => this.add(`pageerror: ${e.stack || e.message || String(e)}`);
    const onSocket = (ws: import('@playwright/test').WebSocket) => {
      const tag = (ws.url().match(/demo=(\w+)/) || [])[1] + ' ' + (ws.url().match(/sid=(\w{6})/) || [])[1];
      const log = (what: string) => { if (this.wsLog.length < 5000) this.wsLog.push(`${Date.now() - this.t0}ms ${tag} ${what}`); };
      log('open');
      ws.on('framesent', (f) => log(`> ${String(f.payload).slice(0, 120)}`));
      ws.on('framereceived', (f) => {
        const p = String(f.payload);
        // What the frame holds (the ids of one word after the demo's
        // prefix: its fragments, and a few buttons), its clock, the
        // timeline's mode and moment, and a refusal.
        const ids = [...new Set([...p.matchAll(/ id="([a-z]{2}-[a-z]+)"/g)].map((m) => m[1]))];
        const clock = (p.match(/-clock"[^>]*data-value="(\d+)"/) || [])[1];
        const tl = p.match(/data-testid="timeline"[^>]*?data-value="(\d+)"[^>]*?data-mode="(\w+)"/);
        const err = (p.match(/data-testid="error" data-value="true"[^>]*>([^<]{0,120})/) || [])[1];
        log(`< ${p.length}B clock=${clock ?? '-'}${tl ? ` timeline=${tl[2]}@${tl[1]}` : ''}${err ? ` error="${err.trim()}"` : ''} ${ids.join(',')}`);
      });
      ws.on('socketerror', (e) => log(`error ${e}`));
      ws.on('close', () => log('close'));
    };
    page.on('console', onConsole);
    page.on('pageerror', onError);
    page.on('websocket', onSocket);
    this.offs.push(() => { page.off('console', onConsole); page.off('pageerror', onError); page.off('websocket', onSocket); });
  }

  watchContext(context: BrowserContext) {
    context.pages().forEach((p) => this.watchPage(p));
    const onPage = (p: Page) => this.watchPage(p);
    context.on('page', onPage);
    this.offs.push(() => context.off('page', onPage));
  }

  /** Stops watching: the worker's page outlives the test. */
  unwatch() { this.offs.splice(0).forEach((off) => off()); }

  /** Errors that matched an allow() pattern, for the curious. */
  readonly allowedSeen: string[] = [];

  private add(text: string) {
    if (this.allowed.some((re) => re.test(text))) { this.allowedSeen.push(text); return; }
    this.errors.push(text);
  }
}

/** One browser tab per worker, for every test that does not ask for a
 *  fresh context (`test.use({ freshContext: true })`: a test that installs
 *  Playwright's clock, which no later test may inherit). Starting a
 *  renderer process costs a second of CPU on these machines, five times a
 *  page load in a tab that is already open; between tests the tab is
 *  emptied: other tabs closed, cookies and both storages cleared, media
 *  emulation reset, the viewport set to the test's. */
type Shared = { sharedContext: BrowserContext; sharedPage: Page };

export const test = base.extend<{ errors: ErrorCollector; freshContext: boolean }, Shared>({
  freshContext: [false, { option: true }],
  sharedContext: [async ({ browser }, use) => {
    const ctx = await browser.newContext({ baseURL });
    await use(ctx);
    await ctx.close();
  }, { scope: 'worker' }],
  sharedPage: [async ({ sharedContext }, use) => {
    await use(await sharedContext.newPage());
  }, { scope: 'worker' }],
  context: async ({ freshContext, sharedContext, browser, viewport }, use) => {
    if (freshContext) {
      const ctx = await browser.newContext({ baseURL, viewport });
      await use(ctx);
      await ctx.close();
      return;
    }
    await use(sharedContext);
  },
  page: async ({ freshContext, context, sharedPage, viewport }, use) => {
    if (freshContext) {
      await use(await context.newPage());
      return;
    }
    let page = sharedPage;
    if (page.isClosed()) page = await context.newPage();
    for (const p of context.pages()) if (p !== page) await p.close();
    await context.clearCookies();
    await page.emulateMedia({ media: null, colorScheme: null, reducedMotion: null, forcedColors: null });
    await page.setViewportSize(viewport ?? { width: 1280, height: 720 });
    await use(page);
    // Leave nothing behind: the storages of the origin the test ended on
    // are cleared, and the next test starts from an empty tab.
    if (page.isClosed()) return;
    await page.evaluate(() => {
      try { sessionStorage.clear(); localStorage.clear(); } catch { /* about:blank has none */ }
    }).catch(() => {});
    await page.goto('about:blank');
  },
  // After the tab is emptied, before it is left: what the suite does to
  // the shared tab between tests is nobody's error.
  errors: [async ({ context, page: _page }, use, testInfo) => {
    const c = new ErrorCollector();
    c.watchContext(context);
    await use(c);
    c.unwatch();
    const failed = testInfo.status !== testInfo.expectedStatus;
    if (failed && c.wsLog.length) {
      // The whole record in the report's folder; its end in the output,
      // which a CI log keeps (a text attachment is cut at 300 characters).
      const file = testInfo.outputPath('websocket-frames.txt');
      fs.writeFileSync(file, c.wsLog.join('\n'));
      await testInfo.attach('websocket-frames.txt', { path: file, contentType: 'text/plain' });
    }
    expect(c.errors, 'console errors or page errors during the test').toEqual([]);
    if (failed && c.wsLog.length) {
      throw new Error(`the sockets' last frames (of ${c.wsLog.length}):\n${c.wsLog.slice(-25).join('\n')}`);
    }
  }, { auto: true }],
});

// ---------------------------------------------------------------- locators

export const rcDemo = (page: Page) => page.getByTestId('reconcile-demo');
export const opDemo = (page: Page) => page.getByTestId('operator-demo');

/** Waits until the socket of every demo on the page (or in scope) is open. */
export async function waitOpen(scope: Page | Locator) {
  const demos = scope.locator('[data-demo]');
  const n = await demos.count();
  if (n === 0) {
    // scope is a demo itself
    await expect(scope.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    return;
  }
  for (let i = 0; i < n; i++) {
    await expect(demos.nth(i).getByTestId('connection')).toHaveAttribute('data-state', 'open');
  }
}

/** Opens path and waits for every demo's socket to be open. */
export async function open(page: Page, path: string) {
  const res = await page.goto(path);
  expect(res?.status(), `GET ${path}`).toBe(200);
  await waitOpen(page);
}

export const pods = (rc: Locator) => rc.getByTestId('pod');
export const pod = (rc: Locator, name: string) => rc.locator(`[data-testid="pod"][data-name="${name}"]`);
export const podsIn = (rc: Locator, phase: string) => rc.locator(`[data-testid="pod"][data-phase="${phase}"]`);

/** The pods' names, in page order (the engine sorts them by name). */
export async function podNames(rc: Locator): Promise<string[]> {
  return pods(rc).evaluateAll((els) => els.map((e) => e.getAttribute('data-name') || ''));
}

/** Waits until exactly n pods exist and all of them are Running. */
export async function waitRunning(rc: Locator, n: number, timeout?: number) {
  await expect(podsIn(rc, 'Running')).toHaveCount(n, { timeout });
  await expect(pods(rc)).toHaveCount(n, { timeout });
}

/** Waits for the reconcile demo's first convergence: 3 Running, 一致. */
export async function waitConverged(rc: Locator, n = 3) {
  await waitRunning(rc, n);
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', String(n));
  await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'true');
}

/** The demo's virtual time in milliseconds (data-value of its clock). */
export async function clockMs(demo: Locator): Promise<number> {
  return Number(await demo.getByTestId('clock').getAttribute('data-value'));
}

/** Waits until the demo's virtual clock reads at least ms. */
export async function waitClock(demo: Locator, ms: number, timeout?: number) {
  await expect.poll(() => clockMs(demo), { timeout, message: `clock reaches ${ms} ms` }).toBeGreaterThanOrEqual(ms);
}

export const actions = (rc: Locator) => rc.getByTestId('action');

/** The last reconcile's actions as "kind pod" strings, sorted. */
export async function actionList(rc: Locator): Promise<string[]> {
  const list = await actions(rc).evaluateAll((els) =>
    els.map((e) => `${e.getAttribute('data-kind')} ${e.getAttribute('data-pod')}`));
  return list.sort();
}

export const speedButton = (demo: Locator, s: '0.5' | '1' | '2') =>
  demo.getByTestId('speed').locator(`button[id$="-speed-${s}"]`);

/**
 * Runs the demo's virtual time at 2×, for tests whose subject is not the
 * pace: the same story in half the wall-clock time. (The default 1× pace
 * is what the first-load, pause, speed and operator story tests use.)
 * Right after a page loads, the frames that bring its first pods can move
 * the button between Playwright's check of the point it clicks and the
 * click (on a 360 px page the pods above it wrap to new rows): a click
 * that landed elsewhere, and sent nothing, is made again. 2× twice is 2×.
 */
export async function fast(demo: Locator) {
  await expect(async () => {
    await speedButton(demo, '2').click();
    await expect(demo.getByTestId('speed')).toHaveAttribute('data-value', '2', { timeout: 2_000 });
  }).toPass();
}

// ---------------------------------------------------------------- operator

export const members = (op: Locator) => op.getByTestId('member');
export const member = (op: Locator, name: string) => op.locator(`[data-testid="member"][data-name="${name}"]`);

/** Presses the operator's step once, after checking which move comes next. */
export async function opStep(op: Locator, expectNext?: string) {
  if (expectNext) await expect(op.getByTestId('next')).toHaveAttribute('data-value', expectNext);
  const before = await op.getByTestId('log').getAttribute('data-value');
  await op.getByTestId('step').click();
  return before;
}

/**
 * Steps a fresh operator demo (controller off) to Ready: restore, three
 * creates, (members start), elect, and the last step that sees no
 * difference. Waits on state after every press.
 */
export async function stepOperatorToReady(op: Locator) {
  const phase = op.getByTestId('status-phase');
  await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'restore');
  await op.getByTestId('step').click();
  await expect(op.getByTestId('status-restored')).toHaveAttribute('data-value', 'true');
  for (let i = 1; i <= 3; i++) {
    await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'create');
    await op.getByTestId('step').click();
    await expect(members(op)).toHaveCount(i);
  }
  await expect(op.locator('[data-testid="member"][data-ready="true"]')).toHaveCount(3);
  await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'elect');
  await op.getByTestId('step').click();
  await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-1');
  await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'noop');
  await op.getByTestId('step').click();
  await expect(phase).toHaveAttribute('data-value', 'Ready');
}

// ---------------------------------------------------------------- text

/** Hiragana, katakana and CJK ideographs. */
export const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;

// ---------------------------------------------------------------- servers of a spec's own

// Specs that stop a server under an open page, or need other settings than
// the suite's webServer, run servers of their own with these.

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'reconcile-demo');

export type Server = { proc: ChildProcess; exited: Promise<number | null>; output: string[] };
const servers: Server[] = [];

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts ../bin/reconcile-demo on port with env added, and waits until it is ready. */
export async function startServer(port: number, env: Record<string, string> = {}): Promise<Server> {
  const proc = spawn(BIN, [], {
    env: { ...process.env, ADDR: `127.0.0.1:${port}`, SESSION_TTL: '2m', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  proc.stdout!.on('data', (d) => output.push(String(d)));
  proc.stderr!.on('data', (d) => output.push(String(d)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const s = { proc, exited, output };
  servers.push(s);
  await expect.poll(async () => {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${output.join('')}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    } catch {
      return 0;
    }
  }, { timeout: 15_000, message: `server on ${port} ready` }).toBe(200);
  return s;
}

const LAB = path.resolve(__dirname, '..', '..', 'bin', 'roomlab');

/**
 * Starts ../bin/roomlab (cmd/roomlab: an embedded nats-server, two replicas
 * joined by it, and a reverse proxy routing by the cookie replica=a|b) on
 * port with env added to the replicas', and waits until both are ready.
 * POST /_lab/kill?replica=a kills one. stopServers stops it.
 */
export async function startLab(port: number, env: Record<string, string> = {}): Promise<Server> {
  const proc = spawn(LAB, [], {
    env: { ...process.env, ADDR: `127.0.0.1:${port}`, BIN: BIN, SESSION_TTL: '2m', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  proc.stdout!.on('data', (d) => output.push(String(d)));
  proc.stderr!.on('data', (d) => output.push(String(d)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const s = { proc, exited, output };
  servers.push(s);
  await expect.poll(async () => {
    if (proc.exitCode !== null) throw new Error(`roomlab exited with ${proc.exitCode}: ${output.join('')}`);
    try {
      return (await fetch(`http://127.0.0.1:${port}/_lab/ready`)).status;
    } catch {
      return 0;
    }
  }, { timeout: 15_000, message: `roomlab on ${port} ready` }).toBe(200);
  return s;
}

/** Kills every server startServer or startLab started (for test.afterAll). */
export async function stopServers() {
  for (const s of servers.splice(0)) {
    if (s.proc.exitCode === null && s.proc.signalCode === null) {
      // roomlab stops its replicas and NATS on SIGTERM; a server has no
      // need to drain here.
      s.proc.kill(s.proc.spawnfile === LAB ? 'SIGTERM' : 'SIGKILL');
      await s.exited;
    }
  }
}
