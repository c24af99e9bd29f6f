// Hidden tabs let go: a page hidden for a minute closes its socket with a
// normal closure, and when shown again reconnects and resumes from its
// snapshot, even after its session expired on the server. The spec runs a
// server of its own with a one-second SESSION_TTL, and Playwright's clock
// stands in for the minute.
import { test, expect, rcDemo, waitOpen, waitConverged, freePort, startServer, stopServers, type Page } from './fixtures';

test.describe.configure({ mode: 'serial' });
test.afterAll(stopServers);
// Playwright's clock stays installed in a context: these get their own.
test.use({ freshContext: true });

/** Makes the page believe it is hidden or shown, as switching tabs does. */
async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

test('a page hidden for a minute closes its socket and resumes when shown', async ({ page }) => {
  test.setTimeout(60_000);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await startServer(port, { SESSION_TTL: '1s' });
  await page.clock.install();
  await page.goto(`${base}/reconcile`);
  const rc = rcDemo(page);
  const conn = rc.getByTestId('connection');
  await waitOpen(rc);
  await waitConverged(rc);
  // A state of its own, to see it come back: 5 declared, controller off.
  await rc.getByTestId('controller-toggle').click();
  await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
  await rc.getByTestId('replicas-inc').click();
  await rc.getByTestId('replicas-inc').click();
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');
  const sockets = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Number((text.match(/^reconcile_demo_sockets (\d+)/m) || [])[1]);
  };
  await expect.poll(sockets).toBe(1);

  // Hidden for less than a minute: nothing happens.
  await setHidden(page, true);
  await page.clock.fastForward(59_000);
  await expect(conn).toHaveAttribute('data-state', 'open');
  // A minute: the socket closes normally and the server lets go of it.
  await page.clock.fastForward(2_000);
  await expect(rc).toHaveAttribute('data-asleep', 'true');
  await expect(conn).toHaveAttribute('data-state', 'closed');
  await expect.poll(sockets).toBe(0);
  // No reconnect while hidden (a normal closure), and the session expires.
  await expect.poll(async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    return Number((text.match(/^reconcile_demo_sessions (\d+)/m) || [])[1]);
  }, { timeout: 15_000 }).toBe(0);
  expect(await sockets()).toBe(0);

  // Shown again: it reconnects, and its snapshot rebuilds the demo.
  await setHidden(page, false);
  await expect(conn).toHaveAttribute('data-state', 'open');
  await expect(rc).not.toHaveAttribute('data-asleep', 'true');
  await expect(rc.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(1);
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(sockets).toBe(1);
});

test('a page shown again within the minute keeps its socket', async ({ page }) => {
  const port = await freePort();
  await startServer(port);
  await page.clock.install();
  await page.goto(`http://127.0.0.1:${port}/reconcile`);
  const rc = rcDemo(page);
  await waitOpen(rc);
  await setHidden(page, true);
  await page.clock.fastForward(30_000);
  await setHidden(page, false);
  await page.clock.fastForward(60_000);
  await expect(rc.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  await expect(rc).not.toHaveAttribute('data-asleep', 'true');
});
