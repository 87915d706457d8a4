/**
 * The cluster map's label filter and its virtualised columns in real headless Chromium against `winkube up`.
 * The 300 extra nodes are created through the API without kubelets; the DaemonSet controller is off so that no
 * DaemonSet pods wait on them (they would never start), which keeps the default cluster's own pods as they are.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { eventually, kubectlFails, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { launchChromium, openUi, screenshotPath, texts } from '../helpers/ui-browser.js';

let cluster: TestCluster;
let browser: Browser;
let link: string;

/** Five pods in default, on the Linux nodes, with the labels the selectors pick from. */
const LABELLED: [string, Record<string, string>][] = [
  ['web-1', { app: 'web', tier: 'frontend' }],
  ['db-1', { app: 'web', tier: 'db' }],
  ['job-a', { env: 'a' }],
  ['job-b', { env: 'b' }],
  ['job-c', { env: 'c' }],
];

function podList(): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'List',
    items: LABELLED.map(([name, labels]) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, labels },
      spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'app', image: 'nginx' }] },
    })),
  });
}

const SCALE_NODES = Array.from({ length: 300 }, (_, i) => `scale-${String(i).padStart(3, '0')}`);
/** The Linux column's nodes by name once the 300 are in, as the map orders them. */
const LINUX_COLUMN = ['linux-1', 'linux-2', ...SCALE_NODES, 'winkube-control-plane'];
/** At most the window's cards (900 px / 260 px a card) plus three each side, plus the focused card's neighbours. */
const MAX_CARDS = 14;

before(async () => {
  cluster = await startCluster(undefined, ['--controllers', '*,-daemonset']);
  link = /^web view: (\S+)$/m.exec(cluster.output())?.[1] ?? '';
  browser = await launchChromium();
  await kubectlOk(cluster, ['apply', '-f', '-'], podList());
  await eventually('the labelled pods are scheduled', async () => {
    const pods = JSON.parse(await kubectlOk(cluster, ['get', 'pods', '-o', 'json'])).items as { spec: { nodeName?: string } }[];
    return pods.length === LABELLED.length && pods.every((p) => p.spec.nodeName) ? true : undefined;
  }, 60_000);
});

after(async () => {
  await browser?.close();
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
});

async function defaultPods(page: Page): Promise<string[]> {
  return (await page.locator('[data-pod^="default/"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod') ?? ''))).sort();
}

async function labels(page: Page, selector: string): Promise<void> {
  await page.getByLabel('Labels', { exact: true }).fill(selector);
}

test('the label filter: kubectl -l syntax on pods and nodes; a selector that does not parse shows the server\'s message', async () => {
  const page = await openUi(browser, link, '[data-pod="default/web-1"]');
  await page.getByLabel('Namespace').selectOption('default');
  assert.deepEqual(await defaultPods(page), ['default/db-1', 'default/job-a', 'default/job-b', 'default/job-c', 'default/web-1']);

  await labels(page, 'app=web,tier!=db');
  assert.deepEqual(await defaultPods(page), ['default/web-1']);
  await labels(page, 'env in (a,b)');
  assert.deepEqual(await defaultPods(page), ['default/job-a', 'default/job-b']);
  await labels(page, '!app');
  assert.deepEqual(await defaultPods(page), ['default/job-a', 'default/job-b', 'default/job-c']);
  // Nodes match on their own labels too: the Windows nodes, with no pod of default on them.
  await labels(page, 'kubernetes.io/os=windows');
  assert.deepEqual(await texts(page, 'article.node h3'), ['win2019-1', 'win2019-2', 'win2022-1']);
  assert.deepEqual(await defaultPods(page), []);

  await labels(page, 'env in (a,b)');
  await labels(page, 'env in (a');
  const error = page.getByRole('alert');
  assert.equal(await error.innerText(), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(await page.getByLabel('Labels', { exact: true }).getAttribute('aria-invalid'), 'true');
  // kubectl sends the same text to the same parser and prints its message after its own prefix.
  const stderr = await kubectlFails(cluster, ['get', 'pods', '-l', 'env in (a']);
  assert.equal(stderr, `Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "env in (a", field selector "": ${await error.innerText()}\n`);
  // While the text does not parse, the map keeps the last selector that did.
  assert.deepEqual(await defaultPods(page), ['default/job-a', 'default/job-b']);
  await page.screenshot({ path: screenshotPath('cluster-map-label-error.png') });

  await labels(page, 'app=web server');
  assert.equal(await error.innerText(), "found 'server', expected: ',' or 'end of string'");
  await labels(page, '');
  assert.equal(await page.getByRole('alert').count(), 0);
  assert.deepEqual(await defaultPods(page), ['default/db-1', 'default/job-a', 'default/job-b', 'default/job-c', 'default/web-1']);
  await page.close();
});

async function renderedCards(page: Page): Promise<string[]> {
  return page.locator('[data-column="linux"] article.node').evaluateAll((els) => els.map((e) => e.getAttribute('data-node') ?? ''));
}

/** The rendered cards are one run of the column, in its order. */
function assertContiguous(cards: string[]): void {
  const start = LINUX_COLUMN.indexOf(cards[0] ?? '');
  assert.deepEqual(cards, LINUX_COLUMN.slice(start, start + cards.length));
}

test('300 nodes: only the cards near the window are in the DOM, scrolling brings the others, Tab walks them in order', async () => {
  await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List',
    items: SCALE_NODES.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name } } })),
  }));
  const page = await openUi(browser, link, '[data-node="linux-1"]');
  await page.locator('[data-column="linux"] h2', { hasText: '303 nodes' }).waitFor();
  assert.deepEqual(await texts(page, '[data-column="linux"] h2'), ['Linux 303 nodes']);
  assert.equal(await page.locator('[data-column="linux"] [role="feed"]').getAttribute('aria-label'), 'Linux nodes');
  assert.equal(await page.locator('[data-node="linux-1"]').getAttribute('aria-setsize'), '303');
  assert.equal((await page.locator('[data-column="linux"] .node-list').boundingBox())?.height, 303 * 260);

  const top = await renderedCards(page);
  assert.ok(top.length > 0 && top.length <= MAX_CARDS, `${top.length} cards rendered`);
  assert.deepEqual(top, LINUX_COLUMN.slice(0, top.length));

  // Scroll so that the 151st card (scale-148) is at the window's top.
  await page.evaluate(() => {
    const list = document.querySelector('[data-column="linux"] .node-list')!;
    window.scrollTo(0, list.getBoundingClientRect().top + window.scrollY + 150 * 260);
  });
  await page.locator('[data-node="scale-148"]').waitFor();
  const middle = await renderedCards(page);
  assert.ok(middle.length <= MAX_CARDS, `${middle.length} cards rendered`);
  assertContiguous(middle);
  assert.ok(middle.includes('scale-148') && !middle.includes('linux-1'), middle.join(','));
  assert.equal(await page.locator('[data-node="scale-148"]').getAttribute('aria-posinset'), '151');
  await page.screenshot({ path: screenshotPath('cluster-map-300-nodes.png') });

  // Keyboard: from the first card, Tab reaches every card in order (chips between them are skipped here).
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('[data-node="linux-1"]').waitFor();
  await page.locator('[data-node="linux-1"]').focus();
  const reached = ['linux-1'];
  for (let i = 0; i < 400 && reached.at(-1) !== 'scale-040'; i++) {
    await page.keyboard.press('Tab');
    const node = await page.evaluate(() => (document.activeElement?.matches('article.node') ? document.activeElement.getAttribute('data-node') : null));
    if (node) reached.push(node);
  }
  assert.deepEqual(reached, LINUX_COLUMN.slice(0, 43));
  const after = await renderedCards(page);
  assert.ok(after.length <= MAX_CARDS && !after.includes('linux-1'), after.join(','));
  assertContiguous(after);
  assert.ok(await page.evaluate(() => window.scrollY) > 0);
  await page.close();
});

test('a node with more pods than a card shows: 8 chips and "+N more", which reveals the rest and moves focus to them', async () => {
  const pods = Array.from({ length: 12 }, (_, i) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: `many-${String(i).padStart(2, '0')}`, labels: { group: 'many' } },
    spec: { nodeName: 'linux-2', containers: [{ name: 'app', image: 'nginx' }] },
  }));
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }));
  const page = await openUi(browser, link, '[data-node="linux-2"] .chip.more');
  await labels(page, 'group=many');
  assert.deepEqual(await texts(page, 'article.node h3'), ['linux-2']);
  const chips = () => page.locator('[data-node="linux-2"] [data-pod]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod')));
  assert.deepEqual(await chips(), pods.slice(0, 8).map((p) => `default/${p.metadata.name}`));
  const more = page.locator('[data-node="linux-2"] .chip.more');
  assert.equal(await more.innerText(), '+4 more');
  assert.equal(await more.getAttribute('aria-label'), 'Show 4 more pods on linux-2');
  await more.focus();
  await page.keyboard.press('Enter');
  assert.deepEqual(await chips(), pods.map((p) => `default/${p.metadata.name}`));
  assert.equal(await page.locator('[data-node="linux-2"] .chip.more').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-pod')), 'default/many-08');
  await page.close();
});
