// The chapter site embeds each demo in an iframe from another origin: the
// embed routes have no site chrome, may be framed by anyone (CSP
// frame-ancestors), work inside the frame, and tell the parent their
// height with postMessage.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, open, pod, podsIn, waitConverged, members, stepOperatorToReady, fast, type Page } from './fixtures';

// The chapter page: another origin (localhost:<its port> vs the demo's
// 127.0.0.1:8181), which records the resize messages it receives and
// sizes its iframe from them, as the chapter site does.
let parent: http.Server;
let parentURL = '';

function parentPage(src: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapter</title>
<link rel="icon" href="data:,"></head>
<body style="margin:0;padding:16px;font-family:sans-serif">
<h1>A chapter page</h1><p>Text of the chapter above the demo.</p>
<iframe id="demo" title="demo" src="${src}" style="width:900px;height:300px;border:0"></iframe>
<script>
window.resizes = [];
addEventListener('message', function (e) {
  if (!e.data || e.data.type !== 'reconcile-demo:resize') return;
  window.resizes.push({ origin: e.origin, height: e.data.height });
  document.getElementById('demo').style.height = e.data.height + 'px';
});
</script></body></html>`;
}

test.beforeAll(async () => {
  parent = http.createServer((req, res) => {
    const u = new URL(req.url || '/', 'http://x');
    const src = u.searchParams.get('src') || '';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(parentPage(src));
  });
  await new Promise<void>((r) => parent.listen(0, '127.0.0.1', r));
  parentURL = `http://localhost:${(parent.address() as AddressInfo).port}/`;
});

test.afterAll(async () => {
  await new Promise((r) => parent.close(r));
});

type Resize = { origin: string; height: number };
const resizes = (page: Page) => page.evaluate(() => (window as unknown as { resizes: Resize[] }).resizes);

test.describe('embed routes', () => {
  for (const kind of ['reconcile', 'operator'] as const) {
    test(`/embed/${kind} has the demo and no site chrome`, async ({ page }) => {
      await open(page, `/embed/${kind}`);
      await expect(page.locator('body')).toHaveClass(/\bembed\b/);
      await expect(page.getByTestId(`${kind}-demo`)).toBeVisible();
      await expect(page.locator('header.site-head')).toHaveCount(0);
      await expect(page.locator('footer.site-foot')).toHaveCount(0);
      await expect(page.getByTestId('lang-switch')).toHaveCount(0);
      await expect(page.getByTestId('present-switch')).toHaveCount(0);
      await expect(page.locator('[data-demo]')).toHaveCount(1);
    });
  }

  test('CSP: embed routes may be framed by any site, other pages only by themselves', async ({ request }) => {
    for (const path of ['/embed/reconcile', '/embed/operator']) {
      const res = await request.get(path);
      expect(res.status()).toBe(200);
      const h = res.headers();
      expect(h['content-security-policy'], path).toMatch(/frame-ancestors \*(;|$)/);
      expect(h['x-frame-options'], `${path} must not send X-Frame-Options`).toBeUndefined();
    }
    for (const path of ['/', '/reconcile', '/operator']) {
      const res = await request.get(path);
      const h = res.headers();
      expect(h['content-security-policy'], path).toContain("frame-ancestors 'self'");
      expect(h['content-security-policy'], path).not.toMatch(/frame-ancestors \*/);
    }
  });

  test('the reconcile demo works in a cross-origin iframe and sizes it', async ({ page, baseURL }) => {
    const src = `${baseURL}/embed/reconcile`;
    await page.goto(`${parentURL}?src=${encodeURIComponent(src)}`);
    expect(new URL(page.url()).origin).not.toBe(new URL(src).origin);
    const frame = page.frameLocator('#demo');
    const rc = frame.getByTestId('reconcile-demo');
    await expect(rc.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await fast(rc);
    await waitConverged(rc);

    // Kill and recover, inside the frame.
    await pod(rc, 'pod-1').getByTestId('kill').click();
    await expect(pod(rc, 'pod-4')).toHaveAttribute('data-phase', 'Running');
    await waitConverged(rc);
    await expect(pod(rc, 'pod-1')).toHaveCount(0);

    // The parent hears the frame's height, from the frame's origin.
    await expect.poll(async () => (await resizes(page)).length).toBeGreaterThan(0);
    const first = await resizes(page);
    expect(first.every((m) => m.origin === new URL(src).origin)).toBe(true);
    expect(first.every((m) => Number.isInteger(m.height) && m.height > 0)).toBe(true);
    const h1 = first[first.length - 1].height;
    await expect(page.locator('#demo')).toHaveCSS('height', `${h1}px`);

    // More content, a taller frame: 10 replicas.
    await rc.getByTestId('replicas-input').fill('10');
    await expect(rc.getByTestId('desired')).toHaveAttribute('data-value', '10');
    await waitConverged(rc, 10);
    await expect.poll(async () => {
      const r = await resizes(page);
      return r[r.length - 1].height;
    }, { message: 'the frame reports a taller height' }).toBeGreaterThan(h1);
    const h2 = (await resizes(page)).at(-1)!.height;
    // The frame's document fits the height it asked for: no inner scroll.
    await expect.poll(() => frame.locator('html').evaluate((el) => el.scrollHeight)).toBeLessThanOrEqual(h2 + 1);

    // And back down: the height shrinks again.
    await rc.getByTestId('replicas-input').fill('1');
    await waitConverged(rc, 1);
    await expect.poll(async () => (await resizes(page)).at(-1)!.height).toBeLessThan(h2);
    await expect(podsIn(rc, 'Failed')).toHaveCount(0);
  });

  test('the operator demo works in a cross-origin iframe', async ({ page, baseURL }) => {
    const src = `${baseURL}/embed/operator`;
    await page.goto(`${parentURL}?src=${encodeURIComponent(src)}`);
    const frame = page.frameLocator('#demo');
    const op = frame.getByTestId('operator-demo');
    await expect(op.getByTestId('connection')).toHaveAttribute('data-state', 'open');
    await expect.poll(async () => (await resizes(page)).length).toBeGreaterThan(0);
    const h0 = (await resizes(page)).at(-1)!.height;
    await fast(op);
    await stepOperatorToReady(op);
    await expect(members(op)).toHaveCount(3);
    // Members appeared: the frame grew.
    await expect.poll(async () => (await resizes(page)).at(-1)!.height).toBeGreaterThan(h0);
  });
});
