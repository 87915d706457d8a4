/**
 * Server-side apply end to end with real kubectl 1.27 and 1.33: apply,
 * re-apply of a changed file, conflicts between managers and
 * --force-conflicts, diff --server-side, and the move from client-side to
 * server-side apply (kubectl rewrites managedFields with a JSON patch).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl as run, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

/** What kubectl prints after a conflict's message. */
const ADVICE = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`;

interface Container { name: string; image: string; env?: { name: string; value: string }[]; command?: string[]; ports?: { containerPort: number }[] }

for (const version of VERSIONS) {
  describe(`kubectl ${version} apply --server-side`, () => {
    const ns = `ssa-${version.replace('.', '')}`;
    const k = (args: string[], input?: string) => run(cluster, args, { version, input });
    const ok = async (args: string[], input?: string) => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const file = (name: string, obj: unknown) => {
      const p = join(cluster.dataDir, `${ns}-${name}.json`);
      writeFileSync(p, JSON.stringify(obj, null, 2));
      return p;
    };
    const deployment = (replicas: number | undefined, containers: Container[]) => ({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        ...(replicas === undefined ? {} : { replicas }),
        selector: { matchLabels: { app: 'web' } },
        // Left unscheduled (no such scheduler runs): the Deployment controller settles once its pods exist.
        template: { metadata: { labels: { app: 'web' } }, spec: { schedulerName: 'not-running', containers } },
      },
    });
    const getJSON = async (...args: string[]) => JSON.parse(await ok(['get', ...args, '-n', ns, '-o', 'json', '--show-managed-fields']));
    const managers = (obj: any) => Object.fromEntries(obj.metadata.managedFields.map((e: any) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
    /** The object without what the Deployment controller writes (status, the revision annotation, its managedFields entry). */
    const withoutController = (obj: any) => {
      const o = structuredClone(obj);
      delete o.status;
      delete o.metadata.resourceVersion;
      if (o.metadata.annotations) {
        delete o.metadata.annotations['deployment.kubernetes.io/revision'];
        if (!Object.keys(o.metadata.annotations).length) delete o.metadata.annotations;
      }
      o.metadata.managedFields = o.metadata.managedFields.filter((e: any) => e.manager !== 'kube-controller-manager');
      return o;
    };
    /**
     * Waits until the Deployment controller has seen the latest spec and stopped writing: with pods that stay
     * Pending, a rollout stops (as upstream's does) once maxSurge and maxUnavailable allow no further step.
     */
    const settled = async (name: string) => {
      let last: any;
      let same = 0;
      for (let i = 0; i < 60; i++) {
        const d = await getJSON('deployment', name);
        if (d.status?.observedGeneration === d.metadata.generation && d.metadata.resourceVersion === last?.metadata.resourceVersion) {
          if (++same === 3) return d;
        } else same = 0;
        last = d;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.fail(`deployment ${name} did not settle: ${JSON.stringify(last.status)}`);
    };

    const web = { name: 'web', image: 'nginx:1.25', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] };
    const sidecar = { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', 'infinity'] };

    test('apply creates; a changed file (env var removed, containers reordered, replicas) updates field by field', async () => {
      assert.equal(await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })), `namespace/${ns} created\n`);
      const v1 = file('v1', deployment(2, [web, sidecar]));
      assert.equal(await ok(['apply', '--server-side', '-f', v1]), 'deployment.apps/web serverside-applied\n');
      let d = await getJSON('deployment', 'web');
      assert.equal(d.spec.replicas, 2);
      assert.deepEqual(d.spec.template.spec.containers.map((c: any) => c.name), ['web', 'sidecar']);
      assert.deepEqual(d.spec.template.spec.containers[0].env, web.env);
      // The Deployment controller's status writes (kube-controller-manager/Update, subresource status) may be there too.
      assert.deepEqual(Object.keys(managers(d)).filter((m) => m !== 'kube-controller-manager/Update'), ['kubectl/Apply']);
      assert.deepEqual(d.metadata.managedFields[0].apiVersion, 'apps/v1');

      const v2 = file('v2', deployment(3, [sidecar, { ...web, env: [{ name: 'B', value: '2' }] }]));
      assert.equal(await ok(['apply', '--server-side', '-f', v2]), 'deployment.apps/web serverside-applied\n');
      d = await getJSON('deployment', 'web');
      assert.equal(d.spec.replicas, 3);
      assert.equal(d.metadata.generation, 2);
      const [first, second] = d.spec.template.spec.containers;
      assert.deepEqual([first.name, second.name], ['sidecar', 'web']);
      assert.deepEqual(first.command, ['sleep', 'infinity']);
      assert.equal(first.image, 'busybox:1.36');
      assert.deepEqual(second.env, [{ name: 'B', value: '2' }]);
      assert.deepEqual(second.ports, [{ containerPort: 80, protocol: 'TCP' }]);
      // Server defaults are nobody's and stay.
      assert.equal(second.imagePullPolicy, 'IfNotPresent');
      assert.equal(d.spec.strategy.type, 'RollingUpdate');
      const owned = managers(d)['kubectl/Apply'];
      assert.deepEqual(owned['f:spec']['f:replicas'], {});
      assert.deepEqual(Object.keys(owned['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:env']), ['k:{"name":"B"}']);

      // The same file again changes nothing (the Deployment controller may write status meanwhile).
      assert.equal(await ok(['apply', '--server-side', '-f', v2]), 'deployment.apps/web serverside-applied\n');
      assert.deepEqual(withoutController(await getJSON('deployment', 'web')), withoutController(d));
    });

    test('another manager conflicts (kubectl prints the server\'s text); --force-conflicts takes the fields', async () => {
      const theirs = file('other', deployment(5, [{ name: 'web', image: 'nginx:1.26' }]));
      let r = await k(['apply', '--server-side', '--field-manager=other', '-f', theirs]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `error: Apply failed with 2 conflicts: conflicts with "kubectl":
- .spec.replicas
- .spec.template.spec.containers[name="web"].image
${ADVICE}`);
      assert.equal(await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', theirs]), 'deployment.apps/web serverside-applied\n');
      const d = await getJSON('deployment', 'web');
      assert.equal(d.spec.replicas, 5);
      assert.equal(d.spec.template.spec.containers.find((c: any) => c.name === 'web').image, 'nginx:1.26');
      const m = managers(d);
      assert.deepEqual(m['other/Apply']['f:spec']['f:replicas'], {});
      assert.equal(m['kubectl/Apply']['f:spec']['f:replicas'], undefined);
      assert.equal(m['kubectl/Apply']['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:image'], undefined);

      // Now kubectl is the one in conflict, on the one field it still wants to change.
      const mine = file('v3', deployment(3, [sidecar, { ...web, image: 'nginx:1.26', env: [{ name: 'B', value: '2' }] }]));
      r = await k(['apply', '--server-side', '-f', mine]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `error: Apply failed with 1 conflict: conflict with "other": .spec.replicas\n${ADVICE}`);
    });

    test('diff --server-side shows the change a dry-run apply would make, and stores nothing', async () => {
      const same = file('v4', deployment(5, [sidecar, { ...web, image: 'nginx:1.26', env: [{ name: 'B', value: '2' }] }]));
      // Once the Deployment controller has settled (its pods stay Pending), it writes nothing more.
      const before = await settled('web');
      const none = await k(['diff', '--server-side', '-f', same]);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, '');
      const changed = file('v5', deployment(5, [{ ...sidecar, image: 'busybox:1.37' }, { ...web, image: 'nginx:1.26', env: [{ name: 'B', value: '2' }] }]));
      const r = await k(['diff', '--server-side', '-f', changed]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /^-\s+image: busybox:1\.36$/m);
      assert.match(r.stdout, /^\+\s+image: busybox:1\.37$/m);
      assert.match(r.stdout, /^-\s+generation: 3$/m);
      assert.match(r.stdout, /^\+\s+generation: 4$/m);
      const after = await getJSON('deployment', 'web');
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion);
      assert.equal(after.spec.template.spec.containers[0].image, 'busybox:1.36');
      // A conflicting diff fails with the conflict.
      const conflicting = await k(['diff', '--server-side', '-f', file('v6', deployment(9, [sidecar]))]);
      assert.ok(conflicting.code > 1);
      assert.match(conflicting.stderr, /Apply failed with 1 conflict: conflict with "other": \.spec\.replicas/);
    });

    test('client-side apply, then apply --server-side: kubectl takes over what client-side apply owned', async () => {
      const cm = (data: Record<string, string>) => file('cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data });
      assert.equal(await ok(['apply', '-f', cm({ a: '1', b: '2' })]), 'configmap/settings created\n');
      let c = await getJSON('configmap', 'settings');
      assert.deepEqual(managers(c), {
        'kubectl-client-side-apply/Update': {
          'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
          'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
        },
      });
      // b changes: a conflict with the client-side owner, allowed because kubectl's own last apply set it.
      assert.equal(await ok(['apply', '--server-side', '-f', cm({ a: '1', b: '3' })]), 'configmap/settings serverside-applied\n');
      c = await getJSON('configmap', 'settings');
      assert.deepEqual(c.data, { a: '1', b: '3' });
      const m = managers(c);
      // kubectl rewrote managedFields (JSON patch with a resourceVersion precondition): client-side apply owns nothing now.
      assert.equal(m['kubectl-client-side-apply/Update'], undefined);
      assert.deepEqual(m['kubectl/Apply'], { 'f:data': { 'f:a': {}, 'f:b': {} } });
      assert.deepEqual(m['kubectl-last-applied/Apply'], { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } });
      assert.equal(c.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
        `{"apiVersion":"v1","data":{"a":"1","b":"3"},"kind":"ConfigMap","metadata":{"name":"settings","namespace":"${ns}"}}\n`);
      // So dropping b from the file removes it.
      assert.equal(await ok(['apply', '--server-side', '-f', cm({ a: '1' })]), 'configmap/settings serverside-applied\n');
      assert.deepEqual((await getJSON('configmap', 'settings')).data, { a: '1' });
    });

    test('get --show-managed-fields shows who set what; label records its own manager', async () => {
      assert.equal(await ok(['label', 'configmap', 'settings', '-n', ns, 'tier=web']), 'configmap/settings labeled\n');
      const y = await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'yaml', '--show-managed-fields']);
      assert.match(y, /^ {2}- apiVersion: v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:metadata:\n {8}f:labels:\n {10}\.: \{\}\n {10}f:tier: \{\}\n {4}manager: kubectl-label\n {4}operation: Update\n {4}time: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$/m);
      assert.match(y, /^ {4}manager: kubectl\n {4}operation: Apply$/m);
      assert.doesNotMatch(await ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'yaml']), /managedFields/);
      await ok(['delete', 'namespace', ns, '--wait=false']);
    });
  });
}
