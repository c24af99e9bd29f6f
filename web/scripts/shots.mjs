// Takes the screenshots we look at before calling a page done:
// desktop, projector (1920×1080, ?mode=present), a 360 px phone and an
// iframe. Usage: node scripts/shots.mjs [baseURL] [outDir]
import { chromium } from '@playwright/test';
import fs from 'node:fs';

const base = process.argv[2] || 'http://127.0.0.1:8080';
const out = process.argv[3] || 'screenshots';
fs.mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const shots = [
  { name: 'desktop-reconcile', path: '/reconcile', viewport: { width: 1366, height: 900 }, full: true },
  { name: 'desktop-operator', path: '/operator', viewport: { width: 1366, height: 900 }, full: true },
  { name: 'desktop-both', path: '/', viewport: { width: 1440, height: 900 }, full: true },
  { name: 'projector-reconcile', path: '/reconcile?mode=present', viewport: { width: 1920, height: 1080 } },
  { name: 'projector-operator', path: '/operator?mode=present', viewport: { width: 1920, height: 1080 } },
  { name: 'phone-reconcile', path: '/reconcile', viewport: { width: 360, height: 740 }, full: true },
  { name: 'phone-operator-en', path: '/operator?lang=en', viewport: { width: 360, height: 740 }, full: true },
  { name: 'desktop-reconcile-en', path: '/reconcile?lang=en', viewport: { width: 1366, height: 900 }, full: true },
];
for (const s of shots) {
  const page = await browser.newPage({ viewport: s.viewport });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(base + s.path);
  await page.locator('[data-testid="connection"][data-state="open"]').first().waitFor();
  if (s.path.startsWith('/operator') || s.path === '/') {
    const op = page.getByTestId('operator-demo');
    for (let i = 0; i < 2; i++) await op.getByTestId('step').click();
  }
  if (!s.path.startsWith('/operator')) {
    const rc = page.getByTestId('reconcile-demo');
    await rc.locator('[data-testid="pod"][data-phase="Running"]').nth(2).waitFor();
    await rc.getByTestId('kill').first().click();
    await rc.locator('[data-testid="pod"][data-phase="Failed"]').first().waitFor();
  }
  await page.screenshot({ path: `${out}/${s.name}.png`, fullPage: !!s.full });
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  console.log(s.name, 'scrollWidth', sw, 'viewport', s.viewport.width, errors.length ? 'ERRORS ' + errors.join(' | ') : '');
  await page.close();
}
// iframe from another origin (127.0.0.1 vs localhost)
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
const frameURL = base.replace('127.0.0.1', 'localhost') + '/embed/reconcile';
await page.setContent(`<!doctype html><html><body style="font-family:sans-serif;background:#eee;margin:0;padding:20px">
<h1>Chapter page</h1><p>Some text of the chapter above the demo.</p>
<iframe id="f" src="${frameURL}" style="width:100%;border:0;height:400px" title="demo"></iframe>
<script>addEventListener('message',e=>{if(e.data&&e.data.type==='reconcile-demo:resize')document.getElementById('f').style.height=e.data.height+'px'})</script>
</body></html>`);
const f = page.frameLocator('#f');
await f.locator('[data-testid="connection"][data-state="open"]').waitFor();
await f.locator('[data-testid="pod"][data-phase="Running"]').nth(2).waitFor();
await page.waitForTimeout(500);
await page.screenshot({ path: `${out}/iframe-reconcile.png`, fullPage: true });
console.log('iframe done');
await browser.close();
