/** Port-forward into a Windows pod runs wincat in its sandbox: the pause images carry it, one's own image is taken not to. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { portForwardSandboxError, sandboxImageHasWincat } from '../../src/os/wincat.js';
import { dialPodPort } from '../../src/node/exec/port-forward.js';
import type { KObject } from '../../src/apimachinery/object.js';

test('which sandbox images carry wincat', () => {
  const cases: [string, boolean][] = [
    ['registry.k8s.io/pause:3.10', true],
    ['registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a', true],
    ['k8s.gcr.io/pause:3.6', true],
    ['mcr.microsoft.com/oss/kubernetes/pause:3.9', true],
    ['mcr.microsoft.com/k8s/core/pause:1.2.0', true],
    ['mypause:1.0', false],
    ['registry.example.com:5000/pause:3.10', false],
  ];
  for (const [image, want] of cases) assert.equal(sandboxImageHasWincat(image), want, image);
});

test('only a Windows sandbox needs it', () => {
  assert.equal(portForwardSandboxError('windows', 'mypause:1.0'), 'unable to do port forwarding: wincat not found');
  assert.equal(portForwardSandboxError('windows', 'registry.k8s.io/pause:3.10'), undefined);
  assert.equal(portForwardSandboxError('linux', 'mypause:1.0'), undefined);
});

test('the runtime fails the forward before dialling the pod\'s port', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', uid: 'u1' }, status: { podIP: '10.244.3.2' } } as KObject;
  assert.deepEqual(dialPodPort(undefined, pod, 80, { os: 'windows', image: 'mypause:1.0' }), { kind: 'failed', message: 'unable to do port forwarding: wincat not found' });
  const refused = dialPodPort(undefined, pod, 80, { os: 'windows', image: 'registry.k8s.io/pause:3.10' });
  assert.equal(refused.kind === 'failed' && refused.message.startsWith('failed to execute portforward in network namespace'), true);
});
