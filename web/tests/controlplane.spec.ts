// Chapter 004's control plane. The guided apply steps through the
// chapter's sequence diagram one message at a time ("1/11 POST Deployment",
// 「Deployment: 無し → 作成要求」); then the cluster runs live and tells the
// chapter's stories: nobody calls anybody, a stopped scheduler leaves new
// pods Pending with no node, a silent node goes Unknown and its pods are
// replaced elsewhere, a stopped controller-manager repairs nothing.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { test, expect, open, waitOpen, speedButton, fast, clockMs, waitClock, JAPANESE, freePort, startServer, stopServers, type Server, type Locator, type Page } from './fixtures';

const DIR = path.resolve(__dirname, '..', 'screenshots');

// ---------------------------------------------------------------- helpers

const cpDemo = (page: Page) => page.getByTestId('controlplane-demo');
const messages = (cp: Locator) => cp.getByTestId('sequence').getByTestId('message');
const pods = (cp: Locator) => cp.getByTestId('pod');
const podsIn = (cp: Locator, phase: string) => cp.locator(`[data-testid="pod"][data-phase="${phase}"]`);
const unplaced = (cp: Locator) => cp.locator('[data-testid="pod"][data-node=""]');
const nodeCard = (cp: Locator, name: string) => cp.locator(`[data-testid="node"][data-name="${name}"]`);
const component = (cp: Locator, name: string) => cp.locator(`[data-testid="component"][data-name="${name}"]`);
const preset = (cp: Locator, name: string) => cp.locator(`[data-testid="preset"][data-name="${name}"]`);

/** The guide's eleven messages, as the chapter's diagram draws them. */
const GUIDE = [
  { from: 'kubectl', to: 'apiserver', kind: 'write', label: 'POST Deployment', caption: 'Deployment: 無し → 作成要求' },
  { from: 'apiserver', to: 'deployment-controller', kind: 'watch', label: 'ADDED Deployment', caption: 'ReplicaSet: 無し → 差分あり' },
  { from: 'deployment-controller', to: 'apiserver', kind: 'write', label: 'POST ReplicaSet', caption: 'ReplicaSet: 無し → 作成' },
  { from: 'apiserver', to: 'replicaset-controller', kind: 'watch', label: 'ADDED ReplicaSet', caption: 'Pod: 無し → 差分あり' },
  { from: 'replicaset-controller', to: 'apiserver', kind: 'write', label: 'POST Pod ×3', caption: 'Pod: 無し → Pending(nodeName 空)' },
  { from: 'apiserver', to: 'scheduler', kind: 'watch', label: 'ADDED Pod ×3 nodeName=""', caption: 'nodeName 空 → scheduler が検知' },
  { from: 'scheduler', to: 'apiserver', kind: 'write', label: 'POST Binding ×3', caption: 'nodeName 空 → ノード決定' },
  { from: 'apiserver', to: 'kubelet', kind: 'watch', label: 'ADDED Pod ×3', caption: 'ノード決定 → kubelet が検知' },
  { from: 'kubelet', to: 'containerd', kind: 'cri', label: 'RunPodSandbox + PullImage ×3', caption: 'コンテナ: 無し → 準備(サンドボックスとイメージ)' },
  { from: 'kubelet', to: 'containerd', kind: 'cri', label: 'CreateContainer + StartContainer ×3', caption: 'コンテナ: 準備 → 起動' },
  { from: 'kubelet', to: 'apiserver', kind: 'write', label: 'PATCH Pod status ×3', caption: 'Pod: Pending → Running' },
];

/** The guide's n-th message on the diagram. Live, the status roll-up the
 *  eleventh sets off follows it, so it is found by its step, not its place. */
const guideMessage = (cp: Locator, n: number) => cp.locator(`[data-testid="message"][data-step="${n}"]`);

/** Presses Next once and waits for the n-th message. */
async function next(cp: Locator, n: number) {
  await cp.getByTestId('guided-next').click();
  await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', String(n));
  if (n < 11) await expect(messages(cp)).toHaveCount(n);
  else await expect(guideMessage(cp, n)).toHaveCount(1);
}

async function finishGuide(cp: Locator) {
  await cp.getByTestId('guided-finish').click();
  await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '11');
  await expect(podsIn(cp, 'Running')).toHaveCount(3);
}

async function setReplicas(cp: Locator, n: number) {
  for (;;) {
    const v = Number(await cp.getByTestId('desired').getAttribute('data-value'));
    if (v === n) return;
    await cp.getByTestId(v < n ? 'replicas-inc' : 'replicas-dec').click();
    await expect(cp.getByTestId('desired')).toHaveAttribute('data-value', String(v < n ? v + 1 : v - 1));
  }
}

/** Every message has the apiserver at one end, or is a CRI call. */
async function nobodyCallsAnybody(cp: Locator) {
  const ends = await messages(cp).evaluateAll((els) => els.map((e) =>
    [e.getAttribute('data-from'), e.getAttribute('data-to'), e.getAttribute('data-kind')]));
  for (const [from, to, kind] of ends) {
    const ok = (kind === 'write' && to === 'apiserver') || (kind === 'watch' && from === 'apiserver') ||
      (kind === 'cri' && from === 'kubelet' && to === 'containerd');
    expect(ok, `${from} → ${to} (${kind})`).toBe(true);
  }
}

/** The nodes pods are on, by name. */
async function placement(cp: Locator): Promise<Record<string, string>> {
  const list = await pods(cp).evaluateAll((els) => els.map((e) => [e.getAttribute('data-name') || '', e.getAttribute('data-node') || '']));
  return Object.fromEntries(list);
}

// ---------------------------------------------------------------- the guide

test.describe('controlplane: the guided apply', () => {
  test('eleven messages, one per Next, with their arrows and captions; Back undoes one', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    const step = cp.getByTestId('guided-step');
    const caption = cp.getByTestId('caption');

    // The starting state: an empty cluster, the apply unsent, time still.
    await expect(step).toHaveAttribute('data-value', '0');
    await expect(step).toHaveAttribute('data-total', '11');
    await expect(messages(cp)).toHaveCount(0);
    await expect(pods(cp)).toHaveCount(0);
    await expect(cp.getByTestId('message-next')).toHaveAttribute('data-from', 'kubectl');
    await expect(cp.getByTestId('guided-back')).toBeDisabled();
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    await expect(cp.getByTestId('replicas-inc')).toBeDisabled();
    await expect(cp.getByTestId('skip')).toBeDisabled();
    await expect(cp.getByTestId('node-toggle').first()).toBeDisabled();

    for (const [i, m] of GUIDE.entries()) {
      const n = i + 1;
      await next(cp, n);
      const last = guideMessage(cp, n);
      await expect(last).toHaveAttribute('data-from', m.from);
      await expect(last).toHaveAttribute('data-to', m.to);
      await expect(last).toHaveAttribute('data-kind', m.kind);
      // Live, the status roll-up may already follow the eleventh.
      if (n < 11) await expect(last).toHaveAttribute('data-new', 'true');
      // The guide's bar stays on the chapter's message through the roll-up.
      await expect(step).toContainText(`${n}/11`);
      await expect(step).toContainText(m.label);
      await expect(caption).toContainText(m.caption);
      await expect(cp.locator('[data-testid="message"][data-new="true"]')).toHaveCount(1);
      if (n === 1) {
        // The chapter's own words for its first step.
        await expect(step).toHaveText(/1\s*\/\s*11\s*POST Deployment/);
        await expect(cp.getByTestId('desired')).toHaveAttribute('data-value', '3');
      }
      if (n === 3) {
        // Back undoes one message, Next sends it again.
        await cp.getByTestId('guided-back').click();
        await expect(step).toHaveAttribute('data-value', '2');
        await expect(messages(cp)).toHaveCount(2);
        await expect(caption).toContainText(GUIDE[1].caption);
        await next(cp, 3);
      }
      if (n === 5) {
        // Three Pod objects, nodeName empty: nobody has placed them.
        await expect(unplaced(cp)).toHaveCount(3);
        await expect(podsIn(cp, 'Pending')).toHaveCount(3);
        await expect(cp.getByTestId('unscheduled')).toHaveAttribute('data-value', '3');
      }
      if (n === 7) await expect(unplaced(cp)).toHaveCount(0);
      // Time stands still during the guide.
      if (n < 11) await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    }
    await nobodyCallsAnybody(cp);
    // Three pods Running, one on each node; the cluster is live.
    await expect(podsIn(cp, 'Running')).toHaveCount(3);
    for (const n of ['node-1', 'node-2', 'node-3']) {
      await expect(nodeCard(cp, n).getByTestId('pod')).toHaveCount(1);
    }
    await expect(cp.getByTestId('guided-next')).toBeDisabled();
    await expect(cp.getByTestId('guided-back')).toBeDisabled();
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'false');
    const t0 = await clockMs(cp);
    await waitClock(cp, t0 + 500);
    await expect(cp.getByTestId('replicas-inc')).toBeEnabled();
    // Converged: nothing is due, the skip button says so.
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false');
    await expect(cp.getByTestId('skip')).toBeDisabled();
  });

  test('the runtime switch: 1.23 sends the kubelet\'s CRI calls through dockershim and dockerd, the same image', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    const toggle = cp.getByTestId('runtime-toggle');
    for (let n = 1; n <= 8; n++) await next(cp, n);
    await expect(toggle).toHaveAttribute('data-value', 'containerd');
    await toggle.click();
    await expect(toggle).toHaveAttribute('data-value', 'dockershim');
    await expect(cp.getByTestId('runtime')).toHaveAttribute('data-value', 'dockershim');
    await expect(cp.locator('[data-runtime="dockershim"]')).toHaveAttribute('data-active', 'true');
    await next(cp, 9);
    const call = messages(cp).nth(8);
    await expect(call).toHaveAttribute('data-kind', 'cri');
    await expect(call).toHaveAttribute('data-via', 'dockershim,dockerd');
    await expect(call).toHaveAttribute('data-image', 'nginx:1.29.0');
    // Back to 1.24: the same call, direct; the same image.
    await cp.getByTestId('guided-back').click();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '8');
    await toggle.click();
    await expect(toggle).toHaveAttribute('data-value', 'containerd');
    await next(cp, 9);
    await expect(messages(cp).nth(8)).toHaveAttribute('data-via', '');
    await expect(messages(cp).nth(8)).toHaveAttribute('data-image', 'nginx:1.29.0');
  });
});

// ---------------------------------------------------------------- live

test.describe('controlplane: the live cluster', () => {
  test('scheduler stopped: new pods wait Pending with no node; started, they are placed', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    const toggle = component(cp, 'scheduler').getByTestId('component-toggle');
    await toggle.click();
    await expect(component(cp, 'scheduler')).toHaveAttribute('data-running', 'false');
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await setReplicas(cp, 5);
    // The ReplicaSet controller makes them anyway; nobody gives them a node.
    await expect(pods(cp)).toHaveCount(5);
    await expect(unplaced(cp)).toHaveCount(2);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false');
    const t = await clockMs(cp);
    await waitClock(cp, t + 2000);
    await expect(unplaced(cp)).toHaveCount(2);
    await expect(podsIn(cp, 'Pending')).toHaveCount(2);
    await nobodyCallsAnybody(cp);

    await toggle.click();
    await expect(component(cp, 'scheduler')).toHaveAttribute('data-running', 'true');
    await expect(unplaced(cp)).toHaveCount(0);
    await expect(podsIn(cp, 'Running')).toHaveCount(5);
    await expect(cp.locator('[data-testid="message"][data-from="scheduler"][data-kind="write"]').last()).toHaveAttribute('data-objects', '2');
  });

  test('node stopped: Unknown, then its pods are replaced on the other nodes and stay Terminating', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    await fast(cp);
    await setReplicas(cp, 5);
    await expect(podsIn(cp, 'Running')).toHaveCount(5);
    const before = await placement(cp);
    const doomed = Object.keys(before).filter((p) => before[p] === 'node-1');
    expect(doomed.length).toBeGreaterThan(0);

    const node1 = nodeCard(cp, 'node-1');
    await node1.getByTestId('node-toggle').click();
    await expect(node1).toHaveAttribute('data-running', 'false');
    await expect(node1.getByTestId('node-toggle')).toHaveAttribute('aria-pressed', 'false');
    // Heartbeats stop; nothing is seen until the grace period ends.
    await expect(node1).toHaveAttribute('data-ready', 'True');
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'node-unknown');
    await cp.getByTestId('skip').click();
    await expect(node1).toHaveAttribute('data-ready', 'Unknown');
    await expect(node1).toHaveAttribute('data-tainted', 'true');
    await expect(cp.locator('[data-testid="message"][data-from="node-lifecycle-controller"]').first()).toBeAttached();
    // Five minutes later the pods are evicted.
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
    await cp.getByTestId('skip').click();
    for (const p of doomed) {
      await expect(cp.locator(`[data-testid="pod"][data-name="${p}"]`)).toHaveAttribute('data-phase', 'Terminating');
    }
    await expect(podsIn(cp, 'Running')).toHaveCount(5);
    const after = await placement(cp);
    const running = await podsIn(cp, 'Running').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')));
    expect(running.every((n) => n === 'node-2' || n === 'node-3')).toBe(true);
    expect(Object.keys(after).length).toBe(5 + doomed.length);
    await nobodyCallsAnybody(cp);
    // The dead node's pods stay Terminating: nobody there confirms.
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false');

    // Back, its kubelet stops the containers and confirms the deletions.
    await node1.getByTestId('node-toggle').click();
    await expect(node1).toHaveAttribute('data-ready', 'True');
    await expect(podsIn(cp, 'Terminating')).toHaveCount(0);
    await expect(node1).toHaveAttribute('data-tainted', 'false');
  });

  test('controller-manager stopped: a killed pod is not replaced and a dead node stays Ready; started, both resolve', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    const cm = component(cp, 'controller-manager');
    await cm.getByTestId('component-toggle').click();
    await expect(cm).toHaveAttribute('data-running', 'false');

    const victim = nodeCard(cp, 'node-1').getByTestId('pod').first();
    const name = await victim.getAttribute('data-name');
    await victim.getByTestId('kill').click();
    await expect(cp.locator(`[data-testid="pod"][data-name="${name}"]`)).toHaveCount(0);
    const node3 = nodeCard(cp, 'node-3');
    await node3.getByTestId('node-toggle').click();
    await expect(node3).toHaveAttribute('data-running', 'false');
    // Nobody notices: nothing is due, the pod is not replaced, node-3 stays Ready.
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false');
    await fast(cp);
    const t = await clockMs(cp);
    await waitClock(cp, t + 4000);
    await expect(pods(cp)).toHaveCount(2);
    await expect(node3).toHaveAttribute('data-ready', 'True');

    await cm.getByTestId('component-toggle').click();
    await expect(cm).toHaveAttribute('data-running', 'true');
    await expect(podsIn(cp, 'Running')).toHaveCount(3);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'node-unknown');
    await cp.getByTestId('skip').click();
    await expect(node3).toHaveAttribute('data-ready', 'Unknown');
  });

  test('kill, replicas 0–10, pause, step and speed', async ({ page }) => {
    // Twenty applies, and ten pods made in slow-start batches: more than the
    // default 30 s on a busy machine.
    test.setTimeout(60_000);
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    await fast(cp);
    // Kill: the ReplicaSet controller makes another, with a new name.
    const first = pods(cp).first();
    const old = await first.getAttribute('data-name');
    await first.getByTestId('kill').click();
    await expect(cp.locator(`[data-testid="pod"][data-name="${old}"]`)).toHaveCount(0);
    await expect(podsIn(cp, 'Running')).toHaveCount(3);
    // Ten at most: 4 per node, 10 in all.
    await setReplicas(cp, 10);
    await expect(podsIn(cp, 'Running')).toHaveCount(10);
    await expect(cp.getByTestId('replicas-inc')).toBeDisabled();
    for (const n of ['node-1', 'node-2', 'node-3']) {
      expect(Number(await nodeCard(cp, n).getAttribute('data-pods'))).toBeLessThanOrEqual(4);
    }
    await setReplicas(cp, 0);
    await expect(pods(cp)).toHaveCount(0);
    await expect(cp.getByTestId('replicas-dec')).toBeDisabled();
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false');

    // Pause: time stops and the apply waits; step delivers one message.
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('pause')).toHaveAttribute('aria-pressed', 'true');
    await cp.getByTestId('replicas-inc').click();
    await expect(cp.getByTestId('desired')).toHaveAttribute('data-value', '1');
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'true');
    const seq = async () => Number(await messages(cp).last().getAttribute('data-seq'));
    const s0 = await seq();
    await cp.getByTestId('step').click();
    await expect.poll(seq).toBe(s0 + 1);
    await expect(messages(cp).last()).toHaveAttribute('data-from', 'kubectl');
    await expect(pods(cp)).toHaveCount(0);
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('pause')).toHaveAttribute('aria-pressed', 'false');
    await expect(podsIn(cp, 'Running')).toHaveCount(1);
    await speedButton(cp, '0.5').click();
    await expect(cp.getByTestId('speed')).toHaveAttribute('data-value', '0.5');
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-speed', '0.5');
  });

  test('the quiz: each question set up in one click, straight from the guide', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await preset(cp, 'scheduler-outage').click();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '11');
    await expect(component(cp, 'scheduler')).toHaveAttribute('data-running', 'false');
    await expect(cp.locator('[data-testid="quiz"][data-name="scheduler-outage"]')).toHaveAttribute('data-active', 'true');
    await expect(unplaced(cp)).toHaveCount(2);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'scheduler-restart');
    await cp.getByTestId('skip').click(); // the minute is over
    await expect(component(cp, 'scheduler')).toHaveAttribute('data-running', 'true');
    await expect(unplaced(cp)).toHaveCount(0);
    await expect(podsIn(cp, 'Running')).toHaveCount(5);

    await preset(cp, 'node-outage').click();
    await expect(cp.locator('[data-testid="quiz"][data-name="node-outage"]')).toHaveAttribute('data-active', 'true');
    const down = cp.locator('[data-testid="node"][data-running="false"]');
    await expect(down).toHaveCount(1);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'node-unknown');
    await cp.getByTestId('skip').click();
    await expect(down).toHaveAttribute('data-ready', 'Unknown');
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
    await cp.getByTestId('skip').click();
    await expect(down.getByTestId('pod').first()).toHaveAttribute('data-phase', 'Terminating');
    await expect(podsIn(cp, 'Running')).toHaveCount(5);
  });

  test('reset brings the guide back, the clock going on from where it was; a refused action shows an error and changes nothing', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    await waitClock(cp, 1000);
    const before = await clockMs(cp);
    await cp.getByTestId('reset').click();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '0');
    await expect(pods(cp)).toHaveCount(0);
    // The timeline's time never goes back: the guide starts again there,
    // its clock stopped.
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    const after = await clockMs(cp);
    expect(after).toBeGreaterThanOrEqual(before);
    await cp.getByTestId('guided-next').click();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '1');
    await expect.poll(() => clockMs(cp)).toBeGreaterThan(after);
    await cp.getByTestId('guided-back').click();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '0');
    // The skip button is disabled during the guide; the server refuses it too.
    await page.evaluate(() => {
      const b = document.querySelector('[data-testid="skip"]') as HTMLButtonElement;
      b.disabled = false;
      b.click();
    });
    await expect(cp.getByTestId('error')).toHaveAttribute('data-value', 'true');
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '0');
    await expect.poll(() => clockMs(cp)).toBeGreaterThan(after);
    await next(cp, 1);
    await expect(cp.getByTestId('error')).toHaveAttribute('data-value', '');
  });

  test('keyboard: s sends the next message, c stops the controller-manager, + and - scale', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await page.keyboard.press('s');
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '1');
    await cp.getByTestId('guided-finish').click();
    await expect(podsIn(cp, 'Running')).toHaveCount(3);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('+');
    await expect(cp.getByTestId('desired')).toHaveAttribute('data-value', '4');
    await page.keyboard.press('-');
    await expect(cp.getByTestId('desired')).toHaveAttribute('data-value', '3');
    await page.keyboard.press('c');
    await expect(component(cp, 'controller-manager')).toHaveAttribute('data-running', 'false');
  });
});

// ---------------------------------------------------------------- issue #19

/** The notes' topics, in the page's order (README: "Where it simplifies"). */
const NOTES = ['slow-start', 'heartbeat', 'informer', 'eviction', 'binding', 'scheduler', 'pod-lifecycle', 'deadline',
  'version', 'runtime'];

test.describe('controlplane: what a real cluster does (issue #19)', () => {
  test('an Unknown node gets both taints; its pods keep their podIPs, turn Ready=False and go when their 300 s toleration ends', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    // The roll-up kubectl wait watches: readyReplicas on the ReplicaSet, then
    // the Deployment.
    const ready = (what: string) => cp.getByTestId(what).getByTestId('ready-replicas');
    await expect(ready('replicaset')).toHaveAttribute('data-value', '3');
    await expect(ready('deployment')).toHaveAttribute('data-value', '3');
    // Each pod has an IP from its node's podCIDR, none shared, and is Ready.
    const ipsOf = () => podsIn(cp, 'Running').evaluateAll((els) => els.map((e) =>
      ({ node: e.getAttribute('data-node') || '', ip: e.getAttribute('data-ip') || '', ready: e.getAttribute('data-ready') })));
    const before = await ipsOf();
    expect(before).toHaveLength(3);
    for (const p of before) {
      expect(p.ip).toMatch(new RegExp(`^10\\.244\\.${p.node.slice(-1)}\\.\\d+$`));
      expect(p.ready).toBe('True');
      await expect(nodeCard(cp, p.node)).toHaveAttribute('data-pod-cidr', `10.244.${p.node.slice(-1)}.0/24`);
    }
    expect(new Set(before.map((p) => p.ip)).size).toBe(3);

    await preset(cp, 'node-outage').click();
    const down = cp.locator('[data-testid="node"][data-running="false"]');
    await expect(down).toHaveCount(1);
    await expect(down.getByTestId('taint')).toHaveCount(0);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'node-unknown');
    await cp.getByTestId('skip').click();
    await expect(down).toHaveAttribute('data-ready', 'Unknown');
    // Both unreachable taints: NoSchedule keeps new pods off, NoExecute
    // evicts.
    const taints = down.getByTestId('taint');
    await expect(taints).toHaveCount(2);
    expect(await taints.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-key')}:${e.getAttribute('data-effect')}`)))
      .toEqual(['node.kubernetes.io/unreachable:NoSchedule', 'node.kubernetes.io/unreachable:NoExecute']);
    await expect(cp.getByTestId('taint')).toHaveCount(2);
    // The node controller marks its pods not Ready; readyReplicas follows.
    const doomed = down.getByTestId('pod');
    const n = await doomed.count();
    expect(n).toBeGreaterThan(0);
    await expect(down.locator('[data-testid="pod"][data-ready="False"]')).toHaveCount(n);
    await expect(ready('replicaset')).toHaveAttribute('data-value', String(3 - n));
    await expect(ready('deployment')).toHaveAttribute('data-value', String(3 - n));
    // Each pod tolerates NoExecute for 300 s: the card counts down to the
    // first deadline.
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    const deadlines = await doomed.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-evict-at'))));
    const first = Math.min(...deadlines);
    await expect(down.locator('[data-eta]')).toHaveAttribute('data-eta', String(first));
    const wait = first - await clockMs(cp);
    expect(wait).toBeGreaterThan(290_000);
    expect(wait).toBeLessThanOrEqual(300_000);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
    // The eviction is a DELETE that takes time to land: time must run.
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'false');
    await cp.getByTestId('skip').click();
    await expect(down.locator('[data-testid="pod"][data-phase="Terminating"]')).toHaveCount(n);
    // Replaced on the other nodes (NoSchedule keeps them off this one), each
    // with an IP of its own node's.
    await expect(podsIn(cp, 'Running')).toHaveCount(3);
    await expect(ready('deployment')).toHaveAttribute('data-value', '3');
    const downName = await down.getAttribute('data-name');
    for (const p of await ipsOf()) {
      expect(p.node).not.toBe(downName);
      expect(p.ip).toMatch(new RegExp(`^10\\.244\\.${p.node.slice(-1)}\\.\\d+$`));
    }
  });

  test('live, the ReplicaSet controller creates pods in slow-start batches: 1, 2, 4', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-due', 'false'); // the roll-up has landed
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('pause')).toHaveAttribute('aria-pressed', 'true');
    await setReplicas(cp, 10);
    // One message per step: the ReplicaSet controller's POSTs, in order.
    const seq = async () => Number(await messages(cp).last().getAttribute('data-seq'));
    const batches: number[] = [];
    for (let i = 0; i < 30 && batches.reduce((a, b) => a + b, 0) < 7; i++) {
      const s0 = await seq();
      await cp.getByTestId('step').click();
      await expect.poll(seq).toBeGreaterThan(s0);
      const last = messages(cp).last();
      if (await last.getAttribute('data-from') === 'replicaset-controller' && await last.getAttribute('data-verb') === 'POST') {
        batches.push(Number(await last.getAttribute('data-objects')));
      }
    }
    expect(batches).toEqual([1, 2, 4]);
  });

  test('each simplification is stated once, by topic, from the first load (during the guide, and on the projector)', async ({ page }) => {
    for (const path of ['/controlplane', '/controlplane?lang=en&mode=present']) {
      await open(page, path);
      const cp = cpDemo(page);
      const notes = cp.getByTestId('note');
      expect(await notes.evaluateAll((els) => els.map((e) => e.getAttribute('data-topic')))).toEqual(NOTES);
      await expect(page.getByTestId('note')).toHaveCount(NOTES.length);
      for (const topic of NOTES) {
        const note = cp.locator(`[data-testid="note"][data-topic="${topic}"]`);
        if (path.includes('present')) await expect(note).toBeHidden();
        else await expect(note).toBeVisible();
        expect((await note.textContent())?.trim().length).toBeGreaterThan(20);
      }
    }
  });

  test('every control\'s accessible name contains its visible label', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    // WCAG 2.5.3: a control named by aria-label must say its visible text
    // (a lone symbol, − or +, is no text label); the others are named by
    // their content. Checked in the page: axe is too slow here for a story.
    const mismatches = () => cp.locator('button, a, input, select').evaluateAll((els) => els.flatMap((e) => {
      const label = e.getAttribute('aria-label');
      if (label === null) return [];
      const clone = e.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('[aria-hidden="true"], .sr-only').forEach((x) => x.remove());
      const visible = (clone.textContent || '').replace(/\s+/g, ' ').trim();
      if (!/[\p{L}\p{N}]/u.test(visible)) return [];
      return label.toLowerCase().includes(visible.toLowerCase()) ? [] : [`${e.id}: "${label}" does not say "${visible}"`];
    }));
    await next(cp, 1);
    expect(await mismatches()).toEqual([]);
    await liveStory(cp);
    expect(await mismatches()).toEqual([]);
  });
});

// ---------------------------------------------------------------- pages

const axe = async (page: Page) => {
  // As a11y.spec.ts scans (legacy mode, violations only: half the time).
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] })
    .withTags(['wcag2a', 'wcag2aa']).setLegacyMode().analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
};

/** A live state with every part of the page filled: a dead node, pods
 *  pending, a quiz answered. */
async function liveStory(cp: Locator) {
  await preset(cp, 'node-outage').click();
  await expect(cp.locator('[data-testid="node"][data-running="false"]')).toHaveCount(1);
  // The guide's readyReplicas roll-up lands first (under a second).
  await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'node-unknown');
  await cp.getByTestId('skip').click();
  await expect(cp.locator('[data-testid="node"][data-ready="Unknown"]')).toHaveCount(1);
}

test.describe('controlplane: pages', () => {
  // The first load of every route, language and mode is scanned by
  // a11y.spec.ts; here the guide half-way and the live story, once in each
  // language, mode and route.
  for (const [route, variant] of [['/controlplane', ''], ['/controlplane', '?lang=en&mode=present'],
    ['/embed/controlplane', '?lang=en'], ['/embed/controlplane', '?mode=present']]) {
    test(`axe: ${route}${variant}`, async ({ page }) => {
      test.setTimeout(60_000);
      await open(page, route + variant);
      const cp = cpDemo(page);
      for (let n = 1; n <= 5; n++) await next(cp, n);
      expect(await axe(page)).toEqual([]);
      await liveStory(cp);
      expect(await axe(page)).toEqual([]);
    });
  }

  test('the English page has no Japanese, in the guide and live', async ({ page }) => {
    await open(page, '/controlplane?lang=en');
    const cp = cpDemo(page);
    for (let n = 1; n <= 9; n++) await next(cp, n);
    expect(await page.locator('body').innerText()).not.toMatch(JAPANESE);
    await liveStory(cp);
    await preset(cp, 'scheduler-outage').click();
    await expect(unplaced(cp)).not.toHaveCount(0);
    expect(await page.locator('body').innerText()).not.toMatch(JAPANESE);
    expect(await cp.locator('svg title').allTextContents()).not.toContainEqual(expect.stringMatching(JAPANESE));
  });

  test.describe('phone: 360 px', () => {
    test.use({ viewport: { width: 360, height: 800 } });
    for (const lang of ['', '?lang=en']) {
      test(`nothing scrolls sideways${lang}`, async ({ page }) => {
        await open(page, '/controlplane' + lang);
        const cp = cpDemo(page);
        for (let n = 1; n <= 5; n++) await next(cp, n);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
        await liveStory(cp);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
        // The diagram scrolls inside its own box.
        await expect.poll(() => cp.locator('.cp-seq-scroll').evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      });
    }
  });

  test.describe('projector: 1920×1080', () => {
    test.use({ viewport: { width: 1920, height: 1080 } });
    for (const lang of ['', '&lang=en']) {
      test(`the guide and the live story fit one screen, controls 44 px${lang}`, async ({ page }) => {
        await open(page, '/controlplane?mode=present' + lang);
        const cp = cpDemo(page);
        expect(await page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize))).toBeGreaterThanOrEqual(24);
        const fits = async (what: string) => {
          const sh = await page.evaluate(() => document.documentElement.scrollHeight);
          expect(sh, `${what}: scrollHeight`).toBeLessThanOrEqual(1080);
          expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what}: scrollWidth`).toBeLessThanOrEqual(1920);
          const small = await cp.locator('button').evaluateAll((els) => els
            .filter((e) => (e as HTMLElement).offsetParent !== null)
            .map((e) => ({ what: e.id || e.textContent?.trim(), h: e.getBoundingClientRect().height }))
            .filter((b) => b.h < 44));
          expect(small, `${what}: buttons under 44 px`).toEqual([]);
        };
        for (let n = 1; n <= 10; n++) await next(cp, n);
        await fits('guide');
        await cp.getByTestId('guided-finish').click();
        await setReplicas(cp, 6);
        await expect(podsIn(cp, 'Running')).toHaveCount(6);
        await liveStory(cp);
        await fits('live');
      });
    }
  });

  test('embed: auto-height for a chapter page on another origin', async ({ page, baseURL }) => {
    const server = http.createServer((req, res) => {
      const src = new URL(req.url || '/', 'http://x').searchParams.get('src') || '';
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapter 004</title><link rel="icon" href="data:,"></head>
<body style="margin:0;padding:16px"><h1>Chapter 004</h1>
<iframe id="demo" title="demo" src="${src}" style="width:1100px;height:300px;border:0"></iframe>
<script>window.resizes=[];addEventListener('message',function(e){if(!e.data||e.data.type!=='reconcile-demo:resize')return;
window.resizes.push({origin:e.origin,height:e.data.height});document.getElementById('demo').style.height=e.data.height+'px';});</script></body></html>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const src = `${baseURL}/embed/controlplane`;
      await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/?src=${encodeURIComponent(src)}`);
      const frame = page.frameLocator('#demo');
      const cp = frame.getByTestId('controlplane-demo');
      await expect(cp.getByTestId('connection')).toHaveAttribute('data-state', 'open');
      await expect(frame.locator('header.site-head')).toHaveCount(0);
      type Resize = { origin: string; height: number };
      const last = async () => (await page.evaluate(() => (window as unknown as { resizes: Resize[] }).resizes)).at(-1);
      await expect.poll(async () => (await last())?.height ?? 0).toBeGreaterThan(300);
      expect((await last())!.origin).toBe(new URL(src).origin);
      const h0 = (await last())!.height;
      await expect(page.locator('#demo')).toHaveCSS('height', `${h0}px`);
      // A pod in the tray makes the page taller; the frame follows.
      for (let n = 1; n <= 5; n++) await next(cp, n);
      await expect.poll(async () => (await last())!.height).toBeGreaterThan(h0);
      const h1 = (await last())!.height;
      await expect.poll(() => frame.locator('html').evaluate((el) => el.scrollHeight)).toBeLessThanOrEqual(h1 + 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('the demo follows a language switch (its snapshot is carried and restored)', async ({ page }) => {
    await open(page, '/controlplane');
    const cp = cpDemo(page);
    await finishGuide(cp);
    await component(cp, 'scheduler').getByTestId('component-toggle').click();
    await expect(component(cp, 'scheduler')).toHaveAttribute('data-running', 'false');
    await setReplicas(cp, 5);
    await expect(unplaced(cp)).toHaveCount(2);
    const before = await placement(cp);
    const sid = await cp.getAttribute('data-sid');
    await page.getByTestId('lang-switch').click();
    await expect(page).toHaveURL(/lang=en/);
    await waitOpen(page);
    const en = cpDemo(page);
    expect(await en.getAttribute('data-sid')).not.toBe(sid);
    await expect(en.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(1);
    await expect(component(en, 'scheduler')).toHaveAttribute('data-running', 'false');
    await expect(en.getByTestId('desired')).toHaveAttribute('data-value', '5');
    // The page keeps a snapshot at most a second old (the server's
    // snapshot beat): a pod made within that second comes again as the
    // restored, seeded demo plays it, with the same name on the same node.
    await expect.poll(() => placement(en)).toEqual(before);
    await component(en, 'scheduler').getByTestId('component-toggle').click();
    await expect(podsIn(en, 'Running')).toHaveCount(5);
  });
});

// ---------------------------------------------------------------- restart

test.describe('controlplane: restart', () => {
  test.describe.configure({ mode: 'serial' });
  test.afterAll(stopServers);
  test('a restarted server resumes the guide and the live cluster from the page\'s snapshot', async ({ page, errors }) => {
    test.setTimeout(90_000);
    errors.allow(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/ws\?.*' failed/);
    errors.allow(/^console\.error: (Event|\[object Event\]|JSHandle@object)/);
    const port = await freePort();
    const servers: Server[] = [await startServer(port)];
    await page.goto(`http://127.0.0.1:${port}/controlplane`);
    const cp = cpDemo(page);
    await waitOpen(cp);
    for (let n = 1; n <= 6; n++) await next(cp, n);
    const restart = async () => {
      const s = servers.at(-1)!;
      s.proc.kill('SIGTERM');
      await expect(cp.getByTestId('connection')).toHaveAttribute('data-state', /^(closed|connecting)$/);
      expect(await s.exited).toBe(0);
      servers.push(await startServer(port));
      await expect(cp.getByTestId('connection')).toHaveAttribute('data-state', 'open', { timeout: 40_000 });
    };
    // The guide comes back where it was, its diagram with it.
    await restart();
    await expect(cp.getByTestId('guided-step')).toHaveAttribute('data-value', '6');
    await expect(messages(cp)).toHaveCount(6);
    await next(cp, 7);
    // A live cluster with a dead node comes back with its countdown.
    await cp.getByTestId('guided-finish').click();
    await liveStory(cp);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
    const before = await placement(cp);
    await cp.getByTestId('pause').click();
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-paused', 'true');
    const at = await cp.getByTestId('clock').getAttribute('data-value');
    await restart();
    await expect(cp.locator('[data-testid="log"] li[data-kind="restored"]')).toHaveCount(1);
    await expect(cp.getByTestId('clock')).toHaveAttribute('data-value', at!);
    await expect(cp.locator('[data-testid="node"][data-ready="Unknown"]')).toHaveCount(1);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
    expect(await placement(cp)).toEqual(before);
    await cp.getByTestId('pause').click();
    await cp.getByTestId('skip').click();
    await expect(podsIn(cp, 'Terminating')).not.toHaveCount(0);
  });
});

// ---------------------------------------------------------------- screenshots

/** Stages for the screenshots: the guide part-way, or a live story. */
async function stage(page: Page, what: string) {
  const cp = cpDemo(page);
  if (what.startsWith('guide')) {
    const n = Number(what.slice(5));
    for (let i = 1; i <= n; i++) await next(cp, i);
    return;
  }
  await finishGuide(cp);
  if (what === 'node') {
    await setReplicas(cp, 5);
    await expect(podsIn(cp, 'Running')).toHaveCount(5);
    await liveStory(cp);
    await expect(cp.getByTestId('next')).toHaveAttribute('data-value', 'eviction');
  }
  if (what === 'scheduler') {
    await preset(cp, 'scheduler-outage').click();
    await expect(unplaced(cp)).toHaveCount(2);
  }
}

test.describe('screenshots', { tag: '@screenshot' }, () => {
  const shots = [
    { name: 'controlplane-desktop', path: '/controlplane', viewport: { width: 1366, height: 900 }, stage: 'node' },
    { name: 'controlplane-projector', path: '/controlplane?mode=present', viewport: { width: 1920, height: 1080 }, stage: 'guide9' },
    { name: 'controlplane-projector-live', path: '/controlplane?mode=present', viewport: { width: 1920, height: 1080 }, stage: 'node' },
    { name: 'controlplane-phone', path: '/controlplane', viewport: { width: 360, height: 800 }, stage: 'guide5' },
    { name: 'controlplane-en', path: '/controlplane?lang=en', viewport: { width: 1366, height: 900 }, stage: 'scheduler' },
  ];
  for (const s of shots) {
    test(s.name, async ({ page }) => {
      await page.setViewportSize(s.viewport);
      await open(page, s.path);
      await stage(page, s.stage);
      await page.screenshot({ path: path.join(DIR, `${s.name}.png`), fullPage: true, animations: 'disabled' });
      if (s.name === 'controlplane-desktop') {
        await cpDemo(page).getByTestId('sequence').screenshot({ path: path.join(DIR, 'controlplane-sequence.png'), animations: 'disabled' });
      }
    });
  }
});
