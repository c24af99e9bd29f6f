// Rooms: a teacher opens a room from a demo; students follow it live on
// their own devices (one reads English), cannot act on it, fork it into a
// demo of their own, and are told when the room ends. The same across two
// servers joined by NATS is server/room_test.go's TestRoomAcrossReplicas;
// the faults (NATS down, a replica killed, a restart, wrong secrets) are
// server/roomfault_test.go's, and the last test here kills the teacher's
// replica behind a proxy with Chromium pages on both.
import { test, expect, open, rcDemo, waitConverged, freePort, startServer, startLab, stopServers, type Page } from './fixtures';

test.afterAll(stopServers);

async function follower(page: Page, url: string) {
  await page.goto(url);
  const rc = rcDemo(page);
  await expect(rc).toHaveAttribute('data-role', 'follower');
  await expect(rc.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  return rc;
}

test('a class follows the teacher, cannot act, forks, and is told when the room ends', async ({ page, browser, errors }) => {
  test.setTimeout(60_000);
  await open(page, '/reconcile');
  const teacher = rcDemo(page);
  await waitConverged(teacher);
  const sid = await teacher.getAttribute('data-sid');

  await teacher.getByTestId('room-open').click();
  const code = teacher.getByTestId('room-code');
  await expect(code).toHaveAttribute('data-value', /^[2-9A-Z]{6}$/);
  const roomCode = (await code.getAttribute('data-value'))!;
  const url = await teacher.getByTestId('room-url').getAttribute('href');
  expect(url).toMatch(new RegExp(`/room/${roomCode}$`));
  await expect(teacher.getByTestId('room-qr')).toBeVisible();
  const qr = await teacher.getByTestId('room-qr').boundingBox();
  expect(qr!.width, 'the QR code is large enough to scan').toBeGreaterThanOrEqual(200);
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '0');
  // The panel folds its QR code away (it floats over the demo on the
  // projector), and stays folded while frames redraw it (below).
  const fold = teacher.locator('[data-room-fold]');
  await fold.click();
  await expect(fold).toHaveAttribute('aria-expanded', 'false');
  await expect(teacher.getByTestId('room-qr')).toBeHidden();

  // Two students, on their own devices; one reads English.
  const ctxA = await browser.newContext();
  const ctxB = await browser.newContext();
  errors.watchContext(ctxA);
  errors.watchContext(ctxB);
  const pageA = await ctxA.newPage();
  const pageB = await ctxB.newPage();
  const ja = await follower(pageA, url!);
  const en = await follower(pageB, `${url}?lang=en`);
  await expect(pageA.getByTestId('room-banner')).toContainText(roomCode);
  await expect(pageB.locator('html')).toHaveAttribute('lang', 'en');
  await expect(en.getByTestId('desired')).toHaveAttribute('data-value', '3');
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '2');
  await expect(teacher.getByTestId('room-qr'), 'the panel stays folded as it is redrawn').toBeHidden();
  await fold.click();
  await expect(fold).toHaveAttribute('aria-expanded', 'true');
  await expect(teacher.getByTestId('room-qr')).toBeVisible();
  for (const p of [pageA, pageB]) {
    expect(await p.content(), 'the teacher\'s session id reaches no follower').not.toContain(sid!);
  }

  // The teacher acts: both follow it as it happens.
  await teacher.getByTestId('replicas-inc').click();
  await teacher.getByTestId('replicas-inc').click();
  await expect(teacher.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(ja.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(en.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(en.locator('[data-testid="pod"]')).toHaveCount(5);

  // Students cannot act: the buttons are off, and what a page sends anyway
  // is refused by the server.
  await expect(en.getByTestId('replicas-inc')).toBeDisabled();
  await expect(en.getByTestId('step')).toBeDisabled();
  await pageB.evaluate(() => {
    const b = document.querySelector('[data-testid="replicas-dec"]') as HTMLButtonElement;
    b.disabled = false;
    b.click();
  });
  await expect(en.getByTestId('error')).toHaveAttribute('data-value', 'true');
  await expect(teacher.getByTestId('desired')).toHaveAttribute('data-value', '5');

  // One forks: a demo of their own, from the room's state, alone.
  await pageB.getByTestId('fork').click();
  await pageB.waitForURL(/\/reconcile\?lang=en$/);
  const mine = rcDemo(pageB);
  await expect(mine).toHaveAttribute('data-role', 'owner');
  await expect(mine.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  await expect(mine.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await mine.getByTestId('replicas-dec').click();
  await mine.getByTestId('replicas-dec').click();
  await expect(mine.getByTestId('desired')).toHaveAttribute('data-value', '3');
  await expect(teacher.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(ja.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '1');

  // The room ends: the remaining follower is told, and may still fork.
  await teacher.getByTestId('room-close').click();
  await expect(pageA.getByTestId('room-ended')).toBeVisible();
  await expect(pageA.getByTestId('room-banner')).toHaveAttribute('data-ended', 'true');
  await expect(ja.getByTestId('connection')).toHaveAttribute('data-state', 'closed');
  await expect(teacher.getByTestId('room-code')).toHaveCount(0);
  await pageA.getByTestId('fork').click();
  await pageA.waitForURL(/\/reconcile$/);
  await expect(rcDemo(pageA).getByTestId('desired')).toHaveAttribute('data-value', '5');
  await ctxA.close();
  await ctxB.close();
});

test('a room code that does not exist says so', async ({ page, errors }) => {
  errors.allow(/status of 404 \(Not Found\)/); // the page itself answers 404, as it should
  const res = await page.goto('/room/XXXXXX');
  expect(res?.status()).toBe(404);
  await expect(page.locator('h1')).toBeVisible();
});

test('a student who finds the room full is told so, and gets in when a place frees', async ({ page, browser, errors }) => {
  test.setTimeout(60_000);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await startServer(port, { ROOM_MAX_FOLLOWERS: '1' });
  await page.goto(`${base}/reconcile`);
  const teacher = rcDemo(page);
  await waitConverged(teacher);
  await teacher.getByTestId('room-open').click();
  await expect(teacher.getByTestId('room-code')).toHaveAttribute('data-value', /^[2-9A-Z]{6}$/);
  const url = base + (await teacher.getByTestId('room-url').getAttribute('href'))!.replace(/^https?:\/\/[^/]+/, '');

  const ctxA = await browser.newContext();
  const ctxB = await browser.newContext();
  errors.watchContext(ctxA);
  errors.watchContext(ctxB);
  const first = await follower(await ctxA.newPage(), url);
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '1');

  // The second finds it full: the server closes with 1013, and the page
  // says why it waits rather than only "disconnected".
  const pageB = await ctxB.newPage();
  await pageB.goto(url);
  const second = rcDemo(pageB);
  const conn = second.getByTestId('connection');
  await expect(conn).toHaveAttribute('data-state', 'full');
  await expect(conn).toContainText('満員');
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '1');

  // The first leaves; the second's retries get it in.
  await expect(first.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  await ctxA.close();
  await expect(conn).toHaveAttribute('data-state', 'open', { timeout: 30_000 });
  await expect(second.getByTestId('desired')).toHaveAttribute('data-value', '3');
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '1');
  await ctxB.close();
});

test('the teacher\'s replica is killed: the page comes back on the other one with its room, and the class keeps following', async ({ page, browser, errors }) => {
  test.setTimeout(60_000);
  // The killed replica drops its sockets without a close frame: Chromium
  // reports the broken connection and htmx-ext-ws its wsError event.
  errors.allow(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws\?.*' failed/);
  errors.allow(/^console\.error: (Event|\[object Event\]|JSHandle@object)/);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Announces every second and re-syncs every quarter second, so that the
  // story takes seconds; the 30 s grace is the default.
  await startLab(port, { ROOM_ANNOUNCE: '1s', ROOM_RETRY: '250ms' });
  const onReplica = async (name: 'a' | 'b') => {
    const ctx = await browser.newContext();
    await ctx.addCookies([{ name: 'replica', value: name, url: base }]);
    errors.watchContext(ctx);
    return ctx;
  };

  // The teacher and a student on replica a, another student on replica b.
  await page.context().addCookies([{ name: 'replica', value: 'a', url: base }]);
  await page.goto(`${base}/reconcile`);
  const teacher = rcDemo(page);
  await expect(teacher.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  const sid = await teacher.getAttribute('data-sid');
  await teacher.getByTestId('room-open').click();
  const code = (await teacher.getByTestId('room-code').getAttribute('data-value'))!;
  expect(code).toMatch(/^[2-9A-Z]{6}$/);
  const url = `${base}/room/${code}`;
  const [ctxA, ctxB] = [await onReplica('a'), await onReplica('b')];
  const [pageA, pageB] = [await ctxA.newPage(), await ctxB.newPage()];
  const onA = await follower(pageA, url);
  const onB = await follower(pageB, `${url}?lang=en`);
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '2');
  await teacher.getByTestId('replicas-inc').click();
  for (const d of [teacher, onA, onB]) await expect(d.getByTestId('desired')).toHaveAttribute('data-value', '4');
  // The page keeps its room with its snapshot: the code and the owner
  // secret, which no follower's page holds.
  const keptRoom = () => page.evaluate((k) => JSON.parse(sessionStorage.getItem(k) || 'null'), `room:${sid}`);
  await expect.poll(keptRoom).toMatchObject({ code, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  const { secret } = await keptRoom();
  for (const p of [pageA, pageB]) expect(await p.content(), 'the owner secret reaches no follower').not.toContain(secret);

  // Replica a dies, with no goodbye.
  const closes = async (p: Page) => p.evaluate(() => (window as any).__closes as number);
  for (const p of [page, pageA]) {
    await p.evaluate(() => {
      (window as any).__closes = 0;
      document.addEventListener('htmx:wsClose', () => { (window as any).__closes++; });
    });
  }
  const killed = Date.now();
  expect((await fetch(`${base}/_lab/kill?replica=a`, { method: 'POST' })).status).toBe(200);

  // The teacher's page reconnects through the proxy to replica b and takes
  // its room back under the same code; both students keep following.
  await expect.poll(() => closes(page), { message: 'the teacher\'s socket broke' }).toBeGreaterThan(0);
  await expect.poll(() => closes(pageA), { message: 'the student\'s socket on a broke' }).toBeGreaterThan(0);
  await expect(teacher.getByTestId('connection')).toHaveAttribute('data-state', 'open');
  await expect(teacher.getByTestId('room-code')).toHaveAttribute('data-value', code, { timeout: 20_000 });
  await expect(teacher.getByTestId('desired')).toHaveAttribute('data-value', '4');
  await teacher.getByTestId('replicas-inc').click();
  await expect(teacher.getByTestId('desired')).toHaveAttribute('data-value', '5');
  await expect(onB.getByTestId('desired')).toHaveAttribute('data-value', '5', { timeout: 20_000 });
  await expect(onA.getByTestId('desired')).toHaveAttribute('data-value', '5', { timeout: 20_000 });
  await expect(teacher.getByTestId('room-followers')).toHaveAttribute('data-value', '2', { timeout: 45_000 - (Date.now() - killed) });
  for (const p of [pageA, pageB]) {
    await expect(p.getByTestId('room-banner')).toHaveAttribute('data-ended', 'false');
    expect(await p.content(), 'the teacher\'s session id reaches no follower').not.toContain(sid!);
  }
  await ctxA.close();
  await ctxB.close();
});
