// Projector mode (?mode=present) at 1920×1080: large type, the whole demo
// on one screen without scrolling, big buttons, and a switch that toggles
// the mode in the URL.
import { test, expect, open, rcDemo, opDemo, waitConverged, members, stepOperatorToReady, fast, type Page } from './fixtures';

test.use({ viewport: { width: 1920, height: 1080 } });

async function expectLargeType(page: Page) {
  const size = await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize));
  expect(size, 'body font-size in px').toBeGreaterThanOrEqual(24);
}

async function expectOneScreen(page: Page, testid: string) {
  const box = await page.getByTestId(testid).boundingBox();
  expect(box, testid).not.toBeNull();
  expect(box!.y, `${testid} top`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${testid} bottom`).toBeLessThanOrEqual(1080);
  const sh = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(sh, 'document scrollHeight').toBeLessThanOrEqual(1080);
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(sw, 'document scrollWidth').toBeLessThanOrEqual(1920);
}

/** Visible controls matching selector that are under 44 px tall. */
async function smallControls(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((els) => els
    .filter((e) => (e as HTMLElement).offsetParent !== null && !e.closest('dialog'))
    .map((e) => ({ what: e.id || e.getAttribute('data-testid') || e.textContent?.trim() || e.tagName, h: e.getBoundingClientRect().height }))
    .filter((b) => b.h < 44));
}

// Every button of the demos except the pods' kill buttons (checked below with the rest).
const DEMO_BUTTONS = '[data-demo] button:not([data-testid="kill"]):not([data-testid="kill-member"]), [data-demo] [role="switch"]';
// Everything a presenter presses: the rest of the buttons, and the
// header's tools (language, projector switch, help).
const ALL_CONTROLS = 'button, [role="switch"], a.tool';

test.describe('projector mode', () => {
  test('/reconcile?mode=present: large type, one screen with 3 pods, big demo buttons', async ({ page }) => {
    await open(page, '/reconcile?mode=present');
    await expect(page.locator('body')).toHaveClass(/\bpresent\b/);
    await expectLargeType(page);
    await fast(rcDemo(page));
    await waitConverged(rcDemo(page));
    await expectOneScreen(page, 'reconcile-demo');
    expect(await smallControls(page, DEMO_BUTTONS), 'demo buttons under 44 px').toEqual([]);
  });

  test('/operator?mode=present: large type, one screen with 3 members, big demo buttons', async ({ page }) => {
    await open(page, '/operator?mode=present');
    await expectLargeType(page);
    const op = opDemo(page);
    await fast(op);
    await stepOperatorToReady(op);
    await expect(members(op)).toHaveCount(3);
    await expectOneScreen(page, 'operator-demo');
    expect(await smallControls(page, DEMO_BUTTONS), 'demo buttons under 44 px').toEqual([]);
  });

  // Kill buttons and the header's tools too, not only the demo's controls.
  test('every control is at least 44 px tall in projector mode', async ({ page }) => {
    await open(page, '/reconcile?mode=present');
    await waitConverged(rcDemo(page));
    expect(await smallControls(page, ALL_CONTROLS), '/reconcile controls under 44 px').toEqual([]);
    await open(page, '/operator?mode=present');
    await stepOperatorToReady(opDemo(page));
    expect(await smallControls(page, ALL_CONTROLS), '/operator controls under 44 px').toEqual([]);
  });

  test('English projector pages fit too', async ({ page }) => {
    await open(page, '/reconcile?mode=present&lang=en');
    await fast(rcDemo(page));
    await waitConverged(rcDemo(page));
    await expectOneScreen(page, 'reconcile-demo');
    await open(page, '/operator?mode=present&lang=en');
    await fast(opDemo(page));
    await stepOperatorToReady(opDemo(page));
    await expectOneScreen(page, 'operator-demo');
  });

  test('the timeline folds into the site\'s head: it covers nothing, opens, and stays in view', async ({ page }) => {
    // The pipeline's page is taller than a screen: a button floating at
    // the bottom once hid one of its trap switches.
    await open(page, '/pipeline?mode=present');
    const fold = page.getByTestId('timeline-fold');
    const panel = page.getByTestId('pipeline-demo').getByTestId('timeline-panel');
    await expect(page.locator('.site-head').getByTestId('timeline-fold')).toHaveCount(1);
    await expect(fold).toHaveAttribute('aria-expanded', 'false');
    await expect(panel).toBeHidden();
    // Every switch on the first screen is the topmost element at its centre.
    const covered = await page.locator('[data-demo] [role="switch"]').evaluateAll((els) => els
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.bottom > 0 && r.top < innerHeight)
      .filter(({ e, r }) => !e.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)))
      .map(({ e }) => e.id || e.textContent?.trim()));
    expect(covered, 'switches covered by something').toEqual([]);
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    await expect(fold).toBeInViewport();
    await fold.click();
    await expect(fold).toHaveAttribute('aria-expanded', 'true');
    await expect(panel).toBeVisible();
    await expect(panel.getByTestId('timeline')).toBeInViewport();
    await fold.click();
    await expect(panel).toBeHidden();
  });

  test('the present switch toggles the mode in the URL', async ({ page }) => {
    await open(page, '/reconcile');
    const sw = page.getByTestId('present-switch');
    await expect(page.locator('body')).not.toHaveClass(/\bpresent\b/);
    await expect(sw).toHaveAttribute('aria-checked', 'false');
    const small = await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize));
    expect(small).toBeLessThan(24);

    await sw.click();
    await page.waitForURL((u) => u.searchParams.get('mode') === 'present');
    expect(new URL(page.url()).pathname).toBe('/reconcile');
    await expect(page.locator('body')).toHaveClass(/\bpresent\b/);
    await expect(page.getByTestId('present-switch')).toHaveAttribute('aria-checked', 'true');
    await expect(rcDemo(page).getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expectLargeType(page);

    await page.getByTestId('present-switch').click();
    await page.waitForURL((u) => !u.searchParams.has('mode'));
    await expect(page.locator('body')).not.toHaveClass(/\bpresent\b/);
    await expect(page.getByTestId('present-switch')).toHaveAttribute('aria-checked', 'false');
    await expect(rcDemo(page).getByTestId('connection')).toHaveAttribute('data-state', 'open');
  });
});
