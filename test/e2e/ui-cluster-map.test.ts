/**
 * The web view in real headless Chromium against `winkube up`: a Windows Deployment whose image build does not
 * match its node and a pod no node can take, both created with kubectl, then what the page shows of them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { Event, PodCondition } from 'kubernetes-types/core/v1.js';
import { eventually, kubectlOk, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { launchChromium, screenshotPath, uiContext } from '../helpers/ui-browser.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;
let browser: Browser;
let link: string;

const MISMATCH = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: servercore-2022
spec:
  replicas: 1
  selector:
    matchLabels: {app: servercore-2022}
  template:
    metadata:
      labels: {app: servercore-2022}
    spec:
      nodeSelector:
        kubernetes.io/os: windows
        node.kubernetes.io/windows-build: 10.0.17763
      containers:
      - name: app
        image: mcr.microsoft.com/windows/servercore:ltsc2022
`;

const TOO_BIG = `apiVersion: v1
kind: Pod
metadata:
  name: too-big
spec:
  nodeSelector:
    kubernetes.io/os: linux
  containers:
  - name: app
    image: nginx
    resources:
      requests: {cpu: "64"}
`;

before(async () => {
  cluster = await startCluster();
  link = /^web view: (\S+)$/m.exec(cluster.output())?.[1] ?? '';
  browser = await launchChromium();
  await kubectlOk(cluster, ['apply', '-f', '-'], MISMATCH);
  await kubectlOk(cluster, ['apply', '-f', '-'], TOO_BIG);
  await eventually('the Deployment pod fails to create its container', async () => {
    const pods = JSON.parse(await kubectlOk(cluster, ['get', 'pods', '-l', 'app=servercore-2022', '-o', 'json'])).items;
    return pods[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' ? true : undefined;
  }, 60_000);
  await eventually('too-big is unschedulable', async () => {
    const pod = JSON.parse(await kubectlOk(cluster, ['get', 'pod', 'too-big', '-o', 'json']));
    return pod.status?.conditions?.some((c: PodCondition) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') ? true : undefined;
  }, 60_000);
});

after(async () => {
  await browser?.close();
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
});

async function openMap(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await (await uiContext(browser, colorScheme)).newPage();
  await page.goto(link);
  await page.locator('[data-pod="default/too-big"]').waitFor();
  return page;
}

async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(selector).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

async function mismatchPodName(): Promise<string> {
  return (await kubectlOk(cluster, ['get', 'pods', '-l', 'app=servercore-2022', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
}

test('winkube up prints the login link with the admin token in its fragment', async () => {
  assert.match(link, new RegExp(`^https://127\\.0\\.0\\.1:${cluster.port}/ui/#token=[A-Za-z0-9_-]{32}$`));
});

test('the page is served without a token; the explain endpoint reads the API as the caller and refuses no token', async () => {
  const page = await raw(cluster, 'GET', '/ui/', { anonymous: true });
  assert.equal(page.status, 200);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(page.body, /<script type="module" src="\/ui\/app\.js"><\/script>/);
  const bundle = await raw(cluster, 'GET', '/ui/app.js', { anonymous: true });
  assert.equal(bundle.status, 200);
  assert.equal(bundle.headers['content-type'], 'text/javascript; charset=utf-8');
  const path = '/ui/api/explain-scheduling?namespace=default&name=too-big';
  const badToken = await raw(cluster, 'GET', path, { anonymous: true, headers: { Authorization: 'Bearer not-a-token' } });
  assert.equal(badToken.status, 401);
  assert.equal(JSON.parse(badToken.body).message, 'Unauthorized');
  const anonymous = await raw(cluster, 'GET', path, { anonymous: true });
  assert.equal(anonymous.status, 403);
  assert.equal(JSON.parse(anonymous.body).message, 'pods "too-big" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "default"');
  const missing = await raw(cluster, 'GET', '/ui/api/explain-scheduling?namespace=default&name=nope', {
    anonymous: true, headers: { Authorization: `Bearer ${decodeURIComponent(link.split('#token=')[1] ?? '')}` } });
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).message, 'pods "nope" not found');
});

test('the cluster map: a column per OS and Windows build, node cards, and pod chips with their status in words', async () => {
  const page = await openMap();
  assert.deepEqual(await texts(page, 'section.column > h2'), [
    'Linux 3 nodes', 'Windows Server 2019 / 17763 2 nodes', 'Windows Server 2022 / 20348 1 node', 'Not scheduled 1 pod',
  ]);
  assert.deepEqual(await texts(page, '[data-column="linux"] article.node h3'), ['linux-1', 'linux-2', 'winkube-control-plane']);
  assert.deepEqual(await texts(page, '[data-column="windows-17763"] article.node h3'), ['win2019-1', 'win2019-2']);
  assert.deepEqual(await texts(page, '[data-column="windows-20348"] article.node h3'), ['win2022-1']);
  assert.deepEqual(await texts(page, '[data-node="win2022-1"] [data-ready]'), ['Ready']);
  assert.deepEqual(await texts(page, '[data-node="winkube-control-plane"] .taints li'), ['node-role.kubernetes.io/control-plane:NoSchedule']);
  const name = await mismatchPodName();
  const node = (await kubectlOk(cluster, ['get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}'])).trim();
  assert.match(node, /^win2019-[12]$/);
  const chip = page.locator(`[data-node="${node}"] [data-pod="default/${name}"]`);
  assert.equal((await chip.innerText()).replace(/\s+/g, ' '), `${name} CreateContainerError 0/1`);
  assert.equal(await chip.getAttribute('aria-label'), `Pod default/${name}: CreateContainerError, 0/1 ready`);
  assert.equal(await chip.getAttribute('class'), 'chip tone-bad');
  assert.deepEqual(await texts(page, '[data-column="unscheduled"] [data-pod]'), ['too-big Pending 0/1']);
  await page.screenshot({ path: screenshotPath('cluster-map.png'), fullPage: true });

  // Filtering by name keeps the matching pod and the node it runs on.
  await page.getByLabel('Name', { exact: true }).fill(name);
  assert.deepEqual(await texts(page, 'article.node h3'), [node]);
  assert.deepEqual(await texts(page, '[data-pod]'), [`${name} CreateContainerError 0/1`]);
  await page.getByLabel('Name', { exact: true }).fill('');
  await page.getByLabel('Namespace').selectOption('kube-system');
  assert.equal(await page.locator('[data-pod="default/too-big"]').count(), 0);
  await page.close();
});

test('pod detail of the failing pod: the runtime error upstream writes and the WinkubeHint fix', async () => {
  const page = await openMap();
  const name = await mismatchPodName();
  // Keyboard: the chip is a button, Enter opens the detail and moves focus to it.
  await page.locator(`[data-pod="default/${name}"]`).focus();
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary');
  assert.equal(await detail.locator('h2').innerText(), `Pod default/${name}`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'detail-title');
  assert.equal(await detail.locator('[data-field="status"]').innerText(), 'CreateContainerError');
  const failure = (await detail.locator('[data-failure="container app"]').innerText()).replace(/\s+/g, ' ');
  assert.match(failure, /^container app: CreateContainerError failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem [0-9a-f]{64}: The container operating system does not match the host operating system\. \(0xc0370101\): unknown$/);
  await detail.locator('.fixes li').first().waitFor();
  const fixes = await texts(page, '.fixes li');
  const events = JSON.parse(await kubectlOk(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${name},reason=WinkubeHint`, '-o', 'json'])).items;
  assert.deepEqual(fixes, events.map((e: Event) => e.message));
  assert.match(fixes[0] ?? '', /use "mcr\.microsoft\.com\/windows\/servercore:ltsc2019"/);
  assert.deepEqual(await texts(page, '.containers tbody tr'), ['app mcr.microsoft.com/windows/servercore:ltsc2022 Waiting: CreateContainerError false 0']);
  const reasons = await page.locator('.events tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-reason')));
  assert.equal(reasons[0], 'Scheduled');
  assert.ok(reasons.includes('Failed') && reasons.includes('WinkubeHint'), reasons.join(','));
  await page.screenshot({ path: screenshotPath('pod-failing.png'), fullPage: true });
  await page.keyboard.press('Escape');
  assert.equal(await page.getByRole('complementary').count(), 0);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-pod')), `default/${name}`);
  await page.close();
});

/** The Filter table `winkube explain-scheduling` prints: [node, result] per row. */
function cliFilterRows(text: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('NODE '));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.trim()) break;
    rows.push(line.split(/ {3,}/).slice(0, 2));
  }
  return rows;
}

test('pod detail of the pending pod: the scheduler\'s per-node Filter verdicts, the same as explain-scheduling', async () => {
  const page = await openMap();
  await page.locator('[data-pod="default/too-big"]').click();
  await page.locator('.filter-table tbody tr').first().waitFor();
  const rows = await page.locator('.filter-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(0, 2).map((c) => (c as HTMLElement).innerText)));
  const cli = await new Promise<string>((resolve, reject) => execFile(process.execPath, [MAIN, 'explain-scheduling', 'too-big', '--kubeconfig', cluster.kubeconfig],
    (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
  assert.deepEqual(rows, cliFilterRows(cli));
  const byNode = Object.fromEntries(rows.map(([node, result]) => [node, result]));
  assert.equal(byNode['linux-1'], 'NodeResourcesFit: Insufficient cpu');
  assert.equal(byNode['win2022-1'], "NodeAffinity: node(s) didn't match Pod's node affinity/selector");
  const message = (await kubectlOk(cluster, ['get', 'pod', 'too-big', '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}'])).trim();
  assert.equal((await page.locator('[data-failure="PodScheduled"]').innerText()).replace(/\s+/g, ' '), `PodScheduled: Unschedulable ${message}`);
  await page.screenshot({ path: screenshotPath('pod-pending.png'), fullPage: true });
  await page.close();
});

test('dark and light follow prefers-color-scheme', async () => {
  const light = await openMap('light');
  const dark = await openMap('dark');
  const bg = (p: Page) => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await bg(light), 'rgb(246, 247, 249)');
  assert.equal(await bg(dark), 'rgb(15, 20, 25)');
  await dark.screenshot({ path: screenshotPath('cluster-map-dark.png'), fullPage: true });
  await light.close();
  await dark.close();
});
