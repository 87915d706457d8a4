/**
 * `privileged: true` on a Windows node, in a pod without spec.os (with
 * spec.os windows validation forbids it): the v1.32 Windows kubelet builds
 * only a WindowsContainerConfig (kuberuntime_container_windows.go
 * generateWindowsContainerConfig: user name, GMSA, HostProcess; no
 * privileged), and containerd's Windows CRI path has no privileged check, so
 * the container starts as an ordinary process-isolated one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletOnFakeClock, summary } from '../helpers/kubelet-on-fake-clock.js';

test('a privileged container without spec.os runs on a Windows node: the Windows kubelet does not pass privileged on', async () => {
  const k = await kubeletOnFakeClock();
  try {
    await k.create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'priv', namespace: 'default' },
      spec: {
        nodeName: 'win2022-1', automountServiceAccountToken: false, tolerations: [{ operator: 'Exists' }],
        containers: [{ name: 'app', image: 'mcr.microsoft.com/windows/servercore:ltsc2022', command: ['cmd', '/c', 'ping -t localhost'],
          securityContext: { privileged: true } }],
      },
    });
    await k.settle();
    assert.equal(summary(await k.status('priv')), 'running restarts=0');
    assert.deepEqual((await k.events('priv')).filter((e) => e.startsWith('Warning')), []);
  } finally {
    await k.stop();
  }
});
