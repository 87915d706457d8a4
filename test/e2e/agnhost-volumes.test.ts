/**
 * Upstream's test image on an emulated Linux node, as the conformance
 * volume and Docker Containers tests drive it: `agnhost mounttest` reading
 * the modes, owners and filesystems the kubelet gives configMap, secret and
 * emptyDir volumes (defaultMode, item mode, fsGroup, medium Memory),
 * `entrypoint-tester` printing its argv, an emptyDir two containers share,
 * and a downward API volume following the pod's labels.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.52';

async function apply(obj: object): Promise<void> {
  const r = await kubectl(cluster, ['apply', '-f', '-'], { input: JSON.stringify(obj) });
  assert.equal(r.code, 0, r.stderr);
}

interface PodView { status?: { phase?: string; containerStatuses?: { state?: { running?: object; terminated?: { exitCode: number } } }[] } }

async function waitFor(name: string, ok: (pod: PodView) => boolean): Promise<PodView> {
  for (let i = 0; i < 300; i++) {
    const r = await rawJSON(cluster, 'GET', `/api/v1/namespaces/default/pods/${name}`);
    if (r.status === 200 && ok(r.body as PodView)) return r.body as PodView;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`pod ${name} never got there`);
}

const phase = (p: string) => (pod: PodView) => pod.status?.phase === p;

before(async () => {
  cluster = await startCluster();
  await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { 'data-1': 'value-1', 'data-2': 'value-2' } });
  await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { 'data-1': 'secret-1' } });
});

after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

test('mounttest: item mode, defaultMode with fsGroup, tmpfs emptyDir; kubectl logs prints what mt.go prints', async () => {
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mounttest' },
    spec: {
      nodeName: 'linux-1', restartPolicy: 'Never', securityContext: { runAsUser: 1000, fsGroup: 1001 },
      containers: [{
        name: 'c', image: AGNHOST,
        args: ['mounttest', '--fs_type=/test-volume', '--new_file_0660=/test-volume/f', '--file_mode=/etc/cm/path/to/data-2',
          '--file_perm=/test-volume/f', '--file_owner=/etc/secret/data-1', '--file_content=/etc/secret/data-1'],
        volumeMounts: [{ name: 'cm', mountPath: '/etc/cm' }, { name: 'sec', mountPath: '/etc/secret' }, { name: 'test-volume', mountPath: '/test-volume' }],
      }],
      volumes: [
        { name: 'cm', configMap: { name: 'cm', items: [{ key: 'data-2', path: 'path/to/data-2', mode: 0o400 }] } },
        { name: 'sec', secret: { secretName: 's', defaultMode: 0o440 } },
        { name: 'test-volume', emptyDir: { medium: 'Memory' } },
      ],
    },
  });
  const p = await waitFor('mounttest', (x) => x.status?.phase === 'Succeeded' || x.status?.phase === 'Failed');
  assert.equal(p.status?.phase, 'Succeeded');
  assert.deepEqual(await kubectl(cluster, ['logs', 'mounttest']), {
    code: 0, stderr: '',
    stdout: 'mount type of "/test-volume": tmpfs\n'
      + 'content of file "/test-volume/f": mount-tester new file\n\n'
      + 'mode of file "/etc/cm/path/to/data-2": -r--r-----\n'
      + 'perms of file "/test-volume/f": -rw-rw----\n'
      + 'owner UID of "/etc/secret/data-1": 0\nowner GID of "/etc/secret/data-1": 1001\n'
      + 'content of file "/etc/secret/data-1": secret-1\n',
  });
});

test('mounttest of a missing file exits 1 with its error line', async () => {
  await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mt-missing' },
    spec: { nodeName: 'linux-2', restartPolicy: 'Never', containers: [{ name: 'c', image: AGNHOST, args: ['mounttest', '--file_perm=/nope'] }] } });
  const p = await waitFor('mt-missing', phase('Failed'));
  assert.equal(p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 1);
  assert.equal((await kubectl(cluster, ['logs', 'mt-missing'])).stdout, 'error from Stat("/nope"): stat /nope: no such file or directory\n');
});

test('entrypoint-tester prints the argv the command and args make', async () => {
  await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ep' },
    spec: { nodeName: 'linux-1', restartPolicy: 'Never', containers: [{ name: 'c', image: AGNHOST, command: ['/agnhost-2'], args: ['entrypoint-tester', 'override', 'arguments'] }] } });
  await waitFor('ep', phase('Succeeded'));
  assert.equal((await kubectl(cluster, ['logs', 'ep'])).stdout, '[/agnhost-2 entrypoint-tester override arguments]\n');
});

test('an emptyDir is shared by the pod\'s containers; a downward API volume follows the labels', async () => {
  await apply({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'shared', labels: { a: '1' } },
    spec: {
      nodeName: 'linux-2',
      containers: [
        { name: 'main', image: 'busybox:1.36', command: ['/bin/sh', '-c', 'sleep 3600'],
          volumeMounts: [{ name: 'data', mountPath: '/usr/share/volumeshare' }, { name: 'info', mountPath: '/etc/podinfo' }] },
        { name: 'sub', image: 'busybox:1.36', command: ['/bin/sh', '-c', 'echo Hello from the sub-container > /pod-data/shareddata.txt; sleep 3600'],
          volumeMounts: [{ name: 'data', mountPath: '/pod-data' }] },
      ],
      volumes: [{ name: 'data', emptyDir: {} }, { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }],
    },
  });
  await waitFor('shared', (x) => (x.status?.containerStatuses ?? []).filter((c) => c.state?.running).length === 2);
  assert.deepEqual(await kubectl(cluster, ['exec', 'shared', '-c', 'main', '--', 'cat', '/usr/share/volumeshare/shareddata.txt']),
    { code: 0, stdout: 'Hello from the sub-container\n', stderr: '' });
  assert.equal((await kubectl(cluster, ['exec', 'shared', '-c', 'main', '--', 'cat', '/etc/podinfo/labels'])).stdout, 'a="1"');
  assert.equal((await kubectl(cluster, ['label', 'pod', 'shared', 'b=2'])).code, 0);
  let labels = '';
  for (let i = 0; i < 100 && labels !== 'a="1"\nb="2"'; i++) {
    labels = (await kubectl(cluster, ['exec', 'shared', '-c', 'main', '--', 'cat', '/etc/podinfo/labels'])).stdout;
    if (labels !== 'a="1"\nb="2"') await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(labels, 'a="1"\nb="2"');
});

test('a configMap\'s binaryData is mounted byte for byte: hexdump -C shows it', async () => {
  await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin' }, binaryData: { 'dump.bin': Buffer.from([0xde, 0xca, 0xfe, 0xba, 0xd0, 0xfe, 0xff]).toString('base64') } });
  await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hex' },
    spec: { nodeName: 'linux-1', restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36', command: ['hexdump', '-C', '/etc/configmap-volume/dump.bin'],
      volumeMounts: [{ name: 'v', mountPath: '/etc/configmap-volume' }] }], volumes: [{ name: 'v', configMap: { name: 'bin' } }] } });
  await waitFor('hex', phase('Succeeded'));
  assert.equal((await kubectl(cluster, ['logs', 'hex'])).stdout, '00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n');
});
