import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests } from '../../src/lint/parse-manifests.js';

const at = (t: string) => parseManifests(t, 'f.yaml');

test('multi-document YAML: each object with the line its document starts on; empty documents skipped', () => {
  const r = at('---\napiVersion: v1\nkind: A\n---\n\n---\n# c\n\napiVersion: v1\nkind: B\n...\n');
  assert.deepEqual(r.manifests.map((m) => [m.obj.kind, m.source.line]), [['A', 2], ['B', 9]]);
  assert.deepEqual(r.problems, []);
});

test('JSON documents and Lists: items expanded with their own lines', () => {
  const json = at('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}');
  assert.deepEqual(json.manifests.map((m) => [m.obj.kind, m.source.line]), [['Pod', 1]]);
  const list = at('apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  apiVersion: v1\n- kind: Pod\n  apiVersion: v1\n');
  assert.deepEqual(list.manifests.map((m) => [m.obj.kind, m.source.line]), [['Service', 4], ['Pod', 6]]);
  const typed = at('apiVersion: v1\nkind: PodList\nitems:\n- kind: Pod\n');
  assert.deepEqual(typed.manifests.map((m) => [m.obj.kind, m.source.line]), [['Pod', 4]]);
});

test("Helm template output: each document keeps its '# Source:' template", () => {
  const r = at('---\n# Source: web/templates/svc.yaml\napiVersion: v1\nkind: Service\n---\n# Source: web/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\n');
  assert.deepEqual(r.manifests.map((m) => [m.obj.kind, m.source.line, m.source.helmSource]),
    [['Service', 3, 'web/templates/svc.yaml'], ['Deployment', 7, 'web/templates/deploy.yaml']]);
});

test('a document that does not parse is a problem with its line; the others are still read', () => {
  const r = at('kind: A\n---\nfoo: [\n---\nkind: B\n');
  assert.deepEqual(r.manifests.map((m) => m.obj.kind), ['A', 'B']);
  assert.equal(r.problems.length, 1);
  assert.equal(r.problems[0]?.source.line, 4);
  const scalar = at('just text\n');
  assert.deepEqual(scalar.problems.map((p) => p.message), ['a manifest must be an object, not string']);
});

test("tabs leading a quoted scalar's continuation lines are accepted, as Go's YAML accepts them", () => {
  const r = at('kind: ConfigMap\ndata:\n  script: "a\n\t    b"\n');
  assert.deepEqual(r.problems, []);
  assert.equal(r.manifests[0]?.obj.data.script, 'a b');
});
