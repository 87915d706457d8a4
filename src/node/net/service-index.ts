/**
 * The addresses kube-proxy programs, looked up by where a packet is going:
 * Services by ClusterIP, by nodePort, by externalIP and LoadBalancer
 * ingress IP; each Service port's endpoints; nodes by address, name and pod
 * CIDR. Built once from the informer caches and thrown away when any of
 * them changes, so a connection costs map lookups, not scans.
 */
import type { Node, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import { netNodeOf, type NetNode } from './net-node.js';
import { proxyEndpoints, type ProxyEndpoint } from './proxy-endpoints.js';

/** The label that ties an EndpointSlice to its Service (discovery.k8s.io/v1 LabelServiceName). */
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface IndexSources {
  services(): KObject[];
  endpointSlices(namespace: string): KObject[];
  nodes?(): KObject[];
}

export class ServiceIndex {
  private readonly clusterIPs = new Map<string, Service>();
  private readonly nodePorts = new Map<number, { service: Service; port: ServicePort }>();
  private readonly external = new Map<string, { service: Service; frontend: 'externalIP' | 'loadBalancer' }>();
  private readonly nodesByIP = new Map<string, NetNode>();
  private readonly nodesByName = new Map<string, NetNode>();
  private readonly nodesByPodPrefix = new Map<string, NetNode>();
  private readonly slicesByService = new Map<string, EndpointSlice[]>();
  private readonly endpointCache = new Map<string, ProxyEndpoint[]>();
  private readonly indexedNamespaces = new Set<string>();

  constructor(private readonly sources: IndexSources) {
    for (const o of sources.services()) {
      const svc = o as unknown as Service;
      const spec = svc.spec ?? {};
      const ips = spec.clusterIPs?.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
      for (const ip of ips) if (ip && ip !== 'None') this.clusterIPs.set(ip, svc);
      if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
        for (const p of spec.ports ?? []) if (p.nodePort && (p.protocol ?? 'TCP') === 'TCP') this.nodePorts.set(p.nodePort, { service: svc, port: p });
      }
      for (const ip of spec.externalIPs ?? []) this.external.set(ip, { service: svc, frontend: 'externalIP' });
      if (spec.type === 'LoadBalancer') {
        for (const g of svc.status?.loadBalancer?.ingress ?? []) if (g.ip) this.external.set(g.ip, { service: svc, frontend: 'loadBalancer' });
      }
    }
    for (const o of sources.nodes?.() ?? []) {
      const n = netNodeOf(o as unknown as Node);
      if (!n) continue;
      this.nodesByIP.set(n.internalIP, n);
      this.nodesByName.set(n.name, n);
      const prefix = n.podCIDR?.replace(/\.0\/24$/, '.');
      if (prefix && prefix !== n.podCIDR) this.nodesByPodPrefix.set(prefix, n);
    }
  }

  byClusterIP(ip: string): Service | undefined { return this.clusterIPs.get(ip); }
  byNodePort(port: number): { service: Service; port: ServicePort } | undefined { return this.nodePorts.get(port); }
  byExternalAddress(ip: string): { service: Service; frontend: 'externalIP' | 'loadBalancer' } | undefined { return this.external.get(ip); }
  nodeByIP(ip: string): NetNode | undefined { return this.nodesByIP.get(ip); }
  nodeByName(name: string): NetNode | undefined { return this.nodesByName.get(name); }
  /** The node whose pod CIDR holds the address. */
  nodeOfPodIP(ip: string): NetNode | undefined { return this.nodesByPodPrefix.get(ip.slice(0, ip.lastIndexOf('.') + 1)); }
  get hasNodes(): boolean { return this.nodesByName.size > 0; }

  /** The endpoints of a Service port (by its name) as kube-proxy's endpoint-slice cache holds them. */
  endpoints(service: Service, portName: string): ProxyEndpoint[] {
    const ns = service.metadata?.namespace ?? 'default';
    const key = `${ns}/${service.metadata?.name ?? ''}`;
    const cacheKey = `${key}:${portName}`;
    let eps = this.endpointCache.get(cacheKey);
    if (!eps) {
      this.indexNamespace(ns);
      eps = proxyEndpoints(this.slicesByService.get(key) ?? [], portName);
      this.endpointCache.set(cacheKey, eps);
    }
    return eps;
  }

  private indexNamespace(ns: string): void {
    if (this.indexedNamespaces.has(ns)) return;
    this.indexedNamespaces.add(ns);
    for (const o of this.sources.endpointSlices(ns)) {
      const service = o.metadata.labels?.[SERVICE_NAME_LABEL];
      if (!service) continue;
      const key = `${ns}/${service}`;
      const list = this.slicesByService.get(key);
      if (list) list.push(o as unknown as EndpointSlice);
      else this.slicesByService.set(key, [o as unknown as EndpointSlice]);
    }
  }
}
