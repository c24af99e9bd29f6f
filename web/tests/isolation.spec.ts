// Two visitors (two browser contexts: separate storage, separate sockets)
// each get a demo of their own: what one does, the other never sees.
import { test, expect, open, rcDemo, opDemo, pod, podsIn, podNames, waitConverged, stepOperatorToReady, members, fast } from './fixtures';

test('two visitors do not see each other\'s demo', async ({ page, browser, errors }) => {
  const other = await browser.newContext();
  errors.watchContext(other);
  try {
    const pageB = await other.newPage();
    await Promise.all([open(page, '/reconcile'), open(pageB, '/reconcile')]);
    const a = rcDemo(page);
    const b = rcDemo(pageB);
    await Promise.all([fast(a), fast(b)]);
    await Promise.all([waitConverged(a), waitConverged(b)]);

    const sidA = await a.getAttribute('data-sid');
    const sidB = await b.getAttribute('data-sid');
    expect(sidA).toMatch(/^[0-9a-f]{32}$/);
    expect(sidB).toMatch(/^[0-9a-f]{32}$/);
    expect(sidA).not.toBe(sidB);

    // Visitor A stops the controller, scales and kills a pod.
    await a.getByTestId('controller-toggle').click();
    await expect(a.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await a.getByTestId('replicas-inc').click();
    await expect(a.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await pod(a, 'pod-2').getByTestId('kill').click();
    await expect(pod(a, 'pod-2')).toHaveAttribute('data-phase', 'Failed');
    await a.getByTestId('step').click();
    await expect(pod(a, 'pod-5')).toHaveAttribute('data-phase', 'Running');
    await waitConverged(a, 4);

    // Visitor B's demo is as it was.
    await expect(b.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await expect(b.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(podsIn(b, 'Failed')).toHaveCount(0);
    expect(await podNames(b)).toEqual(['pod-1', 'pod-2', 'pod-3']);
    await expect(b.getByTestId('log').locator('li[data-kind="kill"]')).toHaveCount(0);
    await expect(b.getByTestId('log').locator('li[data-kind="desired"]')).toHaveCount(0);

    // And the other way round: B kills, A is unaffected.
    await pod(b, 'pod-3').getByTestId('kill').click();
    await expect(pod(b, 'pod-4')).toHaveAttribute('data-phase', 'Running');
    await waitConverged(b, 3);
    expect(await podNames(a)).toEqual(['pod-1', 'pod-3', 'pod-4', 'pod-5']);
    await expect(a.getByTestId('log').locator('li[data-kind="kill"]')).toHaveCount(1);
  } finally {
    await other.close();
  }
});

test('two visitors of the operator demo do not share the Status', async ({ page, browser, errors }) => {
  const other = await browser.newContext();
  errors.watchContext(other);
  try {
    const pageB = await other.newPage();
    await Promise.all([open(page, '/operator'), open(pageB, '/operator')]);
    const a = opDemo(page);
    const b = opDemo(pageB);
    expect(await a.getAttribute('data-sid')).not.toBe(await b.getAttribute('data-sid'));
    await stepOperatorToReady(a);
    await expect(b.getByTestId('status-phase')).toHaveAttribute('data-value', 'Pending');
    await expect(members(b)).toHaveCount(0);
    await expect(b.getByTestId('next')).toHaveAttribute('data-value', 'restore');
    await expect(b.getByTestId('status-restored')).toHaveAttribute('data-value', 'false');
  } finally {
    await other.close();
  }
});
