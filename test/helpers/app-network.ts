/**
 * A small cluster network for the applications' unit tests: a server pod
 * behind the `web` Service (port 80 to the pod's `targetPort`), a Linux
 * client pod, and a Windows client pod; the server's program is driven step
 * by step, the clients run curl through the shell model.
 */
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork, type NetworkLookups } from '../../src/node/net/cluster-network.js';
import type { AppContext } from '../../src/node/apps/app-context.js';
import { collect, ContainerFS, interpret } from '../../src/node/shell/index.js';
import type { Listening } from '../../src/node/shell/net-types.js';
import type { Program } from '../../src/node/shell/types.js';

export const CLIENT_IP = '10.244.1.4';
export const SERVER_IP = '10.244.1.5';
export const WIN_CLIENT_IP = '10.244.2.6';
export const NOW = new Date('2026-11-28T17:16:21Z');
const SEARCHES = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];

export function appNetwork(targetPort = 80) {
  const services: KObject[] = [{ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'web' }, spec: { clusterIP: '10.96.10.1', clusterIPs: ['10.96.10.1'], ports: [{ port: 80, targetPort, protocol: 'TCP' }] } }];
  const slices: KObject[] = [{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: 'web-abcde', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', ports: [{ name: '', port: targetPort, protocol: 'TCP' }], endpoints: [{ addresses: [SERVER_IP], conditions: { ready: true, serving: true, terminating: false } }],
  }];
  const lookups: NetworkLookups = { services: () => services, service: () => services[0], endpointSlices: () => slices };
  const net = new ClusterNetwork(lookups);
  for (const [ip, name] of [[CLIENT_IP, 'client'], [SERVER_IP, 'web-1'], [WIN_CLIENT_IP, 'win-client']] as const) net.attach(ip, { namespace: 'default', name, node: 'n' });
  const serverSockets = new Set<Listening>();
  const server = (over: Partial<AppContext> = {}): AppContext => ({
    net: net.forPod(SERVER_IP, { os: 'linux', searches: SEARCHES }, serverSockets), now: () => NOW, hostname: 'web-1', kernelVersion: '6.8.0-1015-azure', cpus: 2, env: {}, ...over,
  });
  const run = (os: 'linux' | 'windows', argv: string[]) => {
    const ip = os === 'linux' ? CLIENT_IP : WIN_CLIENT_IP;
    return collect(interpret(argv, {
      os, env: {}, hostname: 'client', fs: new ContainerFS(os), posixShell: 'ash',
      network: { podIP: ip, prefixLength: 24, dnsServers: ['10.96.0.10'], searches: SEARCHES },
      net: net.forPod(ip, { os, searches: SEARCHES }, new Set<Listening>()),
    }));
  };
  return {
    net, server, serverSockets,
    curl: (...args: string[]) => run('linux', ['curl', ...args]),
    run,
    /** Closes what the server's process listened on, as the kubelet does when it exits. */
    exit: () => { for (const l of [...serverSockets]) l.close(); },
  };
}

/** What the program writes until it waits (for a request) or ends. */
export const drain = (p: Program) => collect(p, 10_000);
