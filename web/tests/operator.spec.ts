// Chapter 002's Operator: the controller starts off, and each press of
// 「1回調整する」 fills exactly one difference, in the chapter's order —
// restore, create the members one by one, wait for them, elect a leader,
// Ready. Killing the leader is just another difference; a missing backup
// stops it at Degraded.
import { test, expect, open, opDemo, member, members, stepOperatorToReady, fast, type Locator } from './fixtures';

const ready = (op: Locator) => op.locator('[data-testid="member"][data-ready="true"]');
const leaders = (op: Locator) => op.locator('[data-testid="member"][data-leader="true"]');
const condition = (op: Locator, type: string) => op.locator(`[data-testid="condition"][data-type="${type}"]`);

test.describe('operator demo', () => {
  test('each step does one move: restore → create ×3 → wait → elect → Ready', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    const phase = op.getByTestId('status-phase');
    const next = op.getByTestId('next');
    const step = op.getByTestId('step');
    const lastAction = op.getByTestId('last-action');

    // The starting point: declared, nothing done, controller off.
    await expect(op.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await expect(phase).toHaveAttribute('data-value', 'Pending');
    await expect(members(op)).toHaveCount(0);
    await expect(op.getByTestId('spec-members')).toHaveAttribute('data-value', '3');
    await expect(op.getByTestId('spec-restore-from')).toHaveAttribute('data-value', 'backup-07-28');
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'true');
    await expect(op.getByTestId('status-restored')).toHaveAttribute('data-value', 'false');
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', '');
    await expect(op.getByTestId('condition')).toHaveCount(3);
    for (const t of ['Ready', 'Progressing', 'Degraded']) {
      await expect(condition(op, t)).toHaveAttribute('data-status', 'Unknown');
    }
    await expect(next).toHaveAttribute('data-value', 'restore');
    // Time passes; with the controller off nothing moves.
    await expect.poll(async () => Number(await op.getByTestId('clock').getAttribute('data-value')))
      .toBeGreaterThanOrEqual(2000);
    await expect(phase).toHaveAttribute('data-value', 'Pending');
    await expect(next).toHaveAttribute('data-value', 'restore');

    // Pause virtual time, so the members stay "starting" until we resume
    // and the 'wait' move can be seen.
    await op.getByTestId('pause').click();
    await expect(op.getByTestId('clock')).toHaveAttribute('data-paused', 'true');

    // ① restore
    await step.click();
    await expect(op.getByTestId('status-restored')).toHaveAttribute('data-value', 'true');
    await expect(phase).toHaveAttribute('data-value', 'Restoring');
    await expect(lastAction).toHaveAttribute('data-value', 'restore');
    await expect(lastAction).toHaveAttribute('data-target', 'backup-07-28');
    await expect(members(op)).toHaveCount(0);
    await expect(condition(op, 'Progressing')).toHaveAttribute('data-status', 'True');
    await expect(condition(op, 'Ready')).toHaveAttribute('data-status', 'False');

    // ② one member per press
    for (const [i, name] of ['db-1', 'db-2', 'db-3'].entries()) {
      await expect(next).toHaveAttribute('data-value', 'create');
      await step.click();
      await expect(members(op)).toHaveCount(i + 1);
      await expect(member(op, name)).toHaveAttribute('data-ready', 'false');
      await expect(lastAction).toHaveAttribute('data-value', 'create');
      await expect(lastAction).toHaveAttribute('data-target', name);
      await expect(phase).toHaveAttribute('data-value', 'Creating');
    }
    expect(await members(op).evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))))
      .toEqual(['db-1', 'db-2', 'db-3']);

    // ③ not every member is up: a press changes nothing but says so.
    await expect(next).toHaveAttribute('data-value', 'wait');
    await step.click();
    await expect(lastAction).toHaveAttribute('data-value', 'noop');
    await expect(op.locator('[data-testid="log"] li[data-kind="op-wait"]')).toHaveCount(1);
    await expect(members(op)).toHaveCount(3);
    await expect(phase).toHaveAttribute('data-value', 'Creating');
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', '');

    // Resume: members become ready 1.5 s of virtual time after creation.
    await op.getByTestId('pause').click();
    await expect(op.getByTestId('clock')).toHaveAttribute('data-paused', 'false');
    await expect(ready(op)).toHaveCount(3);
    await expect(next).toHaveAttribute('data-value', 'elect');

    // ④ elect
    await step.click();
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-1');
    await expect(leaders(op)).toHaveCount(1);
    await expect(member(op, 'db-1')).toHaveAttribute('data-leader', 'true');
    await expect(lastAction).toHaveAttribute('data-value', 'elect');
    await expect(phase).toHaveAttribute('data-value', 'Creating');
    await expect(op.getByTestId('status-members')).toHaveAttribute('data-value', '3');

    // ⑤ nothing left: Ready
    await expect(next).toHaveAttribute('data-value', 'noop');
    await step.click();
    await expect(phase).toHaveAttribute('data-value', 'Ready');
    await expect(condition(op, 'Ready')).toHaveAttribute('data-status', 'True');
    await expect(condition(op, 'Progressing')).toHaveAttribute('data-status', 'False');
    await expect(condition(op, 'Degraded')).toHaveAttribute('data-status', 'False');
    await expect(op.locator('[data-testid="log"] li[data-kind="op-ready"]')).toHaveCount(1);

    // A further press: idempotent, nothing changes.
    await step.click();
    await expect(op.locator('[data-testid="log"] li[data-kind="op-noop"]')).toHaveCount(1);
    await expect(phase).toHaveAttribute('data-value', 'Ready');
    await expect(members(op)).toHaveCount(3);
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-1');
  });

  test('killing the leader: the next reconciles create a replacement and elect another', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    const phase = op.getByTestId('status-phase');
    const next = op.getByTestId('next');
    await fast(op);
    await stepOperatorToReady(op);

    await member(op, 'db-1').getByTestId('kill-member').click();
    await expect(member(op, 'db-1')).toHaveCount(0);
    await expect(members(op)).toHaveCount(2);
    // The Status still names the old leader until a reconcile looks.
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-1');
    await expect(leaders(op)).toHaveCount(0);

    // The same loop, no failure handling: too few members → create one …
    await expect(next).toHaveAttribute('data-value', 'create');
    await op.getByTestId('step').click();
    await expect(member(op, 'db-4')).toHaveCount(1);
    await expect(phase).toHaveAttribute('data-value', 'Creating');
    // … wait for it …
    await expect(member(op, 'db-4')).toHaveAttribute('data-ready', 'true');
    // … the leader is gone → elect another.
    await expect(next).toHaveAttribute('data-value', 'elect');
    await op.getByTestId('step').click();
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-2');
    await expect(member(op, 'db-2')).toHaveAttribute('data-leader', 'true');
    await expect(leaders(op)).toHaveCount(1);
    await expect(op.locator('[data-testid="log"] li[data-kind="op-leader-lost"]')).toContainText('db-1');
    await expect(next).toHaveAttribute('data-value', 'noop');
    await op.getByTestId('step').click();
    await expect(phase).toHaveAttribute('data-value', 'Ready');
    expect(await members(op).evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))))
      .toEqual(['db-2', 'db-3', 'db-4']);
  });

  test('with the controller on, a killed leader heals by itself', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    await fast(op);
    await stepOperatorToReady(op);
    await op.getByTestId('controller-toggle').click();
    await expect(op.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'true');

    await member(op, 'db-1').getByTestId('kill-member').click();
    await expect(op.getByTestId('status-leader')).toHaveAttribute('data-value', 'db-2');
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Ready');
    await expect(ready(op)).toHaveCount(3);
    await expect(member(op, 'db-4')).toHaveAttribute('data-ready', 'true');
  });

  test('a missing backup stops a fresh demo at Degraded; present again, it finishes', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    const phase = op.getByTestId('status-phase');
    const next = op.getByTestId('next');
    await fast(op);

    await op.getByTestId('backup-toggle').click();
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'false');
    await expect(next).toHaveAttribute('data-value', 'degraded');
    await op.getByTestId('step').click();
    await expect(phase).toHaveAttribute('data-value', 'Degraded');
    await expect(members(op)).toHaveCount(0);
    await expect(op.getByTestId('status-restored')).toHaveAttribute('data-value', 'false');
    await expect(condition(op, 'Degraded')).toHaveAttribute('data-status', 'True');
    await expect(condition(op, 'Degraded')).toHaveAttribute('data-reason', 'BackupNotFound');
    await expect(condition(op, 'Ready')).toHaveAttribute('data-status', 'False');
    // Pressing again does not get any further.
    await op.getByTestId('step').click();
    await expect(op.locator('[data-testid="log"] li[data-kind="op-no-backup"]')).toHaveCount(2);
    await expect(phase).toHaveAttribute('data-value', 'Degraded');
    await expect(members(op)).toHaveCount(0);

    await op.getByTestId('backup-toggle').click();
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'true');
    await expect(next).toHaveAttribute('data-value', 'restore');
    await stepOperatorToReady(op);
    await expect(condition(op, 'Degraded')).toHaveAttribute('data-status', 'False');
  });

  test('after reset with the backup missing, steps give Degraded and no members', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    const phase = op.getByTestId('status-phase');
    await fast(op);
    await stepOperatorToReady(op);

    // Once restored, the backup is not needed any more …
    await op.getByTestId('backup-toggle').click();
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'false');
    await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'noop');
    // … but a reset recreates the resource from its Spec, and the restore
    // is a difference again.
    await op.getByTestId('reset').click();
    await expect(phase).toHaveAttribute('data-value', 'Pending');
    await expect(members(op)).toHaveCount(0);
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'false');
    await expect(op.getByTestId('controller-toggle')).toHaveAttribute('aria-pressed', 'false');
    await expect(op.locator('[data-testid="log"] li[data-kind="reset"]')).toHaveCount(1);
    await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'degraded');
    await op.getByTestId('step').click();
    await expect(phase).toHaveAttribute('data-value', 'Degraded');
    await op.getByTestId('step').click();
    await expect(op.locator('[data-testid="log"] li[data-kind="op-no-backup"]')).toHaveCount(2);
    await expect(members(op)).toHaveCount(0);

    await op.getByTestId('backup-toggle').click();
    await expect(op.getByTestId('backup')).toHaveAttribute('data-present', 'true');
    await stepOperatorToReady(op);
  });

  test('members +/− change the Spec; the Status follows on the next reconciles', async ({ page }) => {
    await open(page, '/operator');
    const op = opDemo(page);
    await fast(op);
    await stepOperatorToReady(op);
    await op.getByTestId('members-inc').click();
    await expect(op.getByTestId('spec-members')).toHaveAttribute('data-value', '4');
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Ready');
    await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'create');
    await op.getByTestId('step').click();
    await expect(member(op, 'db-4')).toHaveAttribute('data-ready', 'true');
    await expect(op.getByTestId('next')).toHaveAttribute('data-value', 'noop');
    await op.getByTestId('step').click();
    await expect(op.getByTestId('status-phase')).toHaveAttribute('data-value', 'Ready');
    await expect(op.getByTestId('status-members')).toHaveAttribute('data-value', '4');
  });
});
