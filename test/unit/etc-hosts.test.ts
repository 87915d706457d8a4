/**
 * The /etc/hosts the kubelet writes into a pod's Linux containers
 * (kubelet_pods.go): the managed file with hostAliases, the host-network
 * file, none for a container mounting its own /etc/hosts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/apimachinery/object.js';
import { kubeletEtcHosts, nodeHostsFile } from '../../src/node/runtime/etc-hosts.js';
import { containerFS } from '../../src/node/runtime/volumes.js';

const NODE = nodeHostsFile('linux-1');
const pod = (spec: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'ns1' }, spec: { containers: [], ...spec } });
const LOCAL = '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n';

test('managed file: header, localhost entries, the pod IP and name, then the aliases one line per IP', () => {
  const aliases = [{ ip: '123.45.67.89', hostnames: ['foo.local', 'bar.local'] }, { ip: '10.1.2.3', hostnames: ['foo.remote'] }];
  assert.equal(kubeletEtcHosts(pod({ hostAliases: aliases }), { name: 'c' }, ['10.244.1.5'], NODE),
    `# Kubernetes-managed hosts file.\n${LOCAL}10.244.1.5\tweb\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo.local\tbar.local\n10.1.2.3\tfoo.remote\n`);
  assert.equal(kubeletEtcHosts(pod({ hostname: 'h', subdomain: 'sub' }), { name: 'c' }, ['10.244.1.5'], NODE),
    `# Kubernetes-managed hosts file.\n${LOCAL}10.244.1.5\th.sub.ns1.svc.cluster.local\th\n`);
});

test('host network: the node file under its own header; a mount at /etc/hosts or no pod IP: none', () => {
  assert.equal(kubeletEtcHosts(pod({ hostNetwork: true }), { name: 'c' }, ['172.18.0.2'], NODE), `# Kubernetes-managed hosts file (host network).\n${NODE}`);
  assert.equal(kubeletEtcHosts(pod({}), { name: 'c', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] }, ['10.244.1.5'], NODE), undefined);
  assert.equal(kubeletEtcHosts(pod({}), { name: 'c' }, [], NODE), undefined);
});

test('containerFS: /etc/hosts managed, a hostPath of the node file mounted as that file', () => {
  const p = pod({ volumes: [{ name: 'h', hostPath: { path: '/etc/hosts', type: 'FileOrCreate' } }] });
  const ctx = { sources: { configMap: () => undefined, secret: () => undefined, services: () => [] },
    net: { nodeName: 'linux-1', hostIPs: ['172.18.0.2'], podIPs: ['10.244.1.5'], allocatable: { cpu: '2', memory: '4Gi' }, os: 'linux' as const },
    hostFile: (path: string) => (path === '/etc/hosts' ? NODE : undefined) };
  const managed = containerFS(p, { name: 'a', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts-original' }] }, 'linux', ctx);
  assert.equal(managed.read('/etc/hosts'), `# Kubernetes-managed hosts file.\n${LOCAL}10.244.1.5\tweb\n`);
  assert.equal(managed.read('/etc/hosts-original'), NODE);
  const own = containerFS(p, { name: 'b', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] }, 'linux', ctx);
  assert.equal(own.read('/etc/hosts'), NODE);
});
