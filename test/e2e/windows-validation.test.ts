/**
 * The Windows rules through real kubectl 1.27 and 1.33 against the server
 * process: a multi-document manifest with a valid Windows Deployment, a
 * Windows pod that sets Linux-only fields and a Linux pod with
 * windowsOptions; then a pod update and a bad os.name, with kubectl's
 * output checked verbatim.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl as run, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

const VERSIONS = ['1.27', '1.33'];

let cluster: TestCluster;
before(async () => { cluster = await startCluster(); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: iis
spec:
  replicas: 2
  selector:
    matchLabels:
      app: iis
  template:
    metadata:
      labels:
        app: iis
    spec:
      os:
        name: windows
      nodeSelector:
        kubernetes.io/os: windows
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        ports:
        - containerPort: 80
        securityContext:
          windowsOptions:
            runAsUserName: ContainerUser
---
apiVersion: v1
kind: Pod
metadata:
  name: win-bad
spec:
  os:
    name: windows
  hostPID: true
  securityContext:
    runAsUser: 1000
  containers:
  - name: agent
    image: mcr.microsoft.com/windows/nanoserver:ltsc2022
    securityContext:
      privileged: true
---
apiVersion: v1
kind: Pod
metadata:
  name: linux-winopts
spec:
  os:
    name: linux
  containers:
  - name: web
    image: nginx:1.25
    securityContext:
      windowsOptions:
        runAsUserName: ContainerUser
`;

const FORBIDDEN_UPDATE = 'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,' +
  '`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

for (const version of VERSIONS) {
  describe(`kubectl ${version}: Windows validation`, () => {
    const ns = `win-${version.replace('.', '')}`;
    const k = (args: string[], input?: string) => run(cluster, ['-n', ns, ...args], { version, input });

    test('apply of a multi-document manifest: the Deployment is created, both pods are refused with upstream\'s messages', async () => {
      const nsr = await rawJSON(cluster, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      assert.equal(nsr.status, 201);
      const file = join(cluster.dataDir, `${ns}-windows.yaml`);
      writeFileSync(file, MANIFEST);
      const r = await k(['apply', '-f', file]);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, 'deployment.apps/iis created\n');
      assert.equal(r.stderr,
        `Error from server (Invalid): error when creating "${file}": Pod "win-bad" is invalid: [` +
        'spec.hostPID: Forbidden: cannot be set for a windows pod, ' +
        'spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod, ' +
        'spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod]\n' +
        `Error from server (Invalid): error when creating "${file}": Pod "linux-winopts" is invalid: ` +
        'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod\n');
      const get = await k(['get', 'deployment', 'iis', '-o', 'jsonpath={.spec.template.spec.os.name}']);
      assert.equal(get.stdout, 'windows');
      // The Deployment controller creates its own pods meanwhile: the two refused pods are looked up by name.
      const pods = await k(['get', 'pods', 'win-bad', 'linux-winopts', '-o', 'name']);
      assert.equal(pods.code, 1);
      assert.equal(pods.stdout, '');
      assert.equal(pods.stderr,
        'Error from server (NotFound): pods "win-bad" not found\n' +
        'Error from server (NotFound): pods "linux-winopts" not found\n');
    });

    test('a Windows pod update that sets hostPID: both errors, the second with upstream\'s spec diff', async () => {
      const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'iis-upd' },
        // Left unscheduled (no such scheduler runs), so the diff's context shows the NodeName a fresh pod has.
        spec: { os: { name: 'windows' }, schedulerName: 'not-running', containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }] } });
      assert.equal((await k(['create', '-f', '-'], pod)).stdout, 'pod/iis-upd created\n');
      const r = await k(['patch', 'pod', 'iis-upd', '-p', '{"spec":{"hostPID":true}}']);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, [
        'The Pod "iis-upd" is invalid: ',
        '* spec.hostPID: Forbidden: cannot be set for a windows pod',
        `* ${FORBIDDEN_UPDATE}`,
        '  core.PodSpec{',
        '  \t... // 10 identical fields',
        '  \tAutomountServiceAccountToken: nil,',
        '  \tNodeName:                     "",',
        '  \tSecurityContext: &core.PodSecurityContext{',
        '  \t\tHostNetwork:           false,',
        '- \t\tHostPID:               false,',
        '+ \t\tHostPID:               true,',
        '  \t\tHostIPC:               false,',
        '  \t\tShareProcessNamespace: nil,',
        '  \t\t... // 14 identical fields',
        '  \t},',
        '  \tImagePullSecrets: nil,',
        '  \tHostname:         "",',
        '  \t... // 19 identical fields',
        '  }',
        '',
        '',
      ].join('\n'));
      const img = await k(['set', 'image', 'pod/iis-upd', 'iis=mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019']);
      assert.equal(img.stdout, 'pod/iis-upd image updated\n');
    });

    test('an os.name in the wrong case is refused naming spec.os', async () => {
      const r = await k(['run', 'bad-os', '--image=nginx', '--overrides={"spec":{"os":{"name":"Windows"}}}']);
      assert.equal(r.code, 1);
      assert.equal(r.stderr, 'The Pod "bad-os" is invalid: spec.os: Unsupported value: "Windows": supported values: "linux", "windows"\n');
    });

    test('a deprecated beta OS label in nodeSelector is accepted with upstream\'s warning', async () => {
      const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'iis-beta' },
        spec: { os: { name: 'windows' }, nodeSelector: { 'beta.kubernetes.io/os': 'windows' },
          containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022' }] } });
      const r = await k(['create', '-f', '-'], pod);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, 'pod/iis-beta created\n');
      assert.equal(r.stderr, 'Warning: spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead\n');
    });
  });
}
