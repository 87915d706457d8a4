/**
 * `kubectl create <generator>` against the real server. kubectl 1.27 sends the objects as
 * JSON; kubectl 1.32 (the default `kubectl`) and 1.33 send them as protobuf
 * (application/vnd.kubernetes.protobuf). Each version must print what it prints
 * against a real cluster, and the stored objects must not depend on the encoding.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl as run, raw, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

/** JSON (1.27), protobuf from the default kubectl (1.32.4) and from 1.33. */
const VERSIONS: { label: string; version?: string; nodePort: number }[] = [
  { label: '1.27', version: '1.27', nodePort: 30127 },
  { label: '1.32 (default kubectl)', nodePort: 30132 },
  { label: '1.33', version: '1.33', nodePort: 30133 },
];

const BINARY = Buffer.from([0, 1, 0xff, 0xfe, 0x62, 0x69, 0x6e]);

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const nsOf = (label: string) => `gen-${(label.split(' ', 1)[0] ?? '').replace('.', '')}`;

for (const { label, version, nodePort } of VERSIONS) {
  describe(`kubectl ${label}`, () => {
    const ns = nsOf(label);
    const pc = `pc-${ns}`;
    const ok = async (args: string[]) => {
      const r = await run(cluster, args, { version });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    };
    const json = async (args: string[]) => JSON.parse(await ok([...args, '-o', 'json']));

    test('create namespace', async () => {
      assert.equal(await ok(['create', 'namespace', ns]), `namespace/${ns} created\n`);
      const o = await json(['get', 'namespace', ns]);
      assert.equal(o.status.phase, 'Active');
      assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
      assert.equal(o.metadata.labels['kubernetes.io/metadata.name'], ns);
    });

    test('create configmap from literals and a binary file', async () => {
      const bin = join(cluster.dataDir, `${ns}-bin.dat`);
      writeFileSync(bin, BINARY);
      assert.equal(await ok(['create', 'configmap', 'settings', '-n', ns, '--from-literal=a=b', '--from-literal=empty=', `--from-file=bin=${bin}`]),
        'configmap/settings created\n');
      const o = await json(['get', 'configmap', 'settings', '-n', ns]);
      assert.deepEqual(o.data, { a: 'b', empty: '' });
      assert.deepEqual(o.binaryData, { bin: BINARY.toString('base64') });
      assert.equal(o.metadata.namespace, ns);
      assert.match(o.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.match(o.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    test('create secret generic and docker-registry', async () => {
      assert.equal(await ok(['create', 'secret', 'generic', 'creds', '-n', ns, '--from-literal=user=admin', '--from-literal=pass=s3cr3t']),
        'secret/creds created\n');
      const s = await json(['get', 'secret', 'creds', '-n', ns]);
      assert.equal(s.type, 'Opaque');
      assert.deepEqual(s.data, { pass: Buffer.from('s3cr3t').toString('base64'), user: Buffer.from('admin').toString('base64') });
      assert.equal(await ok(['create', 'secret', 'docker-registry', 'pull', '-n', ns, '--docker-server=registry.example.com',
        '--docker-username=u', '--docker-password=p']), 'secret/pull created\n');
      const d = await json(['get', 'secret', 'pull', '-n', ns]);
      assert.equal(d.type, 'kubernetes.io/dockerconfigjson');
      const cfg = JSON.parse(Buffer.from(d.data['.dockerconfigjson'], 'base64').toString());
      assert.equal(cfg.auths['registry.example.com'].username, 'u');
    });

    test('create deployment (replicas 3 and 0, a command)', async () => {
      assert.equal(await ok(['create', 'deployment', 'web', '-n', ns, '--image=nginx:1.25', '--replicas=3', '--port=80']),
        'deployment.apps/web created\n');
      const d = await json(['get', 'deployment', 'web', '-n', ns]);
      assert.equal(d.spec.replicas, 3);
      assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } });
      assert.deepEqual(d.spec.template.metadata.labels, { app: 'web' });
      const c = d.spec.template.spec.containers[0];
      assert.equal(c.name, 'nginx');
      assert.equal(c.image, 'nginx:1.25');
      assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
      assert.equal(c.imagePullPolicy, 'IfNotPresent');
      assert.equal(d.spec.strategy.type, 'RollingUpdate');
      assert.equal(d.spec.revisionHistoryLimit, 10);
      assert.equal(d.metadata.generation, 1);
      assert.equal(await ok(['create', 'deployment', 'idle', '-n', ns, '--image=nginx', '--replicas=0']), 'deployment.apps/idle created\n');
      assert.equal((await json(['get', 'deployment', 'idle', '-n', ns])).spec.replicas, 0);
      assert.equal(await ok(['create', 'deployment', 'sleeper', '-n', ns, '--image=busybox', '--', 'sleep', '3600']),
        'deployment.apps/sleeper created\n');
      const s = await json(['get', 'deployment', 'sleeper', '-n', ns]);
      assert.deepEqual(s.spec.template.spec.containers[0].command, ['sleep', '3600']);
      assert.equal(s.spec.replicas, 1);
    });

    test('create job, cronjob and job --from=cronjob', async () => {
      assert.equal(await ok(['create', 'job', 'once', '-n', ns, '--image=busybox', '--', 'echo', 'hi']), 'job.batch/once created\n');
      const j = await json(['get', 'job', 'once', '-n', ns]);
      assert.equal(j.spec.template.spec.restartPolicy, 'Never');
      assert.deepEqual(j.spec.template.spec.containers[0].command, ['echo', 'hi']);
      assert.equal(j.spec.backoffLimit, 6);
      assert.equal(await ok(['create', 'cronjob', 'tick', '-n', ns, '--image=busybox', '--schedule=*/5 * * * *', '--restart=OnFailure', '--', 'date']),
        'cronjob.batch/tick created\n');
      const c = await json(['get', 'cronjob', 'tick', '-n', ns]);
      assert.equal(c.spec.schedule, '*/5 * * * *');
      assert.equal(c.spec.concurrencyPolicy, 'Allow');
      assert.equal(c.spec.jobTemplate.spec.template.spec.restartPolicy, 'OnFailure');
      assert.equal(await ok(['create', 'job', 'manual', '-n', ns, '--from=cronjob/tick']), 'job.batch/manual created\n');
      const m = await json(['get', 'job', 'manual', '-n', ns]);
      assert.equal(m.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      // kubectl sets controller: true since 1.28.
      assert.deepEqual(m.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.uid]), [['CronJob', 'tick', c.metadata.uid]]);
    });

    test('create service clusterip, headless, nodeport, externalname', async () => {
      assert.equal(await ok(['create', 'service', 'clusterip', 'svc', '-n', ns, '--tcp=80:8080', '--tcp=443:8443']), 'service/svc created\n');
      const s = await json(['get', 'service', 'svc', '-n', ns]);
      assert.deepEqual(s.spec.ports, [
        { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
        { name: '443-8443', protocol: 'TCP', port: 443, targetPort: 8443 },
      ]);
      assert.equal(s.spec.type, 'ClusterIP');
      assert.deepEqual(s.spec.selector, { app: 'svc' });
      assert.match(s.spec.clusterIP, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/); // 10.96.0.0/12
      assert.equal(await ok(['create', 'service', 'clusterip', 'headless', '-n', ns, '--clusterip=None']), 'service/headless created\n');
      assert.equal((await json(['get', 'service', 'headless', '-n', ns])).spec.clusterIP, 'None');
      assert.equal(await ok(['create', 'service', 'nodeport', 'np', '-n', ns, '--tcp=80:8080', `--node-port=${nodePort}`]), 'service/np created\n');
      const np = await json(['get', 'service', 'np', '-n', ns]);
      assert.equal(np.spec.type, 'NodePort');
      assert.equal(np.spec.ports[0].nodePort, nodePort);
      assert.equal(await ok(['create', 'service', 'externalname', 'ext', '-n', ns, '--external-name=example.com']), 'service/ext created\n');
      const e = await json(['get', 'service', 'ext', '-n', ns]);
      assert.equal(e.spec.type, 'ExternalName');
      assert.equal(e.spec.externalName, 'example.com');
    });

    test('create serviceaccount', async () => {
      assert.equal(await ok(['create', 'serviceaccount', 'robot', '-n', ns]), 'serviceaccount/robot created\n');
      const o = await json(['get', 'serviceaccount', 'robot', '-n', ns]);
      assert.equal(o.metadata.name, 'robot');
      assert.equal(o.kind, 'ServiceAccount');
    });

    test('create priorityclass (value 1000 and 0)', async () => {
      assert.equal(await ok(['create', 'priorityclass', pc, '--value=1000', '--description=generator test', '--preemption-policy=Never']),
        `priorityclass.scheduling.k8s.io/${pc} created\n`);
      const p = await json(['get', 'priorityclass', pc]);
      assert.equal(p.value, 1000);
      assert.equal(p.description, 'generator test');
      assert.equal(p.preemptionPolicy, 'Never');
      assert.equal(await ok(['create', 'priorityclass', `${pc}-zero`, '--value=0']), `priorityclass.scheduling.k8s.io/${pc}-zero created\n`);
      const z = await json(['get', 'priorityclass', `${pc}-zero`]);
      assert.equal(z.value, 0);
      assert.equal(z.preemptionPolicy, 'PreemptLowerPriority');
      assert.equal(z.globalDefault, undefined);
    });

    test('create poddisruptionbudget (minAvailable percentage, maxUnavailable number)', async () => {
      assert.equal(await ok(['create', 'poddisruptionbudget', 'pdb', '-n', ns, '--selector=app=web', '--min-available=50%']),
        'poddisruptionbudget.policy/pdb created\n');
      const p = await json(['get', 'poddisruptionbudget', 'pdb', '-n', ns]);
      assert.equal(p.spec.minAvailable, '50%');
      assert.deepEqual(p.spec.selector, { matchLabels: { app: 'web' } });
      assert.equal(await ok(['create', 'pdb', 'pdb-max', '-n', ns, '--selector=app=web', '--max-unavailable=1']),
        'poddisruptionbudget.policy/pdb-max created\n');
      assert.equal((await json(['get', 'pdb', 'pdb-max', '-n', ns])).spec.maxUnavailable, 1);
    });

    test('create quota', async () => {
      assert.equal(await ok(['create', 'quota', 'q', '-n', ns, '--hard=cpu=1,memory=1Gi,pods=10', '--scopes=BestEffort']),
        'resourcequota/q created\n');
      const q = await json(['get', 'quota', 'q', '-n', ns]);
      assert.deepEqual(q.spec, { hard: { cpu: '1', memory: '1Gi', pods: '10' }, scopes: ['BestEffort'] });
    });

    test('autoscale deployment', async () => {
      assert.equal(await ok(['autoscale', 'deployment', 'web', '-n', ns, '--min=2', '--max=5', '--cpu-percent=80']),
        'horizontalpodautoscaler.autoscaling/web autoscaled\n');
      const h = await json(['get', 'hpa.v2.autoscaling', 'web', '-n', ns]);
      assert.deepEqual(h.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
      assert.equal(h.spec.minReplicas, 2);
      assert.equal(h.spec.maxReplicas, 5);
      assert.equal(h.spec.metrics[0].resource.target.averageUtilization, 80);
    });

    test('get lists every generated object', async () => {
      const names = (await ok(['get', 'configmaps,secrets,deployments,jobs,cronjobs,services,serviceaccounts,pdb,quota,hpa', '-n', ns, '-o', 'name']))
        .trim().split('\n');
      for (const n of ['configmap/settings', 'secret/creds', 'secret/pull', 'deployment.apps/web', 'deployment.apps/idle', 'job.batch/once',
        'job.batch/manual', 'cronjob.batch/tick', 'service/svc', 'service/np', 'service/ext', 'serviceaccount/robot',
        'poddisruptionbudget.policy/pdb', 'resourcequota/q', 'horizontalpodautoscaler.autoscaling/web']) {
        assert.ok(names.includes(n), `${n} missing from ${names.join(' ')}`);
      }
    });
  });
}

/** The parts of an object that do not depend on when and where it was created. */
function portable(o: any, ns: string): unknown {
  const text = JSON.stringify(o).replaceAll(ns, '<ns>');
  const c = JSON.parse(text);
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'namespace']) delete c.metadata[k];
  delete c.status;
  if (c.spec) {
    for (const k of ['clusterIP', 'clusterIPs']) if (c.spec[k] !== 'None' && c.spec[k]?.[0] !== 'None') delete c.spec[k];
    for (const p of c.spec.ports ?? []) if (c.spec.type === 'NodePort') delete p.nodePort;
  }
  // kubectl sets controller: true on job --from=cronjob since 1.28.
  if (c.metadata.ownerReferences) for (const r of c.metadata.ownerReferences) { delete r.uid; delete r.controller; }
  return c;
}

test('objects created by protobuf (kubectl 1.32, 1.33) equal those created by JSON (kubectl 1.27)', async () => {
  const objects = ['configmap/settings', 'secret/creds', 'deployment/web', 'deployment/idle', 'deployment/sleeper', 'job/once', 'cronjob/tick',
    'job/manual', 'service/svc', 'service/headless', 'service/np', 'service/ext', 'serviceaccount/robot', 'pdb/pdb', 'pdb/pdb-max', 'quota/q'];
  for (const name of objects) {
    const got = await Promise.all(VERSIONS.map(async ({ label }) => {
      const ns = nsOf(label);
      const r = await run(cluster, ['get', name, '-n', ns, '-o', 'json'], { version: '1.33' });
      assert.equal(r.code, 0, r.stderr);
      const o = JSON.parse(r.stdout);
      if (name.startsWith('job/')) {
        // The job controller-uid label and selector carry the job's uid.
        for (const m of [o.metadata.labels, o.spec.template.metadata.labels, o.spec.selector.matchLabels]) {
          for (const k of Object.keys(m ?? {})) if (/controller-uid$/.test(k)) m[k] = '<uid>';
        }
      }
      return portable(o, ns);
    }));
    assert.deepEqual(got[1], got[0], `${name}: kubectl 1.32 (protobuf) vs 1.27 (JSON)`);
    assert.deepEqual(got[2], got[0], `${name}: kubectl 1.33 (protobuf) vs 1.27 (JSON)`);
  }
});

test('protobuf bodies: malformed → 400, another kind → the conversion error JSON bodies get', async () => {
  const ns = nsOf('1.33');
  const headers = { 'Content-Type': 'application/vnd.kubernetes.protobuf' };
  const broken = Buffer.from('6b3873000a0f0a0276311209436f6e6669674d6170121f0a15', 'hex');
  const r1 = await raw(cluster, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: broken, headers });
  assert.equal(r1.status, 400);
  const s1 = JSON.parse(r1.body);
  assert.equal(s1.reason, 'BadRequest');
  assert.equal(s1.message, `the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (${broken.toString('hex')})`);
  // A Secret envelope posted to configmaps.
  const secret = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from('0a0c0a027631120653656372657412070a050a0378797a', 'hex')]);
  const r2 = await raw(cluster, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: secret, headers });
  assert.equal(r2.status, 400);
  const asJson = await raw(cluster, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'xyz' } }),
  });
  assert.equal(JSON.parse(r2.body).message, JSON.parse(asJson.body).message);
  assert.match(JSON.parse(r2.body).message, /^Secret in version "v1" cannot be handled as a ConfigMap/);
  // Responses to protobuf requests are JSON.
  const cm = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from('0a0f0a0276311209436f6e6669674d617012110a070a0570622d636d12060a016b120176', 'hex')]);
  const r3 = await raw(cluster, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm, headers: { ...headers, Accept: 'application/vnd.kubernetes.protobuf, application/json' } });
  assert.equal(r3.status, 201, r3.body);
  assert.match(String(r3.headers['content-type']), /^application\/json/);
  const created = JSON.parse(r3.body);
  assert.equal(created.metadata.name, 'pb-cm');
  assert.deepEqual(created.data, { k: 'v' });
});
