// Screenshots for humans to look at (web/screenshots/, git-ignored): a
// desktop, a projector, a phone and an iframe in a chapter page. Not
// assertions about pixels; the states they show are waited for, and the
// console must stay clean as everywhere else.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test, expect, open, rcDemo, opDemo, pod, waitConverged, members, speedButton, type Page } from './fixtures';

const DIR = path.resolve(__dirname, '..', 'screenshots');

/** A telling state: the reconcile demo with a Failed pod about to be
 *  replaced (controller off, so it holds still), the operator demo
 *  half-way (restored, members starting). */
async function stage(page: Page) {
  const rc = rcDemo(page);
  const op = opDemo(page);
  if (await rc.count()) {
    await speedButton(rc, '2').click();
    await waitConverged(rc);
    await speedButton(rc, '1').click();
    await expect(rc.getByTestId('speed')).toHaveAttribute('data-value', '1');
    await rc.getByTestId('controller-toggle').click();
    await expect(rc.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await pod(rc, 'pod-2').getByTestId('kill').click();
    await expect(pod(rc, 'pod-2')).toHaveAttribute('data-phase', 'Failed');
  }
  if (await op.count()) {
    for (let i = 1; i <= 3; i++) {
      await op.getByTestId('step').click();
      await expect(op.getByTestId('log').locator('li[data-kind^="op-"]')).toHaveCount(i);
    }
    await expect(members(op)).toHaveCount(2);
  }
}

const SHOTS = [
  { name: 'desktop-both', path: '/', viewport: { width: 1366, height: 900 }, fullPage: true },
  { name: 'desktop-reconcile', path: '/reconcile', viewport: { width: 1366, height: 900 }, fullPage: true },
  { name: 'desktop-operator', path: '/operator', viewport: { width: 1366, height: 900 }, fullPage: true },
  { name: 'desktop-reconcile-en', path: '/reconcile?lang=en', viewport: { width: 1366, height: 900 }, fullPage: true },
  { name: 'projector-reconcile', path: '/reconcile?mode=present', viewport: { width: 1920, height: 1080 }, fullPage: false },
  { name: 'projector-operator', path: '/operator?mode=present', viewport: { width: 1920, height: 1080 }, fullPage: false },
  { name: 'phone-reconcile', path: '/reconcile', viewport: { width: 360, height: 740 }, fullPage: true },
  { name: 'phone-operator-en', path: '/operator?lang=en', viewport: { width: 360, height: 740 }, fullPage: true },
  // A teacher's projector with a room open: its code and QR code over the demo.
  { name: 'projector-reconcile-room', path: '/reconcile?mode=present', viewport: { width: 1920, height: 1080 }, fullPage: false, room: true },
];

test.describe('screenshots', { tag: '@screenshot' }, () => {
  for (const s of SHOTS) {
    test(s.name, async ({ page }) => {
      await page.setViewportSize(s.viewport);
      await open(page, s.path);
      await stage(page);
      if (s.room) {
        await rcDemo(page).getByTestId('room-open').click();
        await expect(rcDemo(page).getByTestId('room-qr')).toBeVisible();
        // Its stylesheet comes with the room: the panel is laid out by it.
        await expect(rcDemo(page).getByTestId('room')).toHaveCSS('display', /grid|flex/);
      }
      await page.screenshot({ path: path.join(DIR, `${s.name}.png`), fullPage: s.fullPage, animations: 'disabled' });
    });
  }

  test('iframe-reconcile', async ({ page, baseURL }) => {
    // The chapter page on another origin, sizing its frame from the
    // frame's resize messages.
    const src = `${baseURL}/embed/reconcile`;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>章</title><link rel="icon" href="data:,"></head>
<body style="font-family:sans-serif;background:#eee;margin:0;padding:20px">
<h1>調整ループ(reconciliation)</h1><p>下のデモは、目標レプリカ数と実際の Pod を並べて、調整ループが差を埋める様子を見る。</p>
<iframe id="f" src="${src}" title="demo" style="width:100%;border:0;height:400px"></iframe>
<p>(デモの下に章の続き)</p>
<script>window.heights=[];addEventListener('message',e=>{if(e.data&&e.data.type==='reconcile-demo:resize'){heights.push(e.data.height);document.getElementById('f').style.height=e.data.height+'px'}})</script>
</body></html>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await page.setViewportSize({ width: 1100, height: 900 });
      await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/`);
      const rc = page.frameLocator('#f').getByTestId('reconcile-demo');
      await expect(rc.getByTestId('connection')).toHaveAttribute('data-state', 'open');
      await waitConverged(rc);
      // Wait until the frame has the height it last asked for.
      await expect.poll(() => page.evaluate(() => {
        const h = (window as unknown as { heights: number[] }).heights;
        return h.length > 0 && document.getElementById('f')!.getBoundingClientRect().height === h[h.length - 1];
      })).toBe(true);
      // Chromium paints a cross-origin frame only where the viewport is: a
      // full-page capture showed the demo cut at the first screen's end.
      // The viewport is the page's height instead.
      await page.setViewportSize({ width: 1100, height: await page.evaluate(() => document.documentElement.scrollHeight) });
      await expect(rc.getByTestId('timeline')).toBeInViewport();
      await page.screenshot({ path: path.join(DIR, 'iframe-reconcile.png'), animations: 'disabled' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
