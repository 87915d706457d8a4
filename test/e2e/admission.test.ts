/**
 * The admission plugins end to end, through kubectl 1.27 and 1.33 against
 * the real server process: PodSecurity (enforce, warn, namespace labels,
 * Windows pods), LimitRanger (defaults, limits) and ResourceQuota
 * (refusals, status kept by the quota controller). Manifests go as files;
 * the printed errors and warnings are compared verbatim.
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

const RESTRICTED_DETAILS = (c: string) =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

for (const version of VERSIONS) {
  describe(`kubectl ${version}: admission`, () => {
    const v = version.replace('.', '');
    const k = (args: string[], input?: string) => run(cluster, args, { version, input });
    const ok = async (args: string[], input?: string) => {
      const r = await k(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r;
    };
    const file = (name: string, text: string) => {
      const p = join(cluster.dataDir, `adm-${v}-${name}`);
      writeFileSync(p, text);
      return p;
    };
    const namespace = (name: string, labels: Record<string, string> = {}) =>
      ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }));
    /** Polls until the check passes (the quota controller works asynchronously; a loaded machine gets there later). */
    const eventually = async (check: () => Promise<void>) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        try { return await check(); } catch (e) {
          if (Date.now() > deadline) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };

    test('PodSecurity enforce=restricted: a privileged pod is refused with upstream\'s message; a compliant one is created', async () => {
      const ns = `psa-${v}`;
      await namespace(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' });
      const priv = file('priv.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: priv
  namespace: ${ns}
spec:
  hostPID: true
  containers:
  - name: nginx
    image: nginx:1.25
    securityContext:
      privileged: true
`);
      const r = await k(['apply', '-f', priv]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${priv}": pods "priv" is forbidden: ` +
        `violates PodSecurity "restricted:latest": host namespaces (hostPID=true), privileged (container "nginx" must not set securityContext.privileged=true), ` +
        `${RESTRICTED_DETAILS('nginx')}\n`);
      const good = file('good.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: good
  namespace: ${ns}
spec:
  securityContext:
    runAsNonRoot: true
    seccompProfile:
      type: RuntimeDefault
  containers:
  - name: app
    image: nginx:1.25
    securityContext:
      allowPrivilegeEscalation: false
      capabilities:
        drop: ["ALL"]
`);
      const created = await ok(['apply', '-f', good]);
      assert.equal(created.stdout, 'pod/good created\n');
      assert.equal(created.stderr, '');
    });

    test('PodSecurity and Windows pods: restricted skips the Linux-only checks for spec.os.name=windows but still wants runAsNonRoot', async () => {
      const ns = `psa-win-${v}`;
      await namespace(ns, { 'pod-security.kubernetes.io/enforce': 'restricted' });
      const pod = (name: string, podSC: string) => file(`${name}.yaml`, `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  os:
    name: windows
  nodeSelector:
    kubernetes.io/os: windows
  securityContext:
${podSC}
  containers:
  - name: iis
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
`);
      const bare = pod('win-root', '    windowsOptions:\n      runAsUserName: ContainerAdministrator');
      const r = await k(['apply', '-f', bare]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${bare}": pods "win-root" is forbidden: ` +
        'violates PodSecurity "restricted:latest": runAsNonRoot != true (pod or container "iis" must set securityContext.runAsNonRoot=true)\n');
      const nonRoot = pod('win-user', '    runAsNonRoot: true\n    windowsOptions:\n      runAsUserName: ContainerUser');
      assert.equal((await ok(['apply', '-f', nonRoot])).stdout, 'pod/win-user created\n');
    });

    test('PodSecurity warn: workload templates and pods are admitted with a warning; bad labels are refused; tightening enforce warns', async () => {
      const ns = `psa-warn-${v}`;
      await namespace(ns, { 'pod-security.kubernetes.io/warn': 'baseline' });
      const deploy = file('deploy.yaml', `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hostnet
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: hostnet}
  template:
    metadata:
      labels: {app: hostnet}
    spec:
      hostNetwork: true
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - containerPort: 8080
          hostPort: 8080
`);
      const d = await ok(['apply', '-f', deploy]);
      assert.equal(d.stdout, 'deployment.apps/hostnet created\n');
      assert.equal(d.stderr, 'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostPort (container "web" uses hostPort 8080)\n');
      const pod = file('ipc.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: ipc
  namespace: ${ns}
spec:
  hostIPC: true
  containers:
  - name: c
    image: nginx:1.25
`);
      const p = await ok(['apply', '-f', pod]);
      assert.equal(p.stdout, 'pod/ipc created\n');
      assert.equal(p.stderr, 'Warning: would violate PodSecurity "baseline:latest": host namespaces (hostIPC=true)\n');

      const bad = await k(['label', 'ns', ns, 'pod-security.kubernetes.io/enforce=strict']);
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr, `The Namespace "${ns}" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted\n`);

      // The hostnet Deployment's pod (made by the ReplicaSet controller) violates too: wait until it exists.
      let made = '';
      for (let i = 0; i < 100 && !made; i++) {
        made = (await ok(['get', 'pods', '-n', ns, '-l', 'app=hostnet', '-o', 'name'])).stdout.trim();
        if (!made) await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(made, /^pod\/hostnet-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      const tight = await ok(['label', 'ns', ns, 'pod-security.kubernetes.io/enforce=baseline']);
      assert.equal(tight.stdout, `namespace/${ns} labeled\n`);
      assert.equal(tight.stderr, `Warning: existing pods in namespace "${ns}" violate the new PodSecurity enforce level "baseline:latest"\n` +
        `Warning: ${made.slice('pod/'.length)}: host namespaces, hostPort\nWarning: ipc: host namespaces\n`);
    });

    test('LimitRanger: defaults requests and limits (and the QoS class follows); a container over the max is refused', async () => {
      const ns = `limits-${v}`;
      await namespace(ns);
      await ok(['apply', '-f', file('lr.yaml', `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: ${ns}
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 250m
      memory: 128Mi
    max:
      cpu: "1"
`)]);
      await ok(['apply', '-f', file('plain.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: plain
  namespace: ${ns}
spec:
  containers:
  - name: app
    image: nginx:1.25
`)]);
      const pod = JSON.parse((await ok(['get', 'pod', 'plain', '-n', ns, '-o', 'json'])).stdout);
      assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi' } });
      assert.equal(pod.metadata.annotations['kubernetes.io/limit-ranger'],
        'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
      assert.equal(pod.status.qosClass, 'Burstable');
      const big = file('big.yaml', `apiVersion: v1
kind: Pod
metadata:
  name: big
  namespace: ${ns}
spec:
  containers:
  - name: app
    image: nginx:1.25
    resources:
      limits:
        cpu: "2"
`);
      const r = await k(['apply', '-f', big]);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${big}": pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2\n`);
    });

    test('ResourceQuota: missing requests and exceeded quota are refused; the controller keeps status.used', async () => {
      const ns = `quota-${v}`;
      await namespace(ns);
      await ok(['apply', '-f', file('quota.yaml', `apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: ${ns}
spec:
  hard:
    pods: "2"
    requests.cpu: "1"
`)]);
      const pod = (name: string, cpu?: string) => file(`${name}.yaml`, `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  containers:
  - name: app
    image: nginx:1.25
${cpu ? `    resources:\n      requests:\n        cpu: ${cpu}\n` : ''}`);
      const none = pod('none');
      const r1 = await k(['apply', '-f', none]);
      assert.equal(r1.code, 1);
      assert.equal(r1.stderr, `Error from server (Forbidden): error when creating "${none}": pods "none" is forbidden: failed quota: compute: must specify requests.cpu for: app\n`);
      await ok(['apply', '-f', pod('a', '400m')]);
      await ok(['apply', '-f', pod('b', '400m')]);
      const c = pod('c', '400m');
      const r2 = await k(['apply', '-f', c]);
      assert.equal(r2.code, 1);
      assert.equal(r2.stderr, `Error from server (Forbidden): error when creating "${c}": pods "c" is forbidden: ` +
        'exceeded quota: compute, requested: pods=1,requests.cpu=400m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1\n');
      await eventually(async () => {
        const q = JSON.parse((await ok(['get', 'quota', 'compute', '-n', ns, '-o', 'json'])).stdout);
        assert.deepEqual(q.status, { hard: { pods: '2', 'requests.cpu': '1' }, used: { pods: '2', 'requests.cpu': '800m' } });
      });
      assert.match((await ok(['get', 'quota', '-n', ns])).stdout, /^compute\s+\d+s\s+pods: 2\/2, requests.cpu: 800m\/1\s*$/m);
      const described = (await ok(['describe', 'quota', 'compute', '-n', ns])).stdout;
      assert.match(described, /^pods\s+2\s+2$/m);
      assert.match(described, /^requests.cpu\s+800m\s+1$/m);
      // Deleting a pod gives its share back.
      await ok(['delete', 'pod', 'a', '-n', ns, '--wait=false']);
      await eventually(async () => {
        const q = JSON.parse((await ok(['get', 'quota', 'compute', '-n', ns, '-o', 'json'])).stdout);
        assert.deepEqual(q.status.used, { pods: '1', 'requests.cpu': '400m' });
      });
      assert.equal((await ok(['apply', '-f', c])).stdout, 'pod/c created\n');
    });
  });
}
