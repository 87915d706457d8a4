import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl as run, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { allResources } from '../../src/registry/resources.js';
import { shapes } from '../../src/openapi/schema.js';
import { unknownFields } from '../../src/openapi/strict.js';

/** The oldest and newest kubectl we support (OPENAPI_KUBECTL_VERSIONS=1.29,1.31 checks others). */
const VERSIONS = process.env.OPENAPI_KUBECTL_VERSIONS?.split(',') ?? ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const deployment = (ns: string, name: string, podSpecExtra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:${podSpecExtra}
      containers:
      - name: web
        image: nginx
`;

describe('OpenAPI endpoints', () => {
  test('/openapi/v3: index, hashed documents with immutable caching, redirect on a stale hash', async () => {
    const index = await rawJSON(cluster, 'GET', '/openapi/v3');
    assert.equal(index.status, 200);
    assert.equal(index.headers['content-type'], 'application/json');
    const url = index.body.paths['apis/apps/v1'].serverRelativeURL as string;
    assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await raw(cluster, 'GET', url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers['cache-control'], 'public, immutable');
    assert.equal(doc.headers.vary, 'Accept');
    assert.ok(Date.parse(doc.headers.expires as string) > Date.now() + 300 * 24 * 3600 * 1000);
    assert.equal(doc.headers.etag, `"${url.split('hash=')[1]}"`);
    assert.ok(JSON.parse(doc.body).components.schemas['io.k8s.api.apps.v1.Deployment']);
    const again = await raw(cluster, 'GET', url, { headers: { 'If-None-Match': doc.headers.etag as string } });
    assert.equal(again.status, 304);
    const stale = await raw(cluster, 'GET', '/openapi/v3/apis/apps/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    // A recorded group version v1.32 no longer serves has no document.
    assert.equal((await raw(cluster, 'GET', '/openapi/v3/apis/flowcontrol.apiserver.k8s.io/v1beta2')).status, 404);
    const networking = JSON.parse((await raw(cluster, 'GET', '/openapi/v3/apis/networking.k8s.io/v1')).body);
    // NetworkPolicy lost its status in v1.28.
    assert.deepEqual(Object.keys(networking.components.schemas['io.k8s.api.networking.v1.NetworkPolicy'].properties), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.equal(networking.paths['/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{name}/status'], undefined);
    // Lists marked +listType=atomic since the recording.
    assert.equal(networking.components.schemas['io.k8s.api.networking.v1.NetworkPolicySpec'].properties.ingress['x-kubernetes-list-type'], 'atomic');
    assert.equal(networking.components.schemas['io.k8s.api.networking.v1.HTTPIngressRuleValue'].properties.paths['x-kubernetes-list-type'], 'atomic');
  });

  test('/openapi/v2: JSON, or gnostic protobuf for the protobuf Accept', async () => {
    const json = await rawJSON(cluster, 'GET', '/openapi/v2');
    assert.equal(json.status, 200);
    assert.equal(json.body.swagger, '2.0');
    assert.ok(json.body.definitions['io.k8s.api.core.v1.Pod']);
    for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
      const pb = await raw(cluster, 'GET', '/openapi/v2', { headers: { Accept: accept } });
      assert.equal(pb.status, 200);
      assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      assert.ok(Number(pb.headers['content-length']) > 100_000);
    }
    assert.equal((await raw(cluster, 'GET', '/openapi/v2', { headers: { Accept: 'text/html' } })).status, 406);
  });
});

for (const version of VERSIONS) {
  describe(`kubectl ${version}`, () => {
    const ns = `oa-${version.replace('.', '')}`;
    const k = (args: string[], input?: string) => run(cluster, args, { version, input });
    const ok = async (args: string[], input?: string) => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r;
    };
    const file = (name: string, text: string) => {
      const p = join(cluster.dataDir, `${ns}-${name}`);
      writeFileSync(p, text);
      return p;
    };

    test('explain pod.spec.os', async () => {
      await ok(['create', 'namespace', ns]);
      const { stdout } = await ok(['explain', 'pod.spec.os']);
      const lines = stdout.split('\n').map((l) => l.trimEnd());
      assert.equal(lines[0], 'KIND:       Pod');
      assert.equal(lines[1], 'VERSION:    v1');
      assert.ok(lines.includes('FIELD: os <PodOS>'), stdout);
      assert.ok(lines.includes('DESCRIPTION:'), stdout);
      assert.ok(lines.includes('    The operating system the pod\'s containers need.'), stdout);
      assert.ok(lines.includes('FIELDS:'), stdout);
      assert.ok(lines.includes('  name\t<string> -required-'), stdout);
      assert.ok(lines.includes('    The operating system: linux or windows.'), stdout);
    });

    test('explain deployment.spec --recursive', async () => {
      const { stdout } = await ok(['explain', 'deployment.spec', '--recursive']);
      const lines = stdout.split('\n').map((l) => l.trimEnd());
      assert.equal(lines[0], 'GROUP:      apps');
      assert.equal(lines[1], 'KIND:       Deployment');
      assert.equal(lines[2], 'VERSION:    v1');
      assert.ok(lines.includes('FIELD: spec <DeploymentSpec>'), stdout);
      for (const l of ['  replicas\t<integer>', '  selector\t<LabelSelector> -required-', '    matchLabels\t<map[string]string>',
        '  strategy\t<DeploymentStrategy>', '      maxSurge\t<IntOrString>', '  template\t<PodTemplateSpec> -required-',
        '      containers\t<[]Container> -required-', '        image\t<string>', '        restartPolicy\t<string>',
        '      os\t<PodOS>', '        name\t<string> -required-']) {
        assert.ok(lines.includes(l), `missing ${JSON.stringify(l)} in:\n${stdout}`);
      }
    });

    test('explain through /openapi/v2 (plaintext-openapiv2)', async () => {
      const { stdout } = await ok(['explain', 'pod.spec.os', '--output=plaintext-openapiv2']);
      assert.match(stdout, /^RESOURCE: os <Object>$/m);
      assert.match(stdout, /^ {3}name\t<string> -required-$/m);
    });

    test('apply -f with a typo: the server rejects it (Strict), as upstream words it', async () => {
      const f = file('typo.yaml', deployment(ns, 'typo', '\n      contaners:\n      - name: x\n        image: nginx'));
      for (const verb of ['apply', 'create']) {
        const r = await k([verb, '-f', f]);
        assert.equal(r.code, 1);
        assert.equal(r.stderr.trim(),
          `Error from server (BadRequest): error when creating "${f}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.contaners"`);
      }
      assert.equal((await k(['get', 'deployment', 'typo', '-n', ns])).code, 1);
    });

    test('--validate=warn warns and drops the field; --validate=false accepts silently', async () => {
      const f = file('warn.yaml', deployment(ns, 'warned', '\n      contaners:\n      - name: x\n        image: nginx'));
      const w = await ok(['apply', '-f', f, '--validate=warn']);
      assert.equal(w.stdout, 'deployment.apps/warned created\n');
      assert.equal(w.stderr, 'Warning: unknown field "spec.template.spec.contaners"\n');
      const spec = JSON.parse((await ok(['get', 'deployment', 'warned', '-n', ns, '-o', 'jsonpath={.spec.template.spec}'])).stdout);
      assert.equal(spec.contaners, undefined);
      assert.equal(spec.containers[0].name, 'web');
      const g = file('ignore.yaml', deployment(ns, 'ignored', '\n      contaners:\n      - name: x\n        image: nginx'));
      const i = await ok(['create', '-f', g, '--validate=false']);
      assert.equal(i.stdout, 'deployment.apps/ignored created\n');
      assert.equal(i.stderr, '');
    });

    test('apply of a typo to an existing object: 422 on the patch', async () => {
      const f = file('existing.yaml', deployment(ns, 'existing'));
      await ok(['apply', '-f', f]);
      writeFileSync(f, deployment(ns, 'existing', '\n      nodeSelectr:\n        os: linux'));
      const r = await k(['apply', '-f', f]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), 'The request is invalid: patch: Invalid value: ' +
        '"map[metadata:map[annotations:map[kubectl.kubernetes.io/last-applied-configuration:' +
        `{\\"apiVersion\\":\\"apps/v1\\",\\"kind\\":\\"Deployment\\",\\"metadata\\":{\\"annotations\\":{},\\"name\\":\\"existing\\",\\"namespace\\":\\"${ns}\\"},` +
        '\\"spec\\":{\\"replicas\\":1,\\"selector\\":{\\"matchLabels\\":{\\"app\\":\\"existing\\"}},\\"template\\":{\\"metadata\\":{\\"labels\\":{\\"app\\":\\"existing\\"}},' +
        '\\"spec\\":{\\"containers\\":[{\\"image\\":\\"nginx\\",\\"name\\":\\"web\\"}],\\"nodeSelectr\\":{\\"os\\":\\"linux\\"}}}}}\\n]] ' +
        'spec:map[template:map[spec:map[nodeSelectr:map[os:linux]]]]]": strict decoding error: unknown field "spec.template.spec.nodeSelectr"');
    });

    test('replace, diff and edit keep working with the real schema', async () => {
      const f = file('replace.yaml', deployment(ns, 'existing').replace('replicas: 1', 'replicas: 2'));
      const d = await k(['diff', '-f', f]);
      assert.equal(d.code, 1, d.stderr);
      assert.match(d.stdout, /^-  replicas: 1$/m);
      assert.match(d.stdout, /^\+  replicas: 2$/m);
      assert.equal((await ok(['replace', '-f', f])).stdout, 'deployment.apps/existing replaced\n');
      const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/replicas: 2/replicas: 3/" "$1"\n');
      chmodSync(editor, 0o755);
      const e = await run(cluster, ['edit', 'deployment', 'existing', '-n', ns], { version, env: { KUBE_EDITOR: editor } });
      assert.equal(e.code, 0, e.stderr);
      assert.equal(e.stdout, 'deployment.apps/existing edited\n');
      assert.equal((await ok(['get', 'deployment', 'existing', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).stdout, '3');
    });
  });
}

test('every object the server holds fits the served schema (no unknown fields)', async () => {
  let checked = 0;
  for (const d of allResources()) {
    if (d.verbs && !d.verbs.includes('list')) continue;
    const path = d.group ? `/apis/${d.group}/${d.version}/${d.resource}` : `/api/${d.version}/${d.resource}`;
    const list = await rawJSON(cluster, 'GET', path);
    assert.equal(list.status, 200, path);
    const node = shapes().forKind(d.group, d.version, d.kind);
    assert.ok(node, `no schema for ${d.kind}`);
    for (const item of list.body.items) {
      checked++;
      assert.deepEqual(unknownFields(item, node, { sortKeys: false, mapKeysInPath: true }).map((u) => u.path), [],
        `${d.resource}/${item.metadata.name}`);
    }
  }
  assert.ok(checked > 10);
});
