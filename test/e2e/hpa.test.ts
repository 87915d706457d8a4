/**
 * The horizontal pod autoscaler through real kubectl, against
 * metrics-server (`winkube up --metrics-server`): a Deployment whose
 * containers are scripted to use 300m of a 100m request for 40 s scales
 * out (`kubectl autoscale`, target 50 %), stops at maxReplicas
 * (TooManyReplicas), and scales back in once the demand falls, after the
 * downscale stabilization window; a Windows Deployment's usage is what
 * CpuMaximum leaves it. The time is shortened by configuration only:
 * metrics-server scrapes every 2 s, the HPA syncs every 2 s and its
 * stabilization window is 12 s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const deployment = (name: string, os: 'linux' | 'windows', image: string, script: string, resources: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: {winkube.io/script: '${script}'}
    spec:
      nodeSelector: {kubernetes.io/os: ${os}${os === 'windows' ? ', node.kubernetes.io/windows-build: "10.0.20348"' : ''}}
      containers:
      - name: app
        image: ${image}
        command: [${os === 'linux' ? '"sleep", "infinity"' : '"ping", "-t", "localhost"'}]
        resources: ${resources}
`;

const LINUX = deployment('hog', 'linux', 'busybox', '{"app": {"cpu": [[0, "300m"], [40, "300m"], [41, "10m"]]}}', '{requests: {cpu: 100m}}');
const WINDOWS = deployment('winhog', 'windows', 'mcr.microsoft.com/windows/servercore:ltsc2022', '{"app": {"cpu": "2"}}', '{requests: {cpu: 250m}, limits: {cpu: 500m}}');
const WINDOWS_HPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: winhog}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: winhog}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 100}}
`;

// A custom resource with a scale subresource: its replicas at .spec.replicas, its pods' selector at .status.selector.
const WEBAPP_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: webapps.example.com}
spec:
  group: example.com
  names: {kind: WebApp, plural: webapps, singular: webapp}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
`;
const WEBAPP = `apiVersion: example.com/v1
kind: WebApp
metadata: {name: crhog}
spec: {replicas: 1}
status: {replicas: 1, selector: app=crhog}
`;
const WEBAPP_HPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: crhog}
spec:
  scaleTargetRef: {apiVersion: example.com/v1, kind: WebApp, name: crhog}
  minReplicas: 1
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`;

interface Hpa { status?: { currentReplicas?: number; desiredReplicas?: number; conditions?: { type: string; status: string; reason: string; message: string }[] } }

describe('the horizontal pod autoscaler', () => {
  let cluster: TestCluster;
  const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
  const hpa = async (name: string): Promise<Hpa> => JSON.parse(await ok(['get', 'hpa', name, '-o', 'json'])) as Hpa;
  const events = async (name: string): Promise<string[]> =>
    (await ok(['get', 'events', '--field-selector', `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}`, '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}'])).trim().split('\n');
  before(async () => {
    Object.assign(process.env, { WINKUBE_METRIC_RESOLUTION: '2s', WINKUBE_HPA_SYNC_PERIOD: '2s', WINKUBE_HPA_DOWNSCALE_STABILIZATION: '12s' });
    cluster = await startCluster(undefined, ['--metrics-server']);
  });
  after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

  test('kubectl autoscale: out under load to maxReplicas, back in after the stabilization window', async () => {
    await ok(['apply', '-f', '-'], LINUX);
    assert.equal(await ok(['autoscale', 'deployment', 'hog', '--cpu-percent=50', '--min=1', '--max=4']), 'horizontalpodautoscaler.autoscaling/hog autoscaled\n');
    const first = await eventually('first rescale', async () => {
      const e = await events('hog');
      return e.some((l) => l.startsWith('SuccessfulRescale')) ? e : undefined;
    }, 60_000);
    // One pod at 300m of 100m: 300 % against 50 %, six times the one replica, at most 4 (max(2 × 1, 4)) in one step.
    assert.equal(first.find((l) => l.startsWith('SuccessfulRescale')), 'SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target');
    const limited = await eventually('at maxReplicas', async () => {
      const h = await hpa('hog');
      const c = h.status?.conditions?.find((x) => x.type === 'ScalingLimited');
      return h.status?.currentReplicas === 4 && c?.status === 'True' ? h : undefined;
    }, 60_000);
    assert.deepEqual(limited.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [
      ['AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size'],
      ['ScalingActive', 'True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)'],
      ['ScalingLimited', 'True', 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'],
    ]);
    const table = (await ok(['get', 'hpa', 'hog'])).trimEnd().split('\n');
    assert.match(table[0]!, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    assert.match(table[1]!, /^hog\s+Deployment\/hog\s+cpu: \d+%\/50%\s+1\s+4\s+4\s+\d+s$/);
    const describe = await ok(['describe', 'hpa', 'hog']);
    assert.match(describe, /Conditions:\n {2}Type {12}Status {2}Reason {12}Message\n {2}---- {12}------ {2}------ {12}-------\n {2}AbleToScale {5}True {4}ReadyForNewScale {2}recommended size matches current size\n/);
    assert.match(describe, /Normal +SuccessfulRescale +\S+ +horizontal-pod-autoscaler +New size: 4; reason: cpu resource utilization \(percentage of request\) above target\n/);
    // After 40 s each pod falls to 10m (10 %): one replica is enough, once the 12 s window has no higher recommendation.
    await eventually('scaled back in', async () => ((await hpa('hog')).status?.currentReplicas === 1 ? true : undefined), 120_000);
    assert.ok((await events('hog')).includes('SuccessfulRescale: New size: 1; reason: All metrics below target'));
    assert.equal(await ok(['get', 'deployment', 'hog', '-o', 'jsonpath={.spec.replicas}']), '1');
  });

  test('a Windows Deployment: usage capped by CpuMaximum (500m of a 250m request: 200 %) scales it to 2', async () => {
    await ok(['apply', '-f', '-'], WINDOWS + '---\n' + WINDOWS_HPA);
    const rescale = await eventually('windows rescale', async () => (await events('winhog')).find((l) => l.startsWith('SuccessfulRescale')), 90_000);
    assert.equal(rescale, 'SuccessfulRescale: New size: 2; reason: cpu resource utilization (percentage of request) above target');
    const r = await kubectl(cluster, ['get', 'hpa', 'winhog', '-o', 'jsonpath={.status.currentMetrics[0].resource.current.averageUtilization}']);
    assert.equal(r.stdout, '200');
  });

  test('a container without a CPU request: FailedGetResourceMetric, ScalingActive False', async () => {
    await ok(['apply', '-f', '-'], deployment('nometrics', 'linux', 'busybox', '{}', '{}'));
    await ok(['autoscale', 'deployment', 'nometrics', '--cpu-percent=50', '--max=3']);
    // The container has no CPU request: once its metrics arrive, the ratio cannot be computed.
    const c = await eventually('missing request', async () => (await hpa('nometrics')).status?.conditions
      ?.find((x) => x.type === 'ScalingActive' && x.status === 'False' && x.message.includes('missing request')), 60_000);
    assert.equal(c.reason, 'FailedGetResourceMetric');
    assert.match(c.message, /^the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod nometrics-[a-z0-9]+-[a-z0-9]{5}$/);
    // The sync writes its events beside the status: wait for both.
    const e = await eventually('the metrics events', async () => {
      const all = (await events('nometrics')).join('\n');
      return /^FailedGetResourceMetric: /m.test(all) && /^FailedComputeMetricsReplicas: /m.test(all) ? all : undefined;
    });
    assert.match(e, /^FailedGetResourceMetric: failed to get cpu utilization: missing request for cpu in container app of Pod nometrics-[a-z0-9]+-[a-z0-9]{5}$/m);
    assert.match(e, /^FailedComputeMetricsReplicas: invalid metrics \(1 invalid out of 1\), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container app of Pod nometrics-[a-z0-9]+-[a-z0-9]{5}$/m);
  });

  test('a custom resource with a scale subresource is scaled through it', async () => {
    await ok(['apply', '-f', '-'], WEBAPP_CRD);
    await eventually('WebApp served', async () => ((await kubectl(cluster, ['get', 'webapps'])).code === 0 ? true : undefined), 30_000);
    // The pods the WebApp's selector picks: one, at 300m of a 100m request (300 % against 50 %).
    await ok(['apply', '-f', '-'], deployment('crhog', 'linux', 'busybox', '{"app": {"cpu": "300m"}}', '{requests: {cpu: 100m}}') + '---\n' + WEBAPP + '---\n' + WEBAPP_HPA);
    const rescale = await eventually('WebApp rescaled', async () => (await events('crhog')).find((l) => l.startsWith('SuccessfulRescale')), 90_000);
    // Six times the one pod, at most max(2 × 1, 4), and at most maxReplicas 3.
    assert.equal(rescale, 'SuccessfulRescale: New size: 3; reason: cpu resource utilization (percentage of request) above target');
    assert.equal(await ok(['get', 'webapp', 'crhog', '-o', 'jsonpath={.spec.replicas}']), '3');
    assert.equal(await ok(['get', 'webapp', 'crhog', '--subresource=scale', '-o', 'jsonpath={.spec.replicas} {.status.selector}']), '3 app=crhog');
    // REPLICAS is the count the HPA read before it scaled: 3 from the next sync on.
    const row = await eventually('REPLICAS 3', async () => {
      const r = (await ok(['get', 'hpa', 'crhog'])).split('\n')[1]!;
      return /\s3\s+\d+s$/.test(r) ? r : undefined;
    }, 30_000);
    assert.match(row, /^crhog {3}WebApp\/crhog {3}cpu: \d+%\/50% {3}1 {9}3 {9}3 {10}\d+s$/);
  });

  test('a target that is not there, or of a kind not served: FailedGetScale, AbleToScale False', async () => {
    // kubectl autoscale would refuse a missing target itself: the HPA is applied as it is.
    await ok(['apply', '-f', '-'], WEBAPP_HPA.replace('name: crhog}', 'name: missing}').replace('apiVersion: example.com/v1, kind: WebApp, name: crhog', 'apiVersion: apps/v1, kind: Deployment, name: missing'));
    const able = async (name: string) => eventually(`${name}: AbleToScale False`, async () => (await hpa(name)).status?.conditions
      ?.find((x) => x.type === 'AbleToScale' && x.status === 'False'), 30_000);
    const c = await able('missing');
    assert.deepEqual([c.reason, c.message], ['FailedGetScale', 'the HPA controller was unable to get the target\'s current scale: deployments.apps "missing" not found']);
    // The sync writes its event beside the status: wait for it.
    await eventually('the FailedGetScale event', async () => ((await events('missing')).includes('FailedGetScale: deployments.apps "missing" not found') ? true : undefined));
    await ok(['apply', '-f', '-'], WEBAPP_HPA.replace('name: crhog}', 'name: nokind}').replace('kind: WebApp', 'kind: Gadget'));
    const k = await able('nokind');
    assert.deepEqual([k.reason, k.message], ['FailedGetScale', 'the HPA controller was unable to get the target\'s current scale: no matches for kind "Gadget" in group "example.com"']);
  });
});
