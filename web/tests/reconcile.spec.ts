// Chapter 000's story, as a reader plays it: the loop converges to the
// declared 3, repairs a killed pod with a new one, catches up on everything
// in one reconcile after the controller was off (level-triggered), scales
// both ways, and the pace controls (pause, speed, reset) behave.
import {
  test, expect, open, rcDemo, opDemo, pod, pods, podsIn, podNames, waitConverged,
  clockMs, waitClock, actions, actionList, speedButton, fast,
} from './fixtures';

test.describe('reconcile demo', () => {
  test('converges to the declared 3 Running pods on first load', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await waitConverged(rc);
    expect(await podNames(rc)).toEqual(['pod-1', 'pod-2', 'pod-3']);
    await expect(rc.getByTestId('observed')).toHaveAttribute('data-value', '3');
    await expect(rc.getByTestId('diff')).toContainText('一致');
    // The first reconcile created all three at once.
    expect(await actionList(rc)).toEqual(['create pod-1', 'create pod-2', 'create pod-3']);
    await expect(rc.getByTestId('log')).toContainText('controller: 監視を開始しました');
    await expect(rc.locator('[data-testid="log"] li[data-kind="converged"]')).toHaveCount(1);
  });

  test('a killed pod goes Failed and a new name replaces it (paused to watch each step)', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await waitConverged(rc);

    // Freeze virtual time so the Failed state stays on screen.
    await rc.getByTestId('pause').click();
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'true');
    await pod(rc, 'pod-2').getByTestId('kill').click();
    await expect(pod(rc, 'pod-2')).toHaveAttribute('data-phase', 'Failed');
    await expect(pod(rc, 'pod-2').getByTestId('kill')).toBeDisabled();
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'false');
    await expect(rc.getByTestId('observed')).toHaveAttribute('data-value', '2');
    await expect(rc.getByTestId('observed')).toHaveAttribute('data-failed', '1');

    // Resume: the running controller deletes the Failed pod and creates
    // pod-4 in the same reconcile; pod-4 starts after its delay.
    await rc.getByTestId('pause').click();
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'false');
    await expect(pod(rc, 'pod-4')).toHaveCount(1);
    await expect(pod(rc, 'pod-2')).toHaveCount(0);
    expect(await actionList(rc)).toEqual(['create pod-4', 'delete pod-2']);
    await expect(pod(rc, 'pod-4')).toHaveAttribute('data-phase', 'Running');
    await waitConverged(rc);
    expect(await podNames(rc)).toEqual(['pod-1', 'pod-3', 'pod-4']);
  });

  test('a killed pod is replaced while the clock runs', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await fast(rc);
    await waitConverged(rc);
    await pod(rc, 'pod-1').getByTestId('kill').click();
    // The Failed state may last less than a poll: the log keeps the story.
    const log = rc.getByTestId('log');
    await expect(log.locator('li[data-kind="kill"]', { hasText: 'pod-1' })).toHaveCount(1);
    await expect(pod(rc, 'pod-1')).toHaveCount(0);
    await expect(log.locator('li[data-kind="delete"]', { hasText: 'pod-1' })).toHaveCount(1);
    await expect(log.locator('li[data-kind="create"]', { hasText: 'pod-4' })).toHaveCount(1);
    await expect(pod(rc, 'pod-4')).toHaveAttribute('data-phase', 'Running');
    await waitConverged(rc);
    expect(await podNames(rc)).toEqual(['pod-2', 'pod-3', 'pod-4']);
    // Back in sync: converged logged twice (first start, then the repair).
    await expect(log.locator('li[data-kind="converged"]')).toHaveCount(2);
  });

  test('controller off: Failed pods stay; one step repairs everything at once (level-triggered)', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await fast(rc);
    await waitConverged(rc);

    const toggle = rc.getByTestId('controller-toggle');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(rc.getByTestId('log').locator('li[data-kind="watch-stop"]')).toHaveCount(1);

    await pod(rc, 'pod-1').getByTestId('kill').click();
    await expect(pod(rc, 'pod-1')).toHaveAttribute('data-phase', 'Failed');
    await pod(rc, 'pod-3').getByTestId('kill').click();
    await expect(pod(rc, 'pod-3')).toHaveAttribute('data-phase', 'Failed');
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'false');
    await expect(rc.getByTestId('diff')).toContainText('差あり: 調整が必要');

    // Let a few virtual seconds pass: nobody closes the gap.
    const t0 = await clockMs(rc);
    await waitClock(rc, t0 + 3000);
    await expect(podsIn(rc, 'Failed')).toHaveCount(2);
    await expect(pods(rc)).toHaveCount(3);
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'false');
    // The last reconcile is still the first one, three creates.
    expect(await actionList(rc)).toEqual(['create pod-1', 'create pod-2', 'create pod-3']);

    // One step recounts everything: both deletes and both creates at once.
    await rc.getByTestId('step').click();
    await expect(actions(rc)).toHaveCount(4);
    expect(await actionList(rc)).toEqual(['create pod-4', 'create pod-5', 'delete pod-1', 'delete pod-3']);
    await expect(rc.getByTestId('actions')).toHaveAttribute('data-value', '4');
    await expect(rc.getByTestId('explain')).toContainText('3 あるべきところ 1');
    await waitConverged(rc);
    expect(await podNames(rc)).toEqual(['pod-2', 'pod-4', 'pod-5']);
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  });

  test('scales up and down with the buttons and the slider; bounds disable the buttons', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    const desired = rc.getByTestId('desired');
    const slider = rc.getByTestId('replicas-input');
    await fast(rc);
    await waitConverged(rc);

    await rc.getByTestId('replicas-inc').click();
    await expect(desired).toHaveAttribute('data-value', '4');
    await rc.getByTestId('replicas-inc').click();
    await expect(desired).toHaveAttribute('data-value', '5');
    await expect(slider).toHaveValue('5');
    await waitConverged(rc, 5);
    expect(await podNames(rc)).toEqual(['pod-1', 'pod-2', 'pod-3', 'pod-4', 'pod-5']);

    // The range input sends on its change event.
    await slider.fill('8');
    await expect(desired).toHaveAttribute('data-value', '8');
    await waitConverged(rc, 8);

    // Scale down: the excess goes from the end of name order.
    await slider.fill('2');
    await expect(desired).toHaveAttribute('data-value', '2');
    await waitConverged(rc, 2);
    expect(await podNames(rc)).toEqual(['pod-1', 'pod-2']);
    expect(await actionList(rc)).toEqual(
      ['delete pod-3', 'delete pod-4', 'delete pod-5', 'delete pod-6', 'delete pod-7', 'delete pod-8']);

    await rc.getByTestId('replicas-dec').click();
    await expect(desired).toHaveAttribute('data-value', '1');
    await waitConverged(rc, 1);
    expect(await podNames(rc)).toEqual(['pod-1']);

    // Lower bound.
    await rc.getByTestId('replicas-dec').click();
    await expect(desired).toHaveAttribute('data-value', '0');
    await expect(rc.getByTestId('replicas-dec')).toBeDisabled();
    await expect(rc.getByTestId('replicas-inc')).toBeEnabled();
    await expect(pods(rc)).toHaveCount(0);
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'true');

    // Upper bound.
    await slider.fill('9');
    await expect(desired).toHaveAttribute('data-value', '9');
    await rc.getByTestId('replicas-inc').click();
    await expect(desired).toHaveAttribute('data-value', '10');
    await expect(rc.getByTestId('replicas-inc')).toBeDisabled();
    await expect(rc.getByTestId('replicas-dec')).toBeEnabled();
    await expect(slider).toHaveAttribute('max', '10');
    await waitConverged(rc, 10);
  });

  test('the chart scrolls with the clock, its lines ending at the view\'s right edge', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    // The plot's view, the clock's moment (both in plot x, from the chart's
    // origin, its newest change), and where each line ends (its last
    // step's x), read in one go: the page moves them in one task.
    // (From the demo, which stays: a frame may swap the chart meanwhile.)
    const plot = () => rc.evaluate((demo) => {
      const svg = demo.querySelector('[data-testid="chart"] svg.plot')!;
      const [x, , w] = svg.getAttribute('viewBox')!.split(' ').map(Number);
      const now = Number(demo.querySelector('[data-testid="clock"]')!.getAttribute('data-value'));
      const origin = Number(svg.getAttribute('data-origin'));
      const ends = [...svg.querySelectorAll('path.series')].map((p) => Number(p.getAttribute('d')!.split('H').pop()));
      return { right: x + w, clock: (now - origin) / 100, ends, desired: svg.querySelector('.s-desired')!.getAttribute('d')! };
    });
    // Drawn ahead of its own time, a line would be dashed along all of it:
    // the server draws each to the far future, and the page ends them.
    const endsAtTheEdge = async () => {
      const p = await plot();
      return Math.abs(p.right - p.clock) < 0.2 && p.ends.length === 4 &&
        p.ends.every((e) => e > p.right && e <= p.right + 2);
    };
    await expect.poll(endsAtTheEdge, { message: 'the lines end just past the view' }).toBe(true);
    const before = await plot();
    await waitClock(rc, Number(await rc.getByTestId('clock').getAttribute('data-value')) + 1500);
    await expect.poll(endsAtTheEdge).toBe(true);

    // A new chart from the server (desired went up) is ended the same way.
    await rc.getByTestId('replicas-inc').click();
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect.poll(async () => (await plot()).desired).not.toBe(before.desired);
    await expect.poll(endsAtTheEdge).toBe(true);
  });

  test('pause stops the virtual clock and resume restarts it', async ({ page }) => {
    // Both demos on one page: the operator demo's clock is the witness that
    // real time passes while the reconcile demo is paused.
    await open(page, '/');
    const rc = rcDemo(page);
    const op = opDemo(page);
    // Pods appear on the first tick: time runs.
    await expect(rc.getByTestId('pod')).toHaveCount(3);

    const pause = rc.getByTestId('pause');
    await pause.click();
    await expect(pause).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    const frozen = await clockMs(rc);
    const w0 = await clockMs(op);
    await waitClock(op, w0 + 2000);
    expect(await clockMs(rc)).toBe(frozen);
    await expect(op.getByTestId('clock')).toHaveAttribute('data-paused', 'false');

    // Nothing happens by itself while paused: Pending pods stay Pending.
    const pending = await podsIn(rc, 'Pending').count();
    expect(await podsIn(rc, 'Running').count() + pending).toBe(3);
    // Actions still work while paused (a step runs now), but time stays.
    await rc.getByTestId('step').click();
    await expect(rc.getByTestId('actions')).toHaveAttribute('data-value', '0');
    await expect(rc.getByTestId('explain')).toContainText('何もしない');
    expect(await clockMs(rc)).toBe(frozen);
    await expect(podsIn(rc, 'Pending')).toHaveCount(pending);

    await pause.click();
    await expect(pause).toHaveAttribute('aria-pressed', 'false');
    await expect(rc.getByTestId('clock')).toHaveAttribute('data-paused', 'false');
    await waitClock(rc, frozen + 1000);
  });

  test('speed buttons change the pace of virtual time', async ({ page }) => {
    await open(page, '/');
    const rc = rcDemo(page);
    const op = opDemo(page);
    const speed = rc.getByTestId('speed');
    await expect(speed).toHaveAttribute('data-value', '1');
    await expect(speedButton(rc, '1')).toHaveAttribute('aria-pressed', 'true');

    await speedButton(rc, '2').click();
    await expect(speed).toHaveAttribute('data-value', '2');
    await expect(speedButton(rc, '2')).toHaveAttribute('aria-pressed', 'true');
    await expect(speedButton(rc, '1')).toHaveAttribute('aria-pressed', 'false');

    // At 0.5× the reconcile demo's clock runs at half the pace of the
    // operator demo's clock, still at 1×.
    await speedButton(rc, '0.5').click();
    await expect(speed).toHaveAttribute('data-value', '0.5');
    await expect(speedButton(rc, '0.5')).toHaveAttribute('aria-pressed', 'true');
    await expect(speedButton(rc, '2')).toHaveAttribute('aria-pressed', 'false');
    const r0 = await clockMs(rc);
    const w0 = await clockMs(op);
    await waitClock(op, w0 + 4000, 15_000);
    const dr = (await clockMs(rc)) - r0;
    const dw = (await clockMs(op)) - w0;
    expect(dr, `0.5× advanced ${dr} ms while 1× advanced ${dw} ms`).toBeGreaterThan(0);
    expect(dr).toBeLessThan(dw * 0.75);

    await speedButton(rc, '1').click();
    await expect(speed).toHaveAttribute('data-value', '1');
  });

  test('reset brings back the first state: 3 declared, controller on, fresh pods', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await fast(rc);
    await waitConverged(rc);

    await rc.getByTestId('controller-toggle').click();
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await rc.getByTestId('replicas-inc').click();
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await pod(rc, 'pod-1').getByTestId('kill').click();
    await expect(pod(rc, 'pod-1')).toHaveAttribute('data-phase', 'Failed');

    await rc.getByTestId('reset').click();
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.locator('[data-testid="log"] li[data-kind="reset"]')).toHaveCount(1);
    await expect(rc.getByTestId('log')).toContainText('controller: 監視を開始しました');
    await expect(podsIn(rc, 'Failed')).toHaveCount(0);
    await waitConverged(rc);
    // A new cluster: names start again.
    expect(await podNames(rc)).toEqual(['pod-1', 'pod-2', 'pod-3']);
  });
  test('each press sends one message: the control\'s values, sent by the page', async ({ page }) => {
    // static/app.js sends a control's message itself once the first frame
    // is in; htmx, which took on the page's controls as it loaded, must not
    // send too (server: TestFirstFrameReplacesEveryControl).
    const sent: unknown[] = [];
    page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(JSON.parse(String(f.payload)))));
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    const desired = rc.getByTestId('desired');
    await rc.getByTestId('replicas-inc').click();
    await expect(desired).toHaveAttribute('data-value', '4');
    await rc.getByTestId('replicas-input').fill('6');
    await expect(desired).toHaveAttribute('data-value', '6');
    await rc.getByTestId('pause').click();
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'true');
    await rc.getByTestId('room-open').click();
    await expect(rc.getByTestId('room-code')).toHaveCount(1);
    expect(sent).toEqual([
      { action: 'replicas-inc' },
      { action: 'set-replicas', replicas: '6' },
      { action: 'pause', paused: true },
      { action: 'room-open' },
    ]);
  });
  test('the log follows its end, and stays where the reader scrolled it', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    const log = rc.getByTestId('log');
    const lines = log.locator('li');
    const atEnd = () => log.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 2);
    const overflows = () => log.evaluate((el) => el.scrollHeight > el.clientHeight + 40);
    // Each press logs a line or more: press until the log overflows.
    for (let i = 0; !(await overflows()); i++) {
      const n = await lines.count();
      await rc.getByTestId(i % 2 ? 'replicas-dec' : 'replicas-inc').click();
      await expect.poll(() => lines.count()).toBeGreaterThan(n);
    }
    await expect.poll(atEnd).toBe(true);
    // Scrolled to its start, it stays there as lines come.
    await log.evaluate((el) => { el.scrollTop = 0; });
    let n = await lines.count();
    await rc.getByTestId('replicas-inc').click();
    await expect.poll(() => lines.count()).toBeGreaterThan(n);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await log.evaluate((el) => el.scrollTop)).toBe(0);
    // Back at its end, it follows again.
    await log.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    n = await lines.count();
    await rc.getByTestId('replicas-dec').click();
    await expect.poll(() => lines.count()).toBeGreaterThan(n);
    await expect.poll(atEnd).toBe(true);
  });
});
