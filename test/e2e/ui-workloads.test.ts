/**
 * The web view's workloads, services and traffic views and the completed pod detail, in real headless Chromium
 * against `winkube up`, with objects created by kubectl; every text the page shows is compared with what the
 * command line prints for the same object (kubectl rollout status, winkube net check, explain-scheduling,
 * describe-runtime) or with the container's own output.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually, kubectlOk, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { launchChromium, openUi, screenshotPath, texts } from '../helpers/ui-browser.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

let cluster: TestCluster;
let browser: Browser;
let link: string;

const WORKLOADS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: mixed}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: agnhost, image: "registry.k8s.io/e2e-test-images/agnhost:2.52", args: ["netexec", "--http-port=8080"]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: winweb}
spec:
  replicas: 1
  selector: {matchLabels: {app: winweb}}
  template:
    metadata: {labels: {app: winweb, tier: mixed}}
    spec:
      nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.20348}
      containers:
      - name: app
        image: mcr.microsoft.com/windows/servercore:ltsc2022
        command: ["ping", "-t", "localhost"]
        resources:
          limits: {cpu: 500m, memory: 256Mi}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: servercore-2022}
spec:
  replicas: 1
  selector: {matchLabels: {app: servercore-2022}}
  template:
    metadata: {labels: {app: servercore-2022}}
    spec:
      nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: 10.0.17763}
      containers:
      - {name: app, image: "mcr.microsoft.com/windows/servercore:ltsc2022"}
---
apiVersion: v1
kind: Service
metadata: {name: mixed}
spec:
  type: NodePort
  selector: {tier: mixed}
  ports: [{port: 80, targetPort: 8080, nodePort: 30093}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: logger}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers:
  - name: main
    image: busybox:1.36
    command: ["sh", "-c", "echo started; while true; do if [ -f /tmp/go ]; then echo later; rm /tmp/go; fi; sleep 1; done"]
  - name: side
    image: busybox:1.36
    command: ["sh", "-c", "echo side says hi; sleep 3600"]
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: app, image: busybox:1.36, command: ["sh", "-c", "echo done"]}
---
apiVersion: v1
kind: Pod
metadata: {name: nowhere}
spec:
  nodeSelector: {kubernetes.io/os: plan9}
  containers:
  - {name: app, image: busybox:1.36}
`;

function winkube(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => execFile(process.execPath, [MAIN, ...args, '--kubeconfig', cluster.kubeconfig],
    (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr })));
}

async function podsOf(app: string): Promise<Pod[]> {
  return JSON.parse(await kubectlOk(cluster, ['get', 'pods', '-l', `app=${app}`, '-o', 'json'])).items as Pod[];
}

const running = (p: Pod) => p.status?.containerStatuses?.every((c) => c.ready) === true;

before(async () => {
  cluster = await startCluster();
  link = /^web view: (\S+)$/m.exec(cluster.output())?.[1] ?? '';
  browser = await launchChromium();
  await kubectlOk(cluster, ['apply', '-f', '-'], WORKLOADS);
  await eventually('web and winweb are ready', async () => {
    const pods = [...await podsOf('web'), ...await podsOf('winweb')];
    return pods.length === 3 && pods.every(running) ? true : undefined;
  }, 90_000);
  await eventually('the mismatched pod fails', async () =>
    (await podsOf('servercore-2022'))[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' ? true : undefined, 60_000);
  await eventually('the Job completes', async () =>
    (JSON.parse(await kubectlOk(cluster, ['get', 'job', 'once', '-o', 'json'])).status?.succeeded === 1 ? true : undefined), 60_000);
  await eventually('logger runs', async () => {
    const pod = JSON.parse(await kubectlOk(cluster, ['get', 'pod', 'logger', '-o', 'json'])) as Pod;
    return running(pod) ? true : undefined;
  }, 60_000);
  // ImageLocality scores the images the nodes report; the kubelets report a pulled image with their next status.
  await eventually('the Windows nodes report the image they pulled', async () => {
    const nodes = new Set([...await podsOf('winweb'), ...await podsOf('servercore-2022')].map((p) => p.spec?.nodeName));
    const items = JSON.parse(await kubectlOk(cluster, ['get', 'nodes', '-o', 'json'])).items as { metadata: { name: string }; status?: { images?: { names?: string[] }[] } }[];
    return items.filter((n) => nodes.has(n.metadata.name))
      .every((n) => n.status?.images?.some((i) => i.names?.some((x) => x.endsWith('servercore:ltsc2022')))) ? true : undefined;
  }, 60_000);
  await eventually('mixed has its three endpoints', async () => {
    const slices = JSON.parse(await kubectlOk(cluster, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=mixed', '-o', 'json'])).items;
    const ready = slices.flatMap((s: { endpoints?: { conditions?: { ready?: boolean } }[] }) => s.endpoints ?? []).filter((e: { conditions?: { ready?: boolean } }) => e.conditions?.ready);
    return ready.length === 3 ? true : undefined;
  }, 60_000);
});

after(async () => {
  await browser?.close();
  await cluster?.stop();
  if (cluster) removeDir(cluster.dataDir);
});

async function openView(tab: string, ready: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await openUi(browser, link, '[data-pod]', colorScheme);
  await page.getByRole('tab', { name: tab }).click();
  await page.locator(ready).first().waitFor();
  return page;
}

async function rolloutStatus(name: string): Promise<string> {
  return (await kubectlOk(cluster, ['rollout', 'status', `deployment/${name}`, '--watch=false'])).trim();
}

test('the views are tabs: labelled, reachable with the keyboard, arrow keys move between them', async () => {
  const page = await openUi(browser, link, '[data-pod]');
  assert.deepEqual(await texts(page, '[role="tablist"][aria-label="Views"] [role="tab"]'), ['Cluster map', 'Workloads', 'Services and traffic']);
  await page.getByRole('tab', { name: 'Cluster map' }).focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Workloads');
  assert.equal(await page.getByRole('tab', { name: 'Workloads' }).getAttribute('aria-selected'), 'true');
  await page.locator('[data-kind="Deployment"] table').waitFor();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByRole('tab', { name: 'Services and traffic' }).getAttribute('aria-selected'), 'true');
  await page.locator('[data-service="default/mixed"]').waitFor();
  await page.close();
});

test('workloads: each Deployment\'s rollout progress and the message kubectl rollout status prints, live through the watch', async () => {
  const page = await openView('Workloads', '[data-workload="default/web"]');
  const row = (name: string) => page.locator(`[data-kind="Deployment"] [data-workload="default/${name}"]`);
  assert.deepEqual(await texts(page, '[data-kind="Deployment"] thead th'), ['Namespace', 'Name', 'Updated', 'Ready', 'Available', 'Rollout status']);
  assert.equal((await row('web').innerText()).replace(/\s+/g, ' ').trim(),
    'default web updated 2/2 ready 2/2 available 2/2 deployment "web" successfully rolled out');
  assert.equal(await row('web').locator('[data-field="message"]').innerText(), await rolloutStatus('web'));
  assert.equal(await row('servercore-2022').locator('[data-field="message"]').innerText(), await rolloutStatus('servercore-2022'));
  assert.equal(await row('servercore-2022').locator('[data-field="message"]').innerText(),
    'Waiting for deployment "servercore-2022" rollout to finish: 0 of 1 updated replicas are available...');
  assert.equal(await row('web').locator('meter').first().getAttribute('aria-label'), 'updated 2 of 2');

  // A scale-up reaches the page through the Deployment's watch, the same numbers kubectl then reads.
  await kubectlOk(cluster, ['scale', 'deployment/web', '--replicas=3']);
  await page.locator('[data-kind="Deployment"] [data-workload="default/web"]', { hasText: 'available 3/3' })
    .filter({ hasText: 'deployment "web" successfully rolled out' }).waitFor({ timeout: 60_000 });
  assert.equal((await row('web').innerText()).replace(/\s+/g, ' ').trim(),
    'default web updated 3/3 ready 3/3 available 3/3 deployment "web" successfully rolled out');
  assert.equal(await row('web').locator('[data-field="message"]').innerText(), await rolloutStatus('web'));

  // The DaemonSets the cluster runs, each as kubectl rollout status words it.
  const daemonSets = await page.locator('[data-kind="DaemonSet"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-workload') ?? ''));
  assert.deepEqual(daemonSets, ['kube-system/kube-flannel-ds', 'kube-system/kube-flannel-ds-windows-amd64', 'kube-system/kube-proxy', 'kube-system/kube-proxy-windows']);
  for (const key of daemonSets) {
    const [ns, name] = key.split('/') as [string, string];
    const cli = (await kubectlOk(cluster, ['rollout', 'status', `daemonset/${name}`, '-n', ns, '--watch=false'])).trim();
    assert.equal(await page.locator(`[data-kind="DaemonSet"] [data-workload="${key}"] [data-field="message"]`).innerText(), cli);
  }
  // A Job has no rollout status viewer: STATUS and COMPLETIONS of kubectl get jobs.
  const [, status, completions] = (await kubectlOk(cluster, ['get', 'job', 'once', '--no-headers'])).trim().split(/\s+/);
  assert.equal(await page.locator('[data-kind="Job"] [data-workload="default/once"] [data-field="message"]').innerText(), `${status}, ${completions} completions`);
  assert.equal(`${status}, ${completions}`, 'Complete, 1/1');
  await page.screenshot({ path: screenshotPath('workloads.png'), fullPage: true });
  await page.close();
});

test('services: endpoints per OS and node from the EndpointSlices', async () => {
  const page = await openView('Services and traffic', '[data-service="default/mixed"] .endpoint-os');
  const svc = page.locator('[data-service="default/mixed"]');
  await svc.locator('.endpoint').nth(2).waitFor();
  const pods = [...await podsOf('web'), ...await podsOf('winweb')];
  const expected = (os: string) => {
    const byNode = new Map<string, string[]>();
    for (const p of pods.filter((x) => (x.spec?.nodeSelector?.['kubernetes.io/os'] ?? '') === os)) {
      const list = byNode.get(p.spec?.nodeName ?? '') ?? [];
      list.push(`${p.status?.podIP} default/${p.metadata?.name}`);
      byNode.set(p.spec?.nodeName ?? '', list);
    }
    return [...byNode.entries()].sort(([a], [b]) => a.localeCompare(b))
      .map(([node, eps]) => `${node} ${eps.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).join(' ')}`);
  };
  assert.deepEqual(await texts(svc.page(), '[data-service="default/mixed"] .endpoint-os h4'), ['Linux', 'Windows Server 2022 / 20348']);
  assert.deepEqual(await texts(page, '[data-service="default/mixed"] [data-os="linux"] .endpoint-nodes > li'), expected('linux'));
  assert.deepEqual(await texts(page, '[data-service="default/mixed"] [data-os="windows-20348"] .endpoint-nodes > li'), expected('windows'));
  assert.deepEqual(await texts(page, '[data-service="default/mixed"] .facts dd'), [
    (await kubectlOk(cluster, ['get', 'svc', 'mixed', '-o', 'jsonpath={.spec.clusterIP}'])).trim(), '80:30093/TCP', '8080/TCP']);
  await page.close();
});

/** Fills in the page's net check and returns its path and verdict as shown. */
async function pageNetCheck(page: Page, from: string, to: string, protocol: 'tcp' | 'icmp' = 'tcp'): Promise<string> {
  await page.getByLabel('Protocol').selectOption(protocol);
  await page.getByLabel('From').fill(from);
  await page.getByLabel('To', { exact: true }).fill(to);
  await page.getByRole('button', { name: 'Check' }).click();
  await page.locator(`.net-path-figure [data-verdict]`).waitFor();
  const hops = await texts(page, '.net-path .hop');
  const verdict = await page.locator('.net-path-figure [data-verdict]').innerText();
  return [...hops, verdict].join('\n') + '\n';
}

test('net check: the path and the verdict winkube net check prints, the Windows limits included', async () => {
  const page = await openView('Services and traffic', '[data-service="default/mixed"]');
  const ownNodePort = await pageNetCheck(page, 'node/win2022-1', 'node/win2022-1:30093');
  const cli = await winkube(['net', 'check', 'node/win2022-1', 'node/win2022-1:30093']);
  assert.equal(cli.code, 1);
  assert.equal(ownNodePort, cli.stdout);
  assert.deepEqual(ownNodePort.split('\n').slice(1), [
    'stopped: a Windows node does not reach its own nodePorts',
    (await texts(page, '.net-path .hop-fix'))[0], 'timeout', '']);
  assert.deepEqual(await page.locator('.net-path .hop').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-role'))), ['source', 'stop', 'fix']);
  await page.screenshot({ path: screenshotPath('traffic-windows-nodeport.png'), fullPage: true });

  const vip = await pageNetCheck(page, 'node/win2022-1', 'svc/web');
  assert.equal(vip, (await winkube(['net', 'check', 'node/win2022-1', 'svc/web'])).stdout);
  assert.match(vip, /\nstopped: Service VIPs are not reachable from Windows nodes\n/);

  // A pod as the target: a Service would pick one of its endpoints at random, the command and the page each their own.
  const webPod = (await podsOf('web'))[0]?.metadata?.name ?? '';
  const connected = await pageNetCheck(page, 'node/linux-1', `${webPod}:8080`);
  const cliConnected = await winkube(['net', 'check', 'node/linux-1', `${webPod}:8080`]);
  assert.equal(cliConnected.code, 0);
  assert.equal(connected, cliConnected.stdout);
  assert.equal(await page.locator('.net-path-figure [data-verdict]').innerText(), 'connected');
  await page.screenshot({ path: screenshotPath('traffic.png'), fullPage: true });

  // An echo out of the cluster from a Windows pod: lost on win-overlay, as `--protocol icmp` traces it.
  const winPod = (await podsOf('winweb'))[0]?.metadata?.name ?? '';
  const echo = await pageNetCheck(page, winPod, '203.0.113.10', 'icmp');
  const cliEcho = await winkube(['net', 'check', '--protocol', 'icmp', winPod, '203.0.113.10']);
  assert.equal(cliEcho.code, 1);
  assert.equal(echo, cliEcho.stdout);
  assert.match(echo, /\nstopped: win-overlay and win-bridge do not translate outbound ICMP: nothing outside the cluster's networks answers a Windows pod\n/);
  await page.close();
});

test('pod detail: the scheduler\'s scores of a bound pod and its runtime settings, as explain-scheduling and describe-runtime print them', async () => {
  const page = await openUi(browser, link, '[data-pod]');
  const [pod] = await podsOf('winweb');
  const name = pod?.metadata?.name ?? '';
  await page.locator(`[data-pod="default/${name}"]`).click();
  await page.locator('.score-table tbody tr').first().waitFor();
  await page.locator('[data-runtime-container="app"]').waitFor();
  const explained = await winkube(['explain-scheduling', name]);
  const lines = explained.stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Score ('));
  const end = lines.findIndex((l, i) => i > start && !l.trim());
  const cliScores = lines.slice(start + 1, end).map((l) => l.trim().split(/ {2,}/));
  const pageScores = await page.locator('.score-table tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText)));
  assert.deepEqual(pageScores.slice(1), cliScores.slice(1));
  assert.deepEqual(pageScores[0], ['Node', ...cliScores[0]!.slice(1, -1), 'Total']);
  assert.equal(await page.locator('.scheduling .selected').innerText(), lines.find((l) => l.startsWith('Selected')));
  assert.equal(await page.locator('.scheduling .bound').innerText(), `Bound to ${pod?.spec?.nodeName}; evaluated as if it were pending`);

  const runtime = await winkube(['describe-runtime', name]);
  const settings = runtime.stdout.split('\n').filter((l) => l.startsWith('    ')).map((l) => l.trim());
  const shown = await page.locator('[data-runtime-container="app"] dd').evaluateAll((dds) =>
    dds.map((dd) => `${(dd.previousElementSibling as HTMLElement).innerText}: ${(dd as HTMLElement).innerText}`));
  assert.deepEqual(shown, settings);
  // 500m of the node's 4 CPUs: 500 / 4000 of the 10,000 cycles.
  assert.ok(settings.includes('CpuMaximum: 1250'), settings.join('|'));
  assert.equal(await page.locator('.runtime-node').innerText(), /^Node: {2}(.*)$/m.exec(runtime.stdout)?.[1]);
  await page.locator('.runtime').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('pod-scores-runtime.png'), fullPage: true });
  await page.close();
});

test('the runtime settings endpoint reads the API as the caller: 401, 403, 404 as the API answers, 400 for a pod with no node', async () => {
  const path = '/ui/api/runtime-settings?namespace=default&name=logger';
  const badToken = await raw(cluster, 'GET', path, { anonymous: true, headers: { Authorization: 'Bearer not-a-token' } });
  assert.equal(badToken.status, 401);
  assert.equal(JSON.parse(badToken.body).message, 'Unauthorized');
  const anonymous = await raw(cluster, 'GET', path, { anonymous: true });
  assert.equal(anonymous.status, 403);
  assert.equal(JSON.parse(anonymous.body).message, 'pods "logger" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "default"');
  const admin = { Authorization: `Bearer ${decodeURIComponent(link.split('#token=')[1] ?? '')}` };
  const missing = await raw(cluster, 'GET', '/ui/api/runtime-settings?namespace=default&name=nope', { anonymous: true, headers: admin });
  assert.equal(missing.status, 404);
  assert.equal(JSON.parse(missing.body).message, 'pods "nope" not found');
  const pending = await raw(cluster, 'GET', '/ui/api/runtime-settings?namespace=default&name=nowhere', { anonymous: true, headers: admin });
  assert.deepEqual([pending.status, pending.body], [400, 'pod default/nowhere is not bound to a node yet\n']);
  const ok = await raw(cluster, 'GET', path, { anonymous: true, headers: admin });
  assert.equal(JSON.parse(ok.body).text, (await winkube(['describe-runtime', 'logger'])).stdout);
});

test('pod detail: logs follow a container, the picker switches containers', async () => {
  const page = await openUi(browser, link, '[data-pod="default/logger"]');
  await page.locator('[data-pod="default/logger"]').click();
  const logs = page.locator('.logs');
  await logs.locator('.log-line', { hasText: 'started' }).waitFor();
  assert.deepEqual(await texts(page, '.logs .log-line'), ['started']);
  assert.equal(await logs.locator('.log-state').innerText(), 'following');
  await logs.getByLabel('Container', { exact: true }).selectOption('side');
  await logs.locator('.log-line', { hasText: 'side says hi' }).waitFor();
  assert.deepEqual(await texts(page, '.logs .log-line'), ['side says hi']);
  await logs.getByLabel('Container', { exact: true }).selectOption('main');
  await logs.locator('.log-line', { hasText: 'started' }).waitFor();
  // A line the container writes after the page opened its log arrives through the followed stream.
  await kubectlOk(cluster, ['exec', 'logger', '-c', 'main', '--', 'touch', '/tmp/go']);
  await logs.locator('.log-line', { hasText: 'later' }).waitFor({ timeout: 30_000 });
  assert.deepEqual(await texts(page, '.logs .log-line'), ['started', 'later']);
  assert.equal(await kubectlOk(cluster, ['logs', 'logger', '-c', 'main']), 'started\nlater\n');
  await page.locator('.logs').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('pod-logs.png'), fullPage: true });
  await page.close();
});

test('the new views in the dark scheme', async () => {
  const page = await openView('Workloads', '[data-workload="default/web"]', 'dark');
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(15, 20, 25)');
  await page.getByRole('tab', { name: 'Services and traffic' }).click();
  await page.locator('[data-service="default/mixed"] .endpoint').first().waitFor();
  await page.screenshot({ path: screenshotPath('services-dark.png'), fullPage: true });
  await page.close();
});
