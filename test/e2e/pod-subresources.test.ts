/**
 * POST pods/binding and pods/eviction as a client sees them on the wire:
 * the Success Status, the conflicts, and the 429 a disruption budget answers.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const NS = '/api/v1/namespaces/default';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

async function createPod(name: string, labels: Record<string, string> = {}): Promise<void> {
  const r = await rawJSON(cluster, 'POST', `${NS}/pods`, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

/** A pod bound to a node and Ready, as a budget counts it. */
async function readyPod(name: string, labels: Record<string, string>): Promise<void> {
  await createPod(name, labels);
  assert.equal((await bind(name, 'n1')).status, 201);
  const pod = (await rawJSON(cluster, 'GET', `${NS}/pods/${name}`)).body;
  pod.status.phase = 'Running';
  pod.status.conditions.push({ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' });
  const r = await rawJSON(cluster, 'PUT', `${NS}/pods/${name}/status`, pod);
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** A budget over the labels whose status (as the disruption controller would write it) allows `allowed` disruptions. */
async function budget(name: string, labels: Record<string, string>, allowed: number, observedGeneration = 1): Promise<void> {
  const r = await rawJSON(cluster, 'POST', PDBS, {
    apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: labels } },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const pdb = r.body;
  pdb.status = { observedGeneration, disruptionsAllowed: allowed, currentHealthy: 1 + allowed, desiredHealthy: 1, expectedPods: 1 + allowed,
    conditions: [{ type: 'DisruptionAllowed', status: allowed > 0 ? 'True' : 'False', reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods',
      message: '', observedGeneration, lastTransitionTime: '2026-01-01T00:00:00Z' }] };
  const s = await rawJSON(cluster, 'PUT', `${PDBS}/${name}/status`, pdb);
  assert.equal(s.status, 200, JSON.stringify(s.body));
}

function bind(pod: string, node: string) {
  return raw(cluster, 'POST', `${NS}/pods/${pod}/binding`, {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: pod }, target: { kind: 'Node', name: node } }),
  });
}

function evict(pod: string) {
  return raw(cluster, 'POST', `${NS}/pods/${pod}/eviction`, {
    body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } }),
  });
}

test('binding assigns the node and answers a Success Status with 201', async () => {
  await createPod('bind-me');
  const r = await bind('bind-me', 'node-a');
  assert.equal(r.status, 201);
  assert.equal(r.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}');
  const pod = (await rawJSON(cluster, 'GET', `${NS}/pods/bind-me`)).body;
  assert.equal(pod.spec.nodeName, 'node-a');
  assert.deepEqual(pod.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]), [['PodScheduled', 'True']]);
});

test('a second binding of a bound pod is a Conflict', async () => {
  await createPod('bound-twice');
  assert.equal((await bind('bound-twice', 'node-a')).status, 201);
  const r = await rawJSON(cluster, 'POST', `${NS}/pods/bound-twice/binding`,
    { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound-twice' }, target: { kind: 'Node', name: 'node-b' } });
  assert.equal(r.status, 409);
  assert.equal(r.body.reason, 'Conflict');
  assert.equal(r.body.message, 'Operation cannot be fulfilled on pods "bound-twice": pod bound-twice is already assigned to node "node-a"');
});

test('a binding without a target node is Invalid', async () => {
  await createPod('no-target');
  const r = await rawJSON(cluster, 'POST', `${NS}/pods/no-target/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'no-target' }, target: {} });
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'Binding "no-target" is invalid: target.name: Required value');
});

test('an eviction the budget forbids is 429 TooManyRequests with the DisruptionBudget cause', async () => {
  await readyPod('guarded', { app: 'guarded' });
  await budget('guard', { app: 'guarded' }, 0);
  const r = await evict('guarded');
  assert.equal(r.status, 429);
  assert.equal(r.headers['retry-after'], undefined);
  assert.equal(r.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
    + '"message":"Cannot evict pod as it would violate the pod\'s disruption budget.","reason":"TooManyRequests",'
    + '"details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget guard needs 1 healthy pods and has 1 currently"}]},'
    + '"code":429}');
  assert.equal((await rawJSON(cluster, 'GET', `${NS}/pods/guarded`)).status, 200);
});

test('an eviction under a budget the controller has not observed yet is 429', async () => {
  await readyPod('unobserved', { app: 'unobserved' });
  await budget('pending-guard', { app: 'unobserved' }, 1, 0);
  const r = await evict('unobserved');
  assert.equal(r.status, 429);
  assert.equal(JSON.parse(r.body).details.causes[0].message, 'The disruption budget pending-guard is still being processed by the server.');
});

test('an eviction the budget allows deletes the pod and takes the disruption', async () => {
  await readyPod('spare', { app: 'spare' });
  await budget('spare-guard', { app: 'spare' }, 1);
  const r = await evict('spare');
  assert.equal(r.status, 201);
  assert.equal(r.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}');
  const pod = (await rawJSON(cluster, 'GET', `${NS}/pods/spare`)).body;
  assert.ok(pod.metadata.deletionTimestamp, 'the bound pod is terminating');
  const pdb = (await rawJSON(cluster, 'GET', `${PDBS}/spare-guard`)).body;
  assert.equal(pdb.status.disruptionsAllowed, 0);
  assert.deepEqual(Object.keys(pdb.status.disruptedPods), ['spare']);
});
