// The timeline under every demo: act, go back to a mark and see the demo as
// it was then (its controls off, the page saying it is the past), come back
// to now, continue from a moment (what came after is dropped), and open the
// link to a moment in another browser and as an embed, at the same moment,
// paused; a corrupted link is a plain 4xx page.
import { test, expect, open, type Locator, type Page } from './fixtures';

type Story = {
  kind: string;
  /** The control each step presses, and what it changes. */
  press: string;
  value: string; // the test id whose data-value the steps change
  attr?: string; // the attribute that holds it (data-value)
  values: [string, string, string]; // before, after one press, after two
  /** An event mark the demo makes on its own after the presses. */
  event?: RegExp;
};

const STORIES: Story[] = [
  { kind: 'reconcile', press: 'replicas-inc', value: 'desired', values: ['3', '4', '5'], event: /一致: 5 個すべて Running/ },
  { kind: 'triggers', press: 'replicas-inc', value: 'desired', values: ['3', '4', '5'] },
  { kind: 'pipeline', press: 'workers', value: 'workers', values: ['1', '2', '1'] },
  { kind: 'operator', press: 'members-inc', value: 'spec-members', values: ['3', '4', '5'] },
  { kind: 'controlplane', press: 'guided-next', value: 'guided-step', values: ['0', '1', '2'] },
];

const timeline = (d: Locator) => d.getByTestId('timeline');

async function press(d: Locator, s: Story, want: string) {
  await d.getByTestId(s.press).click();
  await expect(d.getByTestId(s.value)).toHaveAttribute('data-value', want);
}

/** Where the keys go and what the timeline shows, for a failure's message:
 *  read before the key is pressed. */
async function where(page: Page): Promise<string> {
  return page.evaluate(() => {
    const a = document.activeElement;
    const tl = document.querySelector<HTMLInputElement>('[data-testid="timeline"]');
    const marks = Array.from(document.querySelectorAll<HTMLElement>('.tl-mark'), (m) => m.dataset.at).join(',');
    return `focus on ${a?.id || a?.tagName}; timeline ${tl?.dataset.mode} value=${tl?.value} min=${tl?.min}; marks ${marks}`;
  });
}

/** Moves the timeline back, mark by mark (← key), to the mark at: over
 *  the demo's own event marks too. A range of the present may stand at a
 *  mark's time (the page does not move a focused range), so "there" is the
 *  past at that mark. */
async function backTo(page: Page, d: Locator, at: string) {
  const stands = async () => `${await timeline(d).getAttribute('data-mode')}@${await timeline(d).getAttribute('data-value')}`;
  await timeline(d).focus();
  for (let i = 0; i < 8 && (await stands()) !== `past@${at}`; i++) {
    const before = await stands();
    const was = await where(page);
    await page.keyboard.press('ArrowLeft');
    // Every press ends in the past (a range of the present moves on by
    // itself): at a mark before, or at the start.
    const moved = (why: string) => expect.poll(async () => {
      const now = await stands();
      return now.startsWith('past@') && now !== before;
    }, { message: `ArrowLeft from ${before} moves the timeline into the past (${why})` }).toBe(true);
    // One press in the full suite's CI run was never answered (what the
    // page showed then was not recorded): the page says where it stands,
    // and the key is pressed once more. A second loss fails.
    if (!(await moved(was).then(() => true, () => false))) {
      const now = await where(page);
      console.log(`timeline: ArrowLeft from ${before} not answered; before it, ${was}; after, ${now}`);
      await page.keyboard.press('ArrowLeft');
      await moved(`pressed twice; before the first, ${was}; before the second, ${now}`);
    }
  }
  await expect(timeline(d)).toHaveAttribute('data-value', at);
  await expect(timeline(d)).toHaveAttribute('data-mode', 'past');
}

for (const s of STORIES) {
  test(`${s.kind}: back to a mark, to now, continue from there, and a link to the moment`, async ({ page, browser, errors }) => {
    // Three pages in two more contexts (a renderer process each): in the
    // full suite, beside the room lab's replicas, the reconcile story has
    // taken 45 s of the 8 it takes alone.
    test.setTimeout(90_000);
    await open(page, `/${s.kind}`);
    const d = page.getByTestId(`${s.kind}-demo`);
    await expect(d.getByTestId(s.value)).toHaveAttribute('data-value', s.values[0]);
    await press(d, s, s.values[1]);
    await press(d, s, s.values[2]);
    const marks = d.locator('[data-testid="timeline-mark"][data-kind="action"]');
    await expect(marks).toHaveCount(2);
    const first = await marks.first().getAttribute('data-at');
    if (s.event) {
      // The demo marks what it does on its own: here, converging.
      await expect(d.locator('[data-testid="timeline-mark"][data-kind="event"]').last()).toHaveAttribute('title', s.event);
    }

    // Back to the first mark: the demo as it was just after that action.
    await backTo(page, d, first!);
    await expect(timeline(d)).toHaveAttribute('data-mode', 'past');
    await expect(d.getByTestId(s.value)).toHaveAttribute('data-value', s.values[1]);
    await expect(d).toHaveAttribute('data-past', 'true');
    await expect(d.getByTestId(s.press)).toBeDisabled();
    await expect(d.getByTestId('step')).toBeDisabled();
    await expect(d.getByTestId('timeline-panel')).toContainText(/過去|past/);

    // Back to now. The frame brings the present's range ending where it
    // starts (the page runs its end on with the clock): it ends at the
    // clock before anything is drawn, as the frame's handlers finish.
    await page.evaluate(() => {
      const w = window as unknown as { ranges: number[][] };
      w.ranges = [];
      document.addEventListener('htmx:wsAfterMessage', () => {
        const t = document.querySelector<HTMLInputElement>('[data-testid="timeline"]')!;
        if (t.dataset.mode === 'live') w.ranges.push([+t.min, +t.max, +t.value]);
      });
    });
    await d.getByTestId('timeline-live').click();
    await expect(timeline(d)).toHaveAttribute('data-mode', 'live');
    const [min, max, value] = await page.evaluate(() => (window as unknown as { ranges: number[][] }).ranges[0]);
    expect(max > min && value === max, `the range back at now: min ${min}, max ${max}, value ${value}`).toBe(true);
    await expect(d.getByTestId(s.value)).toHaveAttribute('data-value', s.values[2]);
    await expect(d).not.toHaveAttribute('data-past', 'true');

    // A link to the first mark's moment.
    await backTo(page, d, first!);
    const share = d.getByTestId('share-moment');
    await expect(share).toHaveAttribute('data-value', new RegExp(`[?&]at=${first}(&|$)`));
    const link = (await share.getAttribute('data-value'))!;
    const embed = (await share.getAttribute('data-embed'))!;
    expect(link.startsWith('http') && embed.includes(`/embed/${s.kind}?`), `${link} / ${embed}`).toBe(true);

    // Continue from there: the later action is dropped.
    await d.getByTestId('timeline-continue').click();
    await expect(timeline(d)).toHaveAttribute('data-mode', 'live');
    await expect(d.getByTestId(s.value)).toHaveAttribute('data-value', s.values[1]);
    await expect(marks).toHaveCount(1);
    await expect(d.getByTestId(s.press)).toBeEnabled();

    // The link, in another browser and as an embed: the same moment, paused.
    for (const url of [link, embed]) {
      const ctx = await browser.newContext();
      const other = await ctx.newPage();
      await open(other, url.replace(/^https?:\/\/[^/]+/, ''));
      const o = other.getByTestId(`${s.kind}-demo`);
      await expect(o.getByTestId(s.value)).toHaveAttribute('data-value', s.values[1]);
      await expect(o.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
      await ctx.close();
    }

    // A corrupted link: a plain 4xx page, never a 500.
    errors.allow(/status of 400/);
    const bad = link.replace(/moment=([A-Za-z0-9_-]{8})/, (_, p) => 'moment=' + p.split('').reverse().join(''));
    const res = await page.goto(bad.replace(/^https?:\/\/[^/]+/, ''));
    expect(res!.status(), bad).toBeGreaterThanOrEqual(400);
    expect(res!.status(), bad).toBeLessThan(500);
  });
}

// A focused range is not moved under the reader's hand, so it can stand
// at a moment long past while the demo goes on (the shortcuts act with the
// focus on it). ← then goes from now: to the newest mark, not to the
// start over every mark made since the focus; a second ← before the
// answer goes on from the first.
test('reconcile: ← from a focused range of the present goes to the newest mark', async ({ page }) => {
  await open(page, '/reconcile');
  const d = page.getByTestId('reconcile-demo');
  await timeline(d).focus();
  const stood = await timeline(d).getAttribute('data-value');
  for (const want of ['4', '5']) {
    await page.keyboard.press('+');
    await expect(d.getByTestId('desired')).toHaveAttribute('data-value', want);
  }
  // The demo's own mark for converging is the last it makes.
  await expect(d.locator('[data-testid="timeline-mark"][data-kind="event"]').last()).toHaveAttribute('title', /一致: 5/);
  const at = (await d.getByTestId('timeline-mark').evaluateAll((ms) => ms.map((m) => Number(m.dataset.at))))
    .sort((a, b) => a - b).map(String);
  expect(at.length, `marks ${at}`).toBeGreaterThanOrEqual(3);
  await expect(timeline(d), 'the focused range stayed where it stood').toHaveAttribute('data-value', stood!);
  await expect(timeline(d)).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(timeline(d)).toHaveAttribute('data-mode', 'past');
  await expect(timeline(d)).toHaveAttribute('data-value', at[at.length - 1]);
  await expect(d.getByTestId('desired')).toHaveAttribute('data-value', '5');

  // Back to now, and two presses at once: the newest mark, then the one before.
  await d.getByTestId('timeline-live').click();
  await expect(timeline(d)).toHaveAttribute('data-mode', 'live');
  await timeline(d).focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(timeline(d)).toHaveAttribute('data-value', at[at.length - 2]);
  await expect(timeline(d)).toHaveAttribute('data-mode', 'past');
});
