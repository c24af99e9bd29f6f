// A restart loses no one's demo: the page keeps a snapshot of its demo and
// sends it when its socket opens again, and the new process rebuilds the
// demo from it. This spec runs servers of its own (not the suite's
// webServer) so that it can stop one under an open page.
import { test, expect, rcDemo, pod, podsIn, waitOpen, waitConverged, freePort, startServer, stopServers } from './fixtures';

test.describe.configure({ mode: 'serial' });

test.afterAll(stopServers);

test('a restarted server rebuilds the demo from the page\'s snapshot', async ({ page, errors }, testInfo) => {
  test.setTimeout(90_000);
  // While no server listens, the browser reports the refused reconnects
  // (and htmx-ext-ws logs its wsError event): expected here, and only here.
  errors.allow(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws\?.*' failed/);
  errors.allow(/^console\.error: (Event|\[object Event\]|JSHandle@object)/);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const first = await startServer(port);

  await page.goto(`${base}/reconcile`);
  const rc = rcDemo(page);
  const conn = rc.getByTestId('connection');
  await waitOpen(rc);
  await waitConverged(rc);
  const sid = await rc.getAttribute('data-sid');

  // A distinctive state: controller off, 5 declared, pod-2 Failed.
  await rc.getByTestId('controller-toggle').click();
  await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
  await rc.getByTestId('replicas-inc').click();
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
  await rc.getByTestId('replicas-inc').click();
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await pod(rc, 'pod-2').getByTestId('kill').click();
  await expect(pod(rc, 'pod-2')).toHaveAttribute('data-phase', 'Failed');

  // The page keeps the snapshot (sessionStorage, by session id).
  const stored = () => page.evaluate((k) => {
    const v = sessionStorage.getItem(k);
    return v ? JSON.parse(v) : null;
  }, `snap:${sid}`);
  await expect.poll(stored).toMatchObject({
    desired: 5, controller: false,
    pods: [{ name: 'pod-1', phase: 'Running' }, { name: 'pod-2', phase: 'Failed' }, { name: 'pod-3', phase: 'Running' }],
  });
  const before = await rc.getByTestId('pod').evaluateAll((els) =>
    els.map((e) => [e.getAttribute('data-name'), e.getAttribute('data-phase')]));
  expect(before).toEqual([['pod-1', 'Running'], ['pod-2', 'Failed'], ['pod-3', 'Running']]);

  // Stop the server gracefully: sockets close with 1012, the page waits to
  // reconnect, the process exits within 10 s.
  first.proc.kill('SIGTERM');
  await expect(conn).toHaveAttribute('data-state', /^(closed|connecting)$/);
  const code = await Promise.race([first.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
  expect(code, `server exit (output: ${first.output.join('')})`).toBe(0);
  // The page still shows the last state while it waits.
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');

  // A new process on the same address: the page reconnects and restores.
  const second = await startServer(port);
  await expect(conn).toHaveAttribute('data-state', 'open', { timeout: 40_000 });
  await expect(rc.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(1);
  await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
  await expect(podsIn(rc, 'Failed')).toHaveCount(1);
  const after = await rc.getByTestId('pod').evaluateAll((els) =>
    els.map((e) => [e.getAttribute('data-name'), e.getAttribute('data-phase')]));
  expect(after).toEqual(before);
  expect(await rc.getAttribute('data-sid')).toBe(sid);

  // And the restored demo carries on: one step repairs it on the new
  // process, with names continuing from the old sequence.
  await rc.getByTestId('step').click();
  await waitConverged(rc, 5);
  expect(await rc.getByTestId('pod').evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))))
    .toEqual(['pod-1', 'pod-3', 'pod-4', 'pod-5', 'pod-6']);
  await testInfo.attach('server-output.txt', { body: first.output.join('') + '\n---\n' + second.output.join('') });
  await testInfo.attach('allowed-errors.txt', { body: errors.allowedSeen.join('\n') || '(none)' });
});
