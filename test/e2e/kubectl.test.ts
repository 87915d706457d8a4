import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, kubectl as run, kubectlRunning, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** The oldest and newest kubectl we support, each driving the same scenarios. */
const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;

before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

for (const version of VERSIONS) {
  describe(`kubectl ${version}`, () => {
    const ns = `e2e-${version.replace('.', '')}`;
    const k = async (args: string[], input?: string, env?: Record<string, string>) => run(cluster, args, { version, input, env });
    const ok = async (args: string[], input?: string, env?: Record<string, string>) => {
      const r = await k(args, input, env);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    // kubectl 1.32+ sends `create <generator>` bodies as protobuf (a later change); manifests go as JSON.
    const configMap = (name: string, data: Record<string, string> = {}) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });
    const file = (name: string, text: string) => {
      const p = join(cluster.dataDir, `${ns}-${name}`);
      writeFileSync(p, text);
      return p;
    };

    test('version, api-versions, api-resources', async () => {
      const v = JSON.parse(await ok(['version', '-o', 'json']));
      assert.equal(v.serverVersion.gitVersion, 'v1.32.0');
      assert.equal(v.serverVersion.major, '1');
      assert.equal(v.serverVersion.minor, '32');
      const versions = (await ok(['api-versions'])).split('\n');
      for (const gv of ['v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', 'autoscaling/v1', 'policy/v1', 'node.k8s.io/v1',
        'scheduling.k8s.io/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1']) {
        assert.ok(versions.includes(gv), `api-versions lacks ${gv}`);
      }
      const resources = await ok(['api-resources', '--no-headers']);
      assert.match(resources, /^pods\s+po\s+v1\s+true\s+Pod$/m);
      assert.match(resources, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
      assert.match(resources, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      assert.match(resources, /^priorityclasses\s+pc\s+scheduling.k8s.io\/v1\s+false\s+PriorityClass$/m);
    });

    test('system namespaces and priority classes exist at start', async () => {
      const names = (await ok(['get', 'namespaces', '-o', 'name'])).trim().split('\n');
      for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(`namespace/${n}`));
      const pcs = await ok(['get', 'priorityclasses', '--no-headers']);
      assert.match(pcs, /^system-cluster-critical\s+2000000000\s+false\s/m);
      assert.match(pcs, /^system-node-critical\s+2000001000\s+false\s/m);
    });

    test('create -f, get as table, wide, yaml, json, jsonpath, custom-columns', async () => {
      assert.equal(await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })), `namespace/${ns} created\n`);
      const cm = file('cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${ns}\n  labels:\n    app: web\ndata:\n  LOG_LEVEL: info\n  MODE: fast\n`);
      assert.equal(await ok(['create', '-f', cm]), 'configmap/settings created\n');
      const r = await k(['create', '-f', cm]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), `Error from server (AlreadyExists): error when creating "${cm}": configmaps "settings" already exists`);
      const table = await ok(['get', 'configmaps', '-n', ns]);
      const lines = table.trim().split('\n');
      assert.match(lines[0] ?? '', /^NAME\s+DATA\s+AGE$/);
      assert.ok(lines.some((l) => /^settings\s+2\s+\d+s$/.test(l)), table);
      assert.ok(lines.some((l) => /^kube-root-ca.crt\s+1\s+\d+s$/.test(l)), table);
      const y = await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'yaml']);
      assert.match(y, /^  LOG_LEVEL: info$/m);
      assert.match(y, /^  resourceVersion: "\d+"$/m);
      assert.match(y, /^  uid: [0-9a-f-]{36}$/m);
      const j = JSON.parse(await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'json']));
      assert.equal(j.kind, 'ConfigMap');
      assert.equal(j.metadata.namespace, ns);
      assert.match(j.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.data.MODE}']), 'fast');
      const cc = await ok(['get', 'cm', '-n', ns, '-l', 'app=web', '-o', 'custom-columns=NAME:.metadata.name,LEVEL:.data.LOG_LEVEL']);
      assert.equal(cc, 'NAME       LEVEL\nsettings   info\n');
    });

    test('pods: table columns, -o wide, --show-labels, -l, --field-selector, -A', async () => {
      // A pod for a scheduler that does not run stays Pending, so the columns below hold still.
      const pod = file('pod.yaml', `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: ${ns}\n  labels:\n    app: web\nspec:\n  schedulerName: not-running\n  containers:\n  - name: nginx\n    image: nginx:1.25\n`);
      assert.equal(await ok(['apply', '-f', pod]), 'pod/web created\n');
      const t = (await ok(['get', 'pods', '-n', ns])).trim().split('\n');
      assert.match(t[0] ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      assert.match(t[1] ?? '', /^web\s+0\/1\s+Pending\s+0\s+\d+s$/);
      const wide = (await ok(['get', 'pods', '-n', ns, '-o', 'wide'])).trim().split('\n');
      assert.match(wide[0] ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
      assert.match(wide[1] ?? '', /^web\s+0\/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>$/);
      assert.match(await ok(['get', 'pods', '-n', ns, '--show-labels']), /^web\s+0\/1\s+Pending\s+0\s+\d+s\s+app=web$/m);
      assert.equal(await ok(['get', 'pods', '-n', ns, '-l', 'app in (db)', '-o', 'name']), '');
      assert.equal(await ok(['get', 'pods', '-n', ns, '-l', 'app in (web,db)', '-o', 'name']), 'pod/web\n');
      assert.equal(await ok(['get', 'pods', '-n', ns, '--field-selector', 'status.phase=Pending', '-o', 'name']), 'pod/web\n');
      assert.equal(await ok(['get', 'pods', '-n', ns, '--field-selector', 'status.phase!=Pending', '-o', 'name']), '');
      const bad = await k(['get', 'pods', '-n', ns, '--field-selector', 'spec.bogus=1']);
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr.trim(), 'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.bogus=1": field label not supported: spec.bogus');
      const all = await ok(['get', 'pods', '-A']);
      assert.match(all, /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
      assert.match(all, new RegExp(`^${ns}\\s+web\\s+0/1\\s+Pending\\s+0\\s+\\d+s$`, 'm'));
      const p = JSON.parse(await ok(['get', 'pod', 'web', '-n', ns, '-o', 'json']));
      assert.equal(p.spec.serviceAccountName, 'default');
      assert.deepEqual(p.spec.securityContext, {});
      assert.equal(p.status.qosClass, 'BestEffort');
    });

    test('apply again: unchanged, then a removed key disappears', async () => {
      const v1 = file('apply.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: ${ns}\ndata:\n  a: "1"\n  b: "2"\n`);
      assert.equal(await ok(['apply', '-f', v1]), 'configmap/applied created\n');
      assert.equal(await ok(['apply', '-f', v1]), 'configmap/applied unchanged\n');
      const v2 = file('apply.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: ${ns}\ndata:\n  a: "10"\n`);
      assert.equal(await ok(['apply', '-f', v2]), 'configmap/applied configured\n');
      const j = JSON.parse(await ok(['get', 'cm', 'applied', '-n', ns, '-o', 'json']));
      assert.deepEqual(j.data, { a: '10' });
    });

    test('client-side apply of a Deployment: a changed file (env var removed, containers reordered, replicas) re-applied', async () => {
      const manifest = (replicas: number, containers: object[]) => JSON.stringify({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'csa', namespace: ns },
        spec: { replicas, selector: { matchLabels: { app: 'csa' } }, template: { metadata: { labels: { app: 'csa' } }, spec: { terminationGracePeriodSeconds: 1, containers } } },
      });
      const web = { name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] };
      const side = { name: 'side', image: 'busybox:1.36', command: ['sleep', '3600'] };
      assert.equal(await ok(['apply', '-f', file('csa.json', manifest(1, [web, side]))]), 'deployment.apps/csa created\n');
      const changed = manifest(3, [side, { ...web, image: 'nginx:1.26', env: [{ name: 'B', value: '2' }] }]);
      assert.equal(await ok(['apply', '-f', file('csa.json', changed)]), 'deployment.apps/csa configured\n');
      const d = JSON.parse(await ok(['get', 'deploy', 'csa', '-n', ns, '-o', 'json']));
      assert.equal(d.spec.replicas, 3);
      assert.deepEqual(d.spec.template.spec.containers.map((c: { name: string }) => c.name), ['side', 'web']);
      const w = d.spec.template.spec.containers[1];
      assert.equal(w.image, 'nginx:1.26');
      assert.deepEqual(w.env, [{ name: 'B', value: '2' }]);
      assert.equal(w.imagePullPolicy, 'IfNotPresent');
      assert.equal(d.metadata.generation, 2);
      assert.equal(await ok(['apply', '-f', file('csa.json', changed)]), 'deployment.apps/csa unchanged\n');
    });

    test('replace, stale replace conflicts', async () => {
      const j = JSON.parse(await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'json']));
      j.data.MODE = 'slow';
      const f = file('replace.json', JSON.stringify(j));
      assert.equal(await ok(['replace', '-f', f]), 'configmap/settings replaced\n');
      const r = await k(['replace', '-f', f]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), `Error from server (Conflict): error when replacing "${f}": Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again`);
    });

    test('label, annotate, patch (strategic, merge, json)', async () => {
      assert.equal(await ok(['label', 'cm', 'settings', '-n', ns, 'tier=backend']), 'configmap/settings labeled\n');
      // kubectl 1.27 words this "annotate"; the verb is kubectl's own.
      assert.match(await ok(['annotate', 'cm', 'settings', '-n', ns, 'note=hello']), /^configmap\/settings annotated?\n$/);
      assert.equal(await ok(['label', 'cm', 'settings', '-n', ns, 'tier-']), 'configmap/settings unlabeled\n');
      assert.equal(await ok(['patch', 'cm', 'settings', '-n', ns, '-p', '{"data":{"EXTRA":"1"}}']), 'configmap/settings patched\n');
      assert.equal(await ok(['patch', 'cm', 'settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"MODE":null}}']), 'configmap/settings patched\n');
      assert.equal(await ok(['patch', 'cm', 'settings', '-n', ns, '--type', 'json', '-p', '[{"op":"replace","path":"/data/LOG_LEVEL","value":"debug"}]']), 'configmap/settings patched\n');
      const j = JSON.parse(await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'json']));
      assert.deepEqual(j.data, { LOG_LEVEL: 'debug', EXTRA: '1' });
      assert.deepEqual(j.metadata.labels, { app: 'web' });
      assert.equal(j.metadata.annotations.note, 'hello');
      const bad = await k(['patch', 'cm', 'settings', '-n', ns, '--type', 'json', '-p', '[{"op":"test","path":"/data/LOG_LEVEL","value":"info"}]']);
      assert.equal(bad.code, 1);
      // Upstream answers a failed JSON patch test with a bare 422, which kubectl prints like this.
      assert.equal(bad.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
    });

    test('edit through a scripted editor', async () => {
      const editor = join(cluster.dataDir, `${ns}-editor.sh`);
      writeFileSync(editor, '#!/bin/sh\nsed -i "s/LOG_LEVEL: debug/LOG_LEVEL: warn/" "$1"\n');
      chmodSync(editor, 0o755);
      assert.equal(await ok(['edit', 'cm', 'settings', '-n', ns], undefined, { KUBE_EDITOR: editor }), 'configmap/settings edited\n');
      assert.equal(await ok(['get', 'cm', 'settings', '-n', ns, '-o', 'jsonpath={.data.LOG_LEVEL}']), 'warn');
    });

    test('describe', async () => {
      const d = await ok(['describe', 'cm', 'settings', '-n', ns]);
      assert.match(d, /^Name:\s+settings$/m);
      assert.match(d, new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
      assert.match(d, /^Labels:\s+app=web$/m);
      const p = await ok(['describe', 'pod', 'web', '-n', ns]);
      assert.match(p, /^Status:\s+Pending$/m);
      assert.match(p, /^QoS Class:\s+BestEffort$/m);
      assert.match(p, /^\s+Image:\s+nginx:1.25$/m);
    });

    test('--dry-run=server stores nothing', async () => {
      const out = await ok(['create', '-f', '-', '--dry-run=server', '-o', 'name'], configMap('dry', { a: 'b' }));
      assert.equal(out, 'configmap/dry\n');
      const r = await k(['get', 'cm', 'dry', '-n', ns]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), 'Error from server (NotFound): configmaps "dry" not found');
    });

    test('get -w prints changes as they happen', async () => {
      const watcher = kubectlRunning(cluster, ['get', 'cm', '-n', ns, '-w', '-l', 'watch=me'], { version });
      try {
        await new Promise((r) => setTimeout(r, 1200));
        await ok(['create', '-f', '-'], configMap('watched', { x: 'y' }));
        await ok(['label', 'cm', 'watched', '-n', ns, 'watch=me']);
        // Read until the change is printed (a loaded machine prints it later), then stop the watch.
        await eventually('the watch to print the labelled ConfigMap', async () => (/^watched\s/m.test(watcher.out()) ? true : undefined));
      } finally {
        await watcher.stop();
      }
      const out = watcher.out();
      assert.match(out, /^NAME\s+DATA\s+AGE$/m);
      assert.match(out, /^watched\s+1\s+\d+s$/m);
    });

    test('delete: grace period, cascade, wait --for=delete', async () => {
      assert.equal(await ok(['delete', 'pod', 'web', '-n', ns, '--grace-period=0', '--force']).then((s) => s.split('\n').filter((l) => !l.startsWith('Warning')).join('\n')), 'pod "web" force deleted\n');
      assert.equal(await ok(['delete', 'cm', 'applied', '-n', ns, '--cascade=foreground']), 'configmap "applied" deleted\n');
      assert.equal((await k(['get', 'cm', 'applied', '-n', ns])).code, 1);
      assert.equal(await ok(['delete', 'cm', 'settings', '-n', ns, '--cascade=orphan', '--wait=false']), 'configmap "settings" deleted\n');
      await ok(['create', '-f', '-'], configMap('gone-soon'));
      // -v=6 logs each request once answered (1.33 as `"Response" verb="GET" url="…" status="200 OK"`): delete only
      // once the wait is watching, or it would find nothing to wait for.
      const waiting = kubectlRunning(cluster, ['wait', '--for=delete', 'cm/gone-soon', '-n', ns, '--timeout=60s', '-v=6'], { version });
      await eventually('kubectl wait to watch', async () => (/[?&]watch=true"? (status=")?200 OK/.test(waiting.err()) ? true : undefined));
      await ok(['delete', 'cm', 'gone-soon', '-n', ns, '--wait=false']);
      const w = await waiting.exited;
      assert.equal(w.code, 0, w.stderr);
      assert.equal(w.stdout, 'configmap/gone-soon condition met\n');
      const missing = await k(['delete', 'cm', 'nope', '-n', ns]);
      assert.equal(missing.stderr.trim(), 'Error from server (NotFound): configmaps "nope" not found');
    });

    test('namespace deletion removes its content', async () => {
      // The csa Deployment's pods go too (their `sleep` ignores SIGTERM: it is killed after the 1 s grace period).
      const pods = JSON.parse(await ok(['get', 'pods', '-n', ns, '-l', 'app=csa', '-o', 'json']));
      assert.notEqual(pods.items.length, 0);
      assert.equal(await ok(['delete', 'namespace', ns, '--timeout=30s']), `namespace "${ns}" deleted\n`);
      const r = await k(['get', 'namespace', ns]);
      assert.equal(r.stderr.trim(), `Error from server (NotFound): namespaces "${ns}" not found`);
      const forbidden = await k(['delete', 'namespace', 'kube-system']);
      assert.equal(forbidden.stderr.trim(), 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted');
    });
  });
}
