import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goTypes } from '../../src/openapi/go-types.js';
import { exceededDepthAt, goDecode, goDecodeError, normalizeDecoded, overflowingNumber } from '../../src/openapi/go-decode.js';

const kind = (group: string, version: string, k: string) => {
  const t = goTypes().forKind(group, version, k);
  assert.ok(t, k);
  return t;
};
const configMap = kind('', 'v1', 'ConfigMap');
const deployment = kind('apps', 'v1', 'Deployment');
const pod = kind('', 'v1', 'Pod');

test('Go type names come from the Go sources: named strings, types.UID, named maps, []byte', () => {
  assert.equal(deployment.field('spec')!.name, 'v1.DeploymentSpec');
  assert.equal(deployment.field('spec')!.structName, 'DeploymentSpec');
  const container = pod.field('spec')!.field('containers')!;
  assert.equal(container.name, '[]v1.Container');
  assert.equal(container.elem.name, 'v1.Container');
  assert.equal(container.elem.field('imagePullPolicy')!.name, 'v1.PullPolicy');
  assert.equal(container.elem.field('resources')!.field('limits')!.name, 'v1.ResourceList');
  assert.equal(container.elem.field('resources')!.field('limits')!.elem.kind, 'quantity');
  assert.equal(configMap.field('metadata')!.field('uid')!.name, 'types.UID');
  assert.equal(configMap.field('binaryData')!.elem.name, '[]uint8');
});

test('integers: ParseInt of the literal, within the type', () => {
  const replicas = (lit: string) => goDecodeError(`{"spec":{"replicas":${lit}}}`, deployment);
  for (const ok of ['0', '-0', '2147483647', '-2147483648']) assert.equal(replicas(ok), undefined, ok);
  for (const bad of ['2147483648', '-2147483649', '1.0', '1e3', '1E3', '1.5', '99999999999999999999999']) {
    assert.equal(replicas(bad), `json: cannot unmarshal number ${bad} into Go struct field DeploymentSpec.spec.replicas of type int32`, bad);
  }
  const generation = (lit: string) => goDecodeError(`{"metadata":{"generation":${lit}}}`, configMap);
  assert.equal(generation('9223372036854775807'), undefined);
  assert.equal(generation('-9223372036854775808'), undefined);
  assert.match(generation('9223372036854775808')!, /number 9223372036854775808 into Go struct field ObjectMeta\.metadata\.generation of type int64$/);
});

test('the first type error is kept and the decode goes on; an UnmarshalJSON error ends it and wins', () => {
  assert.equal(goDecodeError('{"immutable":1,"data":{"a":1}}', configMap), 'json: cannot unmarshal number into Go struct field ConfigMap.immutable of type bool');
  assert.equal(goDecodeError('{"immutable":1,"metadata":{"creationTimestamp":true}}', configMap), 'json: cannot unmarshal bool into Go value of type string');
  // Map keys and list indexes are not in the path; the innermost struct names the error.
  assert.equal(goDecodeError('{"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":"80"}]}]}}', pod),
    'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
});

test('null is a zero value everywhere; unknown fields and free-form values are skipped', () => {
  assert.equal(goDecodeError('{"data":null,"metadata":{"labels":{"a":null},"creationTimestamp":null},"x":{"y":[1,"2",{"z":true}]}}', configMap), undefined);
  assert.equal(goDecodeError('{"metadata":{"managedFields":[{"fieldsV1":{"f:a":[[["deep"]]]}}]}}', configMap), undefined);
});

test('normalizeDecoded: what Go keeps for nulls, and quantities past float64 as their literal', () => {
  const text = '{"metadata":{"labels":{"a":null},"name":null},"data":{"b":null}}';
  const obj = JSON.parse(text);
  const r = goDecode(text, configMap);
  assert.equal(r.error, undefined);
  normalizeDecoded(obj, configMap, r.hugeQuantities);
  assert.deepEqual(obj, { metadata: { labels: { a: '' } }, data: { b: '' } });
  const podText = '{"spec":{"containers":[{"name":"c","resources":{"limits":{"memory":1e400}}}]}}';
  const p = JSON.parse(podText);
  const pr = goDecode(podText, pod);
  assert.deepEqual([pr.error, pr.hugeQuantities], [undefined, ['1e400']]);
  normalizeDecoded(p, pod, pr.hugeQuantities);
  assert.equal(p.spec.containers[0].resources.limits.memory, '1e400');
});

test('nesting: 10000 levels are within the limit, the 10001st bracket is reported', () => {
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  assert.equal(exceededDepthAt(nested(10000)), undefined);
  assert.equal(exceededDepthAt(`{"a":${nested(10000)}}`), '[');
  assert.equal(exceededDepthAt(`{"a":"${'['.repeat(20000)}"}`), undefined, 'brackets in strings do not count');
});

test('overflowingNumber finds the first literal past float64 outside strings', () => {
  assert.equal(overflowingNumber('{"a":"1e400","b":1e308,"c":[2e400]}'), '2e400');
  assert.equal(overflowingNumber('{"a":-1e400}'), '-1e400');
  assert.equal(overflowingNumber('{"a":1e-400}'), undefined);
  assert.equal(overflowingNumber(`{"a":${'9'.repeat(400)}}`), '9'.repeat(400));
});

test('a strategic merge patch body: directive keys of maps are not values', () => {
  const body = '{"spec":{"containers":[{"name":"c","resources":{"limits":{"$patch":"replace","cpu":"1"}}}]}}';
  assert.equal(goDecode(body, pod, true).error, undefined);
  assert.match(goDecode(body, pod).error!, /^quantities must match/);
});
