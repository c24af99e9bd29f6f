// Rooms: a teacher opens a room from a demo; students follow it live on
// their own devices (one reads English), cannot act on it, fork it into a
// demo of their own, and are told when the room ends. (The same across two
// servers joined by NATS is server/room_test.go's TestRoomAcrossReplicas.)
import { test, expect, open, rcDemo, waitConverged, freePort, startServer, stopServers, type Page } from './fixtures';

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
