import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, applyStrategicMergePatch, PatchError, patchErrorStatus, patchSchemaFor } from '../../src/patch/index.js';
import type { Json, JsonObject } from '../../src/patch/json.js';

const SMP = 'application/strategic-merge-patch+json';
const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD = { group: '', version: 'v1', kind: 'Pod' };
const deploymentSchema = patchSchemaFor('apps', 'v1', 'Deployment');
const podSchema = patchSchemaFor('', 'v1', 'Pod');

const smp = (original: JsonObject, patch: Json) => applyStrategicMergePatch(original, patch, deploymentSchema);
const podSmp = (original: JsonObject, patch: Json) => applyStrategicMergePatch(original, patch, podSchema);

function failure(f: () => unknown): PatchError {
  try { f(); } catch (e) {
    assert.ok(e instanceof PatchError, `expected PatchError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the patch to fail');
}

/** The patch-demo Deployment of "Update API Objects in Place Using kubectl patch". */
const patchDemo = (): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'patch-demo' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { labels: { app: 'nginx' } },
      spec: {
        containers: [{ name: 'patch-demo-ctr', image: 'nginx' }],
        tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }],
      },
    },
  },
});

const containers = (o: JsonObject) => ((o['spec'] as JsonObject)['template'] as JsonObject)['spec'] as JsonObject;

test('smp: containers are merged by name; new items go before live-only ones (kubectl patch docs)', () => {
  const doc = patchDemo();
  const out = smp(doc, { spec: { template: { spec: { containers: [{ name: 'patch-demo-ctr-2', image: 'redis' }] } } } });
  assert.deepEqual(containers(out)['containers'], [
    { name: 'patch-demo-ctr-2', image: 'redis' },
    { name: 'patch-demo-ctr', image: 'nginx' },
  ]);
  assert.deepEqual(doc, patchDemo(), 'input is not mutated');
});

test('smp: tolerations have no patch strategy and are replaced atomically (kubectl patch docs)', () => {
  const out = smp(patchDemo(), { spec: { template: { spec: { tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] } } } });
  assert.deepEqual(containers(out)['tolerations'], [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }]);
  assert.deepEqual(containers(out)['containers'], [{ name: 'patch-demo-ctr', image: 'nginx' }]);
});

test('smp: $retainKeys clears fields of the deployment strategy (kubectl patch docs)', () => {
  const doc: JsonObject = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '30%' } } } };
  assert.deepEqual(smp(doc, { spec: { strategy: { type: 'Recreate' } } }),
    { spec: { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: '30%' } } } });
  assert.deepEqual(smp(doc, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }),
    { spec: { strategy: { type: 'Recreate' } } });
});

test('smp: $retainKeys on a volume (merge,retainKeys) swaps the volume source', () => {
  const pod: JsonObject = { spec: { volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }] } };
  const out = podSmp(pod, { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'secret'], secret: { secretName: 's' } }] } });
  assert.deepEqual(out, { spec: { volumes: [{ name: 'v', secret: { secretName: 's' } }, { name: 'w', emptyDir: {} }] } });
});

test('smp: $patch: delete removes a container, $patch: replace replaces a list or map', () => {
  const pod: JsonObject = {
    metadata: { labels: { a: '1', b: '2' } },
    spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] },
  };
  assert.deepEqual(podSmp(pod, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } })['spec'],
    { containers: [{ name: 'b', image: 'y' }] });
  assert.deepEqual(podSmp(pod, { spec: { containers: [{ $patch: 'replace' }, { name: 'c', image: 'z' }] } })['spec'],
    { containers: [{ name: 'c', image: 'z' }] });
  assert.deepEqual(podSmp(pod, { metadata: { labels: { $patch: 'replace', c: '3' } } })['metadata'], { labels: { c: '3' } });
  assert.deepEqual(podSmp(pod, { metadata: { labels: { $patch: 'delete' } } })['metadata'], { labels: {} });
});

test('smp: null deletes map keys; other maps merge', () => {
  const out = smp({ metadata: { labels: { a: '1', b: '2' }, annotations: { x: 'y' } }, spec: { replicas: 3, paused: true } },
    { metadata: { labels: { a: null, c: '3' }, annotations: null }, spec: { paused: null, minReadySeconds: 5 } });
  assert.deepEqual(out, { metadata: { labels: { b: '2', c: '3' } }, spec: { replicas: 3, minReadySeconds: 5 } });
});

test('smp: finalizers (merge, primitives) are set-unioned; $deleteFromPrimitiveList removes', () => {
  const doc: JsonObject = { metadata: { finalizers: ['a', 'b'] } };
  assert.deepEqual(smp(doc, { metadata: { finalizers: ['c', 'a'] } }), { metadata: { finalizers: ['c', 'a', 'b'] } });
  assert.deepEqual(smp(doc, { metadata: { '$setElementOrder/finalizers': ['a', 'b', 'c'], finalizers: ['c'] } }),
    { metadata: { finalizers: ['a', 'b', 'c'] } });
  assert.deepEqual(smp(doc, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), { metadata: { finalizers: ['b'] } });
  assert.deepEqual(smp(doc, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], finalizers: ['z'] } }),
    { metadata: { finalizers: ['z', 'b'] } });
  assert.deepEqual(smp({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), { metadata: {} });
});

test('smp: ownerReferences merge by uid; env merges by name inside a merged container', () => {
  const pod: JsonObject = {
    metadata: { ownerReferences: [{ uid: '1', name: 'rs', kind: 'ReplicaSet' }] },
    spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }] },
  };
  const out = podSmp(pod, {
    metadata: { ownerReferences: [{ uid: '1', controller: true }] },
    spec: { containers: [{ name: 'c', env: [{ name: 'B', value: 'x' }, { name: 'C', value: '3' }] }] },
  });
  assert.deepEqual(out, {
    metadata: { ownerReferences: [{ uid: '1', name: 'rs', kind: 'ReplicaSet', controller: true }] },
    spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }, { name: 'B', value: 'x' }, { name: 'C', value: '3' }] }] },
  });
});

test("smp: kubectl apply's Deployment patch against a stored Deployment", () => {
  const stored: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', generation: 1,
      annotations: { 'deployment.kubernetes.io/revision': '1', 'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}\n' },
      labels: { app: 'web' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [{
            name: 'web', image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent', resources: {},
            terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
          }],
          dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler',
          securityContext: {}, terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: { observedGeneration: 1, replicas: 1 },
  };
  const body = '{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"new\\":true}\\n"}},'
    + '"spec":{"replicas":2,"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],'
    + '"containers":[{"env":[{"name":"A","value":"1"}],"image":"nginx:1.26","name":"web"}]}}}}';
  const before = structuredClone(stored);
  const out = applyPatch(SMP, stored, body, DEPLOYMENT) as JsonObject;
  const want = structuredClone(before) as any;
  want.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] = '{"new":true}\n';
  want.spec.replicas = 2;
  want.spec.template.spec.containers[0].image = 'nginx:1.26';
  want.spec.template.spec.containers[0].env = [{ name: 'A', value: '1' }];
  assert.deepEqual(out, want);
  assert.deepEqual(stored, before);
  assert.ok(!JSON.stringify(out).includes('$setElementOrder'));
});

test('smp: kubectl apply removing a container while a server-only one exists keeps upstream order', () => {
  const pod: JsonObject = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'x' }, { name: 'c' }] } };
  const out = podSmp(pod, {
    spec: {
      '$setElementOrder/containers': [{ name: 'a' }, { name: 'd' }, { name: 'c' }],
      containers: [{ name: 'd', image: 'd' }, { name: 'b', $patch: 'delete' }],
    },
  });
  // Go's append reuses the slot freed by the deletion, which moves "x" ahead of "d".
  assert.deepEqual(out, { spec: { containers: [{ name: 'a' }, { name: 'x' }, { name: 'd', image: 'd' }, { name: 'c' }] } });
});

test('smp: values new to the object lose nulls and directives', () => {
  const out = podSmp({ spec: {} }, {
    spec: { containers: [{ name: 'a', resources: null, $patch: 'delete' }, { name: 'b', args: null, '$setElementOrder/env': [] }] },
    metadata: { labels: { $patch: 'replace', x: 'y' } },
  });
  assert.deepEqual(out, { spec: { containers: [{ name: 'b' }] }, metadata: {} });
});

test('smp: unknown kinds have no strategies: lists are replaced, directives still apply', () => {
  const schema = patchSchemaFor('example.com', 'v1', 'Widget');
  const out = applyStrategicMergePatch(
    { spec: { items: [{ name: 'a' }], keep: { x: 1, y: 2 } } },
    { spec: { items: [{ name: 'b' }], keep: { $retainKeys: ['x'], x: 3 } } }, schema);
  assert.deepEqual(out, { spec: { items: [{ name: 'b' }], keep: { x: 3 } } });
});

test('smp: upstream errors and the Status the apiserver answers them with', () => {
  const pod: JsonObject = { spec: { containers: [{ name: 'a' }] } };
  const cases: [Json, number, string, string][] = [
    [{ spec: { containers: [{ image: 'nginx' }] } }, 500, '', 'map: map[image:nginx] does not contain declared merge key: name'],
    [{ spec: { $retainKeys: 'x' } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
    [{ spec: { $retainKeys: ['x'], containers: [] } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
    [{ spec: { '$setElementOrderX/containers': [] } }, 400, 'BadRequest', 'invalid patch format of setElementOrder list'],
    [{ spec: { '$deleteFromPrimitiveListX': [] } }, 400, 'BadRequest', 'invalid patch format of primitive list'],
    [{ spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b' }] } }, 500, '',
      'The order in patch list:\n[map[name:b]]\n doesn\'t match $setElementOrder list:\n[map[name:a]]\n'],
    [{ spec: { '$setElementOrder/containers': 'a' } }, 500, '', 'expected a []interface {}, but received a string'],
    [{ spec: { $patch: 'merge', a: 'b' } }, 500, '', 'unknown patch type: merge in map: map[$patch:merge a:b]'],
    [{ spec: { containers: [{ name: 'a', $patch: 'merge' }] } }, 500, '', 'merging lists cannot yet be specified in the patch'],
    [{ spec: { containers: [{ name: 'a', $patch: 'bogus' }] } }, 500, '', 'unknown patch type: bogus in map: map[$patch:bogus name:a]'],
    [{ spec: { containers: ['a'] } }, 500, '', 'list element types are not identical: [[map[name:a]] [a]]'],
  ];
  for (const [patch, code, reason, message] of cases) {
    const s = patchErrorStatus(failure(() => podSmp(pod, patch)));
    assert.deepEqual([s.code, s.reason, s.message], [code, reason, message], JSON.stringify(patch));
  }
  const lists = patchErrorStatus(failure(() => podSmp({ spec: { containers: [] } }, { spec: { containers: [[1]] } })));
  assert.deepEqual([lists.code, lists.reason], [422, 'Invalid']);
});

test('smp: malformed bodies are 400s with Go encoding/json text', () => {
  const cases: [string, string][] = [
    ['{"spec":', 'unexpected end of JSON input'],
    ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['{"a":"\t"}', "invalid character '\\t' in string literal"],
  ];
  for (const [body, message] of cases) {
    const s = patchErrorStatus(failure(() => applyPatch(SMP, { a: 1 }, body, POD)));
    assert.deepEqual(s, { code: 400, reason: 'BadRequest', message });
  }
  assert.deepEqual(applyPatch(SMP, { a: 1 }, 'null', POD), { a: 1 });
});
