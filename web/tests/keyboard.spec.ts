// A teacher drives the demo from the keyboard: shortcuts for every control,
// the help dialog, modifier combinations left to the browser, and every
// control reachable with Tab and pressed with Enter, keeping its focus when
// the socket swaps the fragment it lives in.
import { test, expect, open, rcDemo, opDemo, pods, podsIn, waitConverged, fast, type Page } from './fixtures';

const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id || '');
const activeTestId = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset?.testid || '');

test.describe('keyboard', () => {
  test('shortcuts: + − k c s Space r', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    const desired = rc.getByTestId('desired');
    await fast(rc);
    await waitConverged(rc);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    // Space pauses and resumes (focus is on the page, not on a button).
    await expect.poll(() => activeId(page)).toBe('');
    await page.keyboard.press(' ');
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    await page.keyboard.press(' ');
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'false');
    await expect(rc.getByTestId('clock')).toHaveAttribute('data-paused', 'false');

    await page.keyboard.press('+');
    await expect(desired).toHaveAttribute('data-value', '4');
    await page.keyboard.press('=');  // the same key without Shift
    await expect(desired).toHaveAttribute('data-value', '5');
    await page.keyboard.press('-');
    await expect(desired).toHaveAttribute('data-value', '4');
    await page.keyboard.press('-');
    await expect(desired).toHaveAttribute('data-value', '3');
    // (a pod-4 the controller may have made meanwhile goes again)
    await waitConverged(rc);

    await page.keyboard.press('c');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');

    await page.keyboard.press('k');
    await expect(podsIn(rc, 'Failed')).toHaveCount(1);
    await page.keyboard.press('k');  // kills another: Failed pods are skipped
    await expect(podsIn(rc, 'Failed')).toHaveCount(2);
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'false');

    await page.keyboard.press('s');
    await expect(rc.getByTestId('action')).toHaveCount(4);
    await waitConverged(rc);

    await page.keyboard.press('c');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');

    await page.keyboard.press('+');
    await expect(desired).toHaveAttribute('data-value', '4');
    await page.keyboard.press('r');
    await expect(desired).toHaveAttribute('data-value', '3');
    await expect(rc.locator('[data-testid="log"] li[data-kind="reset"]')).toHaveCount(1);
    await waitConverged(rc);
  });

  test('? opens the help dialog; shortcuts wait while it is open', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    const help = page.getByTestId('help');
    await expect(help).toBeHidden();
    await page.keyboard.press('?');
    await expect(help).toBeVisible();
    await expect(help).toHaveJSProperty('open', true);
    await expect(help.locator('kbd', { hasText: 'k' })).toBeVisible();
    // A shortcut while the dialog is open does nothing …
    await page.keyboard.press('+');
    await page.keyboard.press('Escape');
    await expect(help).toBeHidden();
    // … and the next one does: desired goes 3 → 4, not 3 → 5.
    await page.keyboard.press('+');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await page.keyboard.press('c');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    expect(await rc.getByTestId('desired').getAttribute('data-value')).toBe('4');

    // The header button opens it too, and its close button closes it.
    await page.getByTestId('help-open').click();
    await expect(help).toBeVisible();
    await page.getByTestId('help-close').click();
    await expect(help).toBeHidden();
  });

  test('the help lists the keys of the demo in use, in its own words', async ({ page }) => {
    const help = page.getByTestId('help');
    const row = (key: string) => help.locator('.keys > div').filter({ has: page.locator('kbd', { hasText: new RegExp('^' + key.replace(/[+?-]/g, '\\$&') + '$') }) });

    await open(page, '/reconcile');
    await page.keyboard.press('?');
    await expect(row('+')).toContainText('レプリカを増やす / レプリカを減らす');
    await expect(row('k')).toBeVisible();
    await expect(row('+').locator('kbd', { hasText: '-' })).toBeVisible();
    await page.keyboard.press('Escape');

    // The Operator's + and - change members; the pipeline's + creates an
    // App and it has no pods to kill, nor a - button.
    await open(page, '/operator?lang=en');
    await page.keyboard.press('?');
    await expect(row('+')).toContainText('More members / Fewer members');
    await page.keyboard.press('Escape');

    await open(page, '/pipeline');
    await page.keyboard.press('?');
    await expect(row('+')).toContainText('CR を作る');
    await expect(row('+')).not.toContainText('レプリカ');
    await expect(row('+').locator('kbd', { hasText: '-' })).toBeHidden();
    await expect(row('k')).toBeHidden();
    await expect(row('s')).toBeVisible();
    await page.keyboard.press('Escape');
  });

  test('keys with a modifier are left alone', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await waitConverged(rc);
    for (const key of ['Control+k', 'Alt+k', 'Meta+k', 'Control+c', 'Alt+s', 'Alt+r', 'Control+Shift+Equal', 'Alt+Minus']) {
      await page.keyboard.press(key);
    }
    // The socket is ordered: once this shortcut's effect shows, any effect
    // of the keys above would already have shown.
    await page.keyboard.press('+');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect(podsIn(rc, 'Failed')).toHaveCount(0);
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.locator('[data-testid="log"] li[data-kind="reset"]')).toHaveCount(0);
    await expect(rc.locator('[data-testid="log"] li[data-kind="kill"]')).toHaveCount(0);
    await expect(rc.locator('[data-testid="log"] li[data-kind="desired"]')).toHaveCount(1);
  });

  test('shortcuts are ignored while typing in a text field', async ({ page }) => {
    await open(page, '/');
    // No page of ours has a text field today; one is added the way a future
    // form would be, so the rule is guarded all the same.
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'text';
      input.id = 'typing-probe';
      input.setAttribute('aria-label', 'probe');
      document.querySelector('[data-testid="reconcile-demo"]')!.appendChild(input);
    });
    const rc = rcDemo(page);
    await page.locator('#typing-probe').focus();
    await page.keyboard.type('k+c');
    await page.keyboard.press('Escape');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('-');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '2');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.locator('[data-testid="log"] li[data-kind="kill"]')).toHaveCount(0);
  });

  test('Tab reaches the step button, Enter presses it, focus survives the swaps', async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await waitConverged(rc);

    // Tab from the top of the page to the step button.
    let tabs = 0;
    while ((await activeTestId(page)) !== 'step') {
      await page.keyboard.press('Tab');
      expect(++tabs, 'Tab reaches the step button').toBeLessThan(60);
    }
    expect(await activeId(page)).toBe('rc-step');
    await expect(rc.getByTestId('step')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(rc.locator('[data-testid="log"] li[data-kind="noop"]')).toHaveCount(1);
    await expect(rc.getByTestId('actions')).toHaveAttribute('data-value', '0');
    expect(await activeId(page)).toBe('rc-step');

    // Shift+Tab back to the controller switch: pressing it swaps the whole
    // controls fragment, and the focus comes back to the new button.
    await page.keyboard.press('Shift+Tab');
    await expect(rc.getByTestId('controller-toggle')).toBeFocused();
    const old = await rc.getByTestId('controller-toggle').elementHandle();
    await page.keyboard.press('Enter');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    expect(await old!.evaluate((e) => e.isConnected), 'the fragment was replaced').toBe(false);
    await expect(rc.getByTestId('controller-toggle')).toBeFocused();
    expect(await activeId(page)).toBe('rc-controller');
    // Space on a focused button presses that button (not pause).
    await page.keyboard.press(' ');
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');
    await expect(rc.getByTestId('pause')).toHaveAttribute('aria-pressed', 'false');
    await expect(rc.getByTestId('controller-toggle')).toBeFocused();

    // The + button: Enter twice, with focus kept across the desired swap.
    while ((await activeTestId(page)) !== 'replicas-inc') {
      await page.keyboard.press('Shift+Tab');
      expect(++tabs, 'Shift+Tab reaches the + button').toBeLessThan(120);
    }
    await page.keyboard.press('Enter');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect(rc.getByTestId('replicas-inc')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '5');
    await expect(rc.getByTestId('replicas-inc')).toBeFocused();
    await waitConverged(rc, 5);

    // The slider moves with the arrow keys.
    await page.keyboard.press('Shift+Tab');
    await expect(rc.getByTestId('replicas-input')).toBeFocused();
    await page.keyboard.press('ArrowLeft');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect(pods(rc)).toHaveCount(4);
  });

  test('on the page of both demos, shortcuts act on the demo last touched', async ({ page }) => {
    await open(page, '/');
    const rc = rcDemo(page);
    const op = opDemo(page);
    // Nothing touched yet: the first demo.
    await page.keyboard.press('+');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await expect(op.getByTestId('spec-members')).toHaveAttribute('data-value', '3');

    await op.getByTestId('step').click();
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Restoring');
    await page.keyboard.press('+');
    await expect(op.getByTestId('spec-members')).toHaveAttribute('data-value', '4');
    await page.keyboard.press('s');
    await expect(op.getByTestId('member')).toHaveCount(1);
    await page.keyboard.press('k');
    await expect(op.getByTestId('member')).toHaveCount(0);
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '4');

    // Touch the reconcile demo again: keys go back to it.
    await rc.getByTestId('diff').click();
    await page.keyboard.press('-');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await expect(op.getByTestId('spec-members')).toHaveAttribute('data-value', '4');
  });
});
