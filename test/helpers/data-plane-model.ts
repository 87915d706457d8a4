/**
 * A cluster network model fed with objects (no API server): four nodes, one
 * per kind of data plane the tests compare (two Linux, Windows Server 2022
 * and 2019), pods attached to them, listeners that record what each
 * connection's backend sees, and Services and EndpointSlices built from
 * short descriptions.
 */
import type { KObject } from '../../src/apimachinery/object.js';
import { ClusterNetwork, type DataPlaneOptions } from '../../src/node/net/cluster-network.js';
import { CoreDNS } from '../../src/node/net/coredns.js';
import { egressContext } from '../../src/node/net/outside-access.js';
import { OutsideWorld } from '../../src/node/net/outside-world.js';
import type { ClusterNetwork as PodNetworkSettings } from '../../src/node/network.js';
import { Pending } from '../../src/node/shell/pending.js';
import type { HttpResponse } from '../../src/node/shell/net-types.js';

export interface TestNode { name: string; ip: string; podCIDR: string; os: 'linux' | 'windows'; build?: number }

export const NODES: TestNode[] = [
  { name: 'lin1', ip: '172.18.0.2', podCIDR: '10.244.0.0/24', os: 'linux' },
  { name: 'lin2', ip: '172.18.0.3', podCIDR: '10.244.1.0/24', os: 'linux' },
  { name: 'win22', ip: '172.18.0.4', podCIDR: '10.244.2.0/24', os: 'windows', build: 20348 },
  { name: 'win19', ip: '172.18.0.5', podCIDR: '10.244.3.0/24', os: 'windows', build: 17763 },
];

export function nodeObject(n: TestNode): KObject {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name: n.name, labels: { 'kubernetes.io/os': n.os } },
    spec: { podCIDR: n.podCIDR },
    status: {
      addresses: [{ type: 'InternalIP', address: n.ip }, { type: 'Hostname', address: n.name }],
      nodeInfo: { operatingSystem: n.os, kernelVersion: n.os === 'windows' ? `10.0.${n.build}.1` : '5.15.0-1-amd64' },
    },
  };
}

export interface ServiceShape {
  name: string; clusterIP: string; port?: number; targetPort?: number | string; portName?: string;
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer'; nodePort?: number; ingressIP?: string; externalIPs?: string[];
  externalTrafficPolicy?: 'Cluster' | 'Local'; internalTrafficPolicy?: 'Cluster' | 'Local';
  sessionAffinity?: 'ClientIP'; timeoutSeconds?: number; annotations?: Record<string, string>;
}

export function service(s: ServiceShape): KObject {
  const type = s.type ?? (s.nodePort ? 'NodePort' : 'ClusterIP');
  return {
    apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: s.name, ...(s.annotations ? { annotations: s.annotations } : {}) },
    spec: {
      type, clusterIP: s.clusterIP, clusterIPs: [s.clusterIP],
      ports: [{ ...(s.portName ? { name: s.portName } : {}), port: s.port ?? 80, targetPort: s.targetPort ?? 80, protocol: 'TCP', ...(s.nodePort ? { nodePort: s.nodePort } : {}) }],
      ...(s.externalIPs ? { externalIPs: s.externalIPs } : {}),
      ...(type !== 'ClusterIP' ? { externalTrafficPolicy: s.externalTrafficPolicy ?? 'Cluster' } : {}),
      internalTrafficPolicy: s.internalTrafficPolicy ?? 'Cluster',
      sessionAffinity: s.sessionAffinity ?? 'None',
      ...(s.sessionAffinity ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: s.timeoutSeconds ?? 10800 } } } : {}),
    },
    status: { loadBalancer: s.ingressIP ? { ingress: [{ ip: s.ingressIP, ipMode: 'VIP' }] } : {} },
  };
}

export interface EndpointShape { ip: string; node: string; port?: number; ready?: boolean; serving?: boolean; terminating?: boolean }

export function slice(serviceName: string, endpoints: EndpointShape[], portName = ''): KObject {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { namespace: 'default', name: `${serviceName}-x${endpoints.length}`, labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4', ports: [{ name: portName, port: endpoints[0]?.port ?? 80, protocol: 'TCP' }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip], nodeName: e.node,
      conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
    })),
  };
}

export interface Model {
  net: ClusterNetwork;
  services: KObject[];
  slices: KObject[];
  /** A connection and one exchange: `<backend ip>:<port> from <client ip the backend saw>`, or how the connect failed. */
  dial(from: string, ip: string, port: number): string;
  /** The same from a client outside the cluster whose packets enter by a node's address. */
  dialOutside(entry: string, client: string, ip: string, port: number): string;
  /** A pod on a node, listening on `ports` (80 by default). */
  pod(name: string, node: string, ip: string, ports?: number[]): void;
}

/**
 * `outside`: the emulated outside world beyond the cluster, reached with
 * each pod's node's SNAT rules (none by default: outside addresses time out).
 */
export function model(opts: { network?: PodNetworkSettings; random?: () => number; data?: DataPlaneOptions; nodes?: TestNode[]; outside?: boolean } = {}): Model {
  const services: KObject[] = [];
  const slices: KObject[] = [];
  const nodes = (opts.nodes ?? NODES).map(nodeObject);
  const network = opts.network ?? { plugin: 'flannel', mode: 'overlay' };
  const net = new ClusterNetwork({
    services: () => services,
    service: (ns, name) => services.find((s) => s.metadata.namespace === ns && s.metadata.name === name),
    endpointSlices: (ns) => slices.filter((s) => s.metadata.namespace === ns),
    nodes: () => nodes,
    podNetwork: () => network,
  }, opts.random ?? (() => 0), undefined, opts.outside ? outsideAccess(opts.nodes ?? NODES, network) : undefined, opts.data);
  let last = '';
  const finish = (c: ReturnType<ClusterNetwork['connect']>): string => {
    if (c.kind !== 'connected') return c.kind;
    last = 'no exchange';
    c.exchange({ method: 'GET', target: '/', headers: [], body: new Uint8Array() });
    return last;
  };
  return {
    net, services, slices,
    dial: (from, ip, port) => finish(net.connect(from, ip, port)),
    dialOutside: (entry, client, ip, port) => finish(net.connectFromOutside(entry, client, ip, port)),
    pod: (name, node, ip, ports = [80]) => {
      net.attach(ip, { namespace: 'default', name, node });
      for (const p of ports) {
        net.listen(ip, p, 'TCP', (_req, conn) => {
          last = `${conn.local.ip}:${conn.local.port} from ${conn.client.ip}`;
          return Pending.of<HttpResponse>({ status: 200, reason: 'OK', headers: [], body: new Uint8Array() });
        });
      }
    },
  };
}

function outsideAccess(nodes: TestNode[], network: PodNetworkSettings) {
  const world = new OutsideWorld();
  return {
    world,
    coreDNS: new CoreDNS(() => undefined, world, () => {}),
    egress: (pod: { node: string }) => {
      const n = nodes.find((x) => x.name === pod.node);
      return n ? egressContext(n.os, n.ip, network) : undefined;
    },
  };
}
