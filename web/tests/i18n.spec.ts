// Japanese by default (the chapters are Japanese); ?lang=en gives a page
// with no Japanese left in it, whatever the visitor does; the language
// switch keeps the choice (and the projector mode) in the URL.
import {
  test, expect, open, rcDemo, opDemo, pod, waitConverged, members, fast, JAPANESE, type Page,
} from './fixtures';

const ROUTES = ['/', '/reconcile', '/operator', '/embed/reconcile', '/embed/operator'];

/** Plays a little of every demo on the page, so that the log, the last
 *  reconcile, the live region and the conditions all have text. */
async function play(page: Page) {
  const rc = rcDemo(page);
  const op = opDemo(page);
  if (await rc.count()) {
    await fast(rc);
    await waitConverged(rc);
    await rc.getByTestId('controller-toggle').click();
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await pod(rc, 'pod-1').getByTestId('kill').click();
    await expect(pod(rc, 'pod-1')).toHaveAttribute('data-phase', 'Failed');
    await expect(rc.getByTestId('diff')).toHaveAttribute('data-converged', 'false');
  }
  if (await op.count()) {
    await op.getByTestId('step').click();
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Restoring');
    await op.getByTestId('step').click();
    await expect(members(op)).toHaveCount(1);
    await op.getByTestId('backup-toggle').click();
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'false');
  }
}

async function playMore(page: Page) {
  const rc = rcDemo(page);
  const op = opDemo(page);
  if (await rc.count()) {
    await rc.getByTestId('step').click();
    await expect(rc.getByTestId('action')).toHaveCount(2);
    await rc.getByTestId('pause').click();
    await expect(rc.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
  }
  if (await op.count()) {
    await op.getByTestId('reset').click();
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Pending');
    await op.getByTestId('step').click();
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Degraded');
  }
}

async function expectNoJapanese(page: Page, when: string) {
  const text = await page.evaluate(() => document.body.innerText);
  const hits = text.split('\n').filter((l) => JAPANESE.test(l));
  expect(hits, `Japanese text on ${page.url()} ${when}`).toEqual([]);
  // What assistive technology reads besides the text: labels and titles.
  const attrs = await page.evaluate((src) => {
    const ja = new RegExp(src);
    const out: string[] = [];
    const names = ['aria-label', 'title', 'alt', 'placeholder', 'aria-valuetext', 'aria-description'];
    document.querySelectorAll('*').forEach((el) => {
      for (const n of names) {
        const v = el.getAttribute(n);
        if (v && ja.test(v)) out.push(`<${el.tagName.toLowerCase()} ${n}="${v}">`);
      }
    });
    out.push(...(ja.test(document.title) ? [`<title>${document.title}`] : []));
    return out;
  }, JAPANESE.source);
  expect(attrs, `Japanese labels on ${page.url()} ${when}`).toEqual([]);
}

test.describe('languages', () => {
  test('Japanese by default', async ({ page }) => {
    await open(page, '/reconcile');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    const rc = rcDemo(page);
    await expect(rc.getByTestId('diff')).toContainText(/差あり: 調整が必要|差あり|一致/);
    await waitConverged(rc);
    await expect(rc.getByTestId('diff')).toContainText('一致');
    await pod(rc, 'pod-2').getByTestId('kill').click();
    await expect(rc.getByTestId('diff')).toContainText(/差あり: 調整が必要|一致/);
    await expect(page.getByTestId('lang-switch')).toHaveText('English');
    await expect(page.getByTestId('lang-switch')).toHaveAttribute('hreflang', 'en');
  });

  for (const route of ROUTES) {
    test(`?lang=en on ${route}: no Japanese anywhere, even after actions`, async ({ page }) => {
      await open(page, `${route}?lang=en`);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en');
      await expectNoJapanese(page, 'on load');
      await play(page);
      await expectNoJapanese(page, 'after kill and steps');
      await playMore(page);
      await expectNoJapanese(page, 'after more steps, reset and pause');
      if (await rcDemo(page).count()) {
        await expect(rcDemo(page).getByTestId('diff')).toContainText(/In sync|Out of sync/);
      }
      // The help dialog, open.
      await page.keyboard.press('?');
      await expect(page.getByTestId('help')).toBeVisible();
      await expectNoJapanese(page, 'with the help dialog open');
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('help')).toBeHidden();
      if (!route.startsWith('/embed')) {
        // The switch to Japanese speaks the page's language too.
        const sw = page.getByTestId('lang-switch');
        await expect(sw).toHaveText('Japanese');
        await expect(sw).toHaveAttribute('hreflang', 'ja');
      }
    });
  }

  test('the language switch keeps the choice in the URL and carries ?mode=present', async ({ page }) => {
    await open(page, '/reconcile?mode=present');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await expect(page.locator('body')).toHaveClass(/\bpresent\b/);

    await page.getByTestId('lang-switch').click();
    await page.waitForURL((u) => u.searchParams.get('lang') === 'en');
    let url = new URL(page.url());
    expect(url.pathname).toBe('/reconcile');
    expect(url.searchParams.get('mode')).toBe('present');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(page.locator('body')).toHaveClass(/\bpresent\b/);
    await expect(page.getByTestId('reconcile-demo').getByTestId('connection')).toHaveAttribute('data-state', 'open');

    // The choice stays in every link of the page.
    for (const href of await page.locator('.site-nav a').evaluateAll((els) => els.map((e) => e.getAttribute('href') || ''))) {
      const u = new URL(href, page.url());
      expect(u.searchParams.get('lang'), href).toBe('en');
      expect(u.searchParams.get('mode'), href).toBe('present');
    }
    await page.locator('.site-nav a[href^="/operator"]').click();
    await page.waitForURL((u) => u.pathname === '/operator');
    url = new URL(page.url());
    expect(url.searchParams.get('lang')).toBe('en');
    expect(url.searchParams.get('mode')).toBe('present');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect(opDemo(page).getByTestId('connection')).toHaveAttribute('data-state', 'open');

    // And back to Japanese, still presenting.
    await page.getByTestId('lang-switch').click();
    await page.waitForURL((u) => u.searchParams.get('lang') !== 'en');
    url = new URL(page.url());
    expect(url.pathname).toBe('/operator');
    expect(url.searchParams.get('mode')).toBe('present');
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await expect(opDemo(page).getByTestId('connection')).toHaveAttribute('data-state', 'open');
  });
});

// ---------------------------------------------------------------- the chapters' words, the notes

/** The notes each demo shows where it simplifies real Kubernetes, by topic
 *  (each demo's README lists them; demotest.Notes checks the same lists). */
const NOTES: Record<string, string[]> = {
  reconcile: ['failed-pods', 'scale-down', 'resync'],
  triggers: ['relist', 'quota', 'resync', 'delivery', 'failed-pods'],
  operator: ['crd', 'world', 'scale-down', 'one-move', 'watch'],
};

/** Spellings the chapters do not use (wordstest.ChapterWords keeps them
 *  out of the catalogs): コントローラー, ガベージコレクター, ファイナライザー,
 *  レートリミッター and サーバー with their ー, and 立ち退き, not 退避. */
const VARIANT = /コントローラ(?!ー)|ガベージコレクタ(?!ー)|ファイナライザ(?!ー)|レートリミッタ(?!ー)|サーバ(?!ー)|退避/g;

test.describe("the notes and the chapters' words", () => {
  for (const [kind, topics] of Object.entries(NOTES)) {
    test(`${kind}: each note once, in the demo, from the first load, in both languages and on the projector`, async ({ page }) => {
      for (const variant of ['', '?lang=en', '?mode=present']) {
        await open(page, `/${kind}${variant}`);
        const root = page.getByTestId(`${kind}-demo`);
        // No action yet: what the first load shows.
        const onPage = await page.getByTestId('note').evaluateAll((els) => els.map((e) => e.getAttribute('data-topic')));
        expect(onPage.sort(), `${kind}${variant}: the notes on the page`).toEqual([...topics].sort());
        for (const topic of topics) {
          const note = root.locator(`[data-testid="note"][data-topic="${topic}"]`);
          await expect(note, `${kind}${variant}: ${topic}`).toHaveCount(1);
          await expect(note, `${kind}${variant}: ${topic}`).toBeVisible();
          await expect(note).toHaveClass(/\breal\b/);
          const text = (await note.textContent()) || '';
          expect(text.length, `${topic} says something`).toBeGreaterThan(20);
          expect(JAPANESE.test(text), `${topic} in ${variant.includes('en') ? 'English' : 'Japanese'}: ${text}`)
            .toBe(!variant.includes('lang=en'));
        }
      }
    });
  }

  test('the Failed-pod notes say what a real ReplicaSet does', async ({ page }) => {
    for (const kind of ['reconcile', 'triggers']) {
      await open(page, `/${kind}`);
      const note = page.getByTestId(`${kind}-demo`).locator('[data-testid="note"][data-topic="failed-pods"]');
      await expect(note).toContainText('ReplicaSet');
      await expect(note).toContainText('ガベージコレクター');
      await open(page, `/${kind}?lang=en`);
      await expect(note).toContainText('garbage collector');
    }
  });

  test("the pages write the chapters' words: コントローラー, サーバー", async ({ page }) => {
    await open(page, '/reconcile');
    const rc = rcDemo(page);
    await waitConverged(rc);
    await expect(rc.getByTestId('controller-toggle')).toContainText('コントローラー');
    await expect(rc.getByTestId('actions')).toBeVisible();
    await expect(rc.locator('.trigger')).toHaveText('コントローラー');
    await expect(page.locator('.site-foot')).toContainText('サーバー上の');
    for (const path of ['/reconcile', '/triggers', '/operator']) {
      if (path !== '/reconcile') await open(page, path);
      // Every word on the page, hidden ones (the help dialog, the
      // connection's other states) and what assistive technology reads
      // included.
      const words = await page.evaluate(() => [document.title, document.body.textContent || '',
        ...Array.from(document.querySelectorAll('*')).flatMap((e) => Array.from(e.attributes)
          .filter((a) => a.name.startsWith('aria-') || a.name === 'title' || a.name.startsWith('data-text-'))
          .map((a) => a.value))].join('\n'));
      expect(words.match(VARIANT) ?? [], `${path}: spellings the chapters do not use`).toEqual([]);
    }
  });
});
