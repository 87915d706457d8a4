/** Services: printService. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, byteOrder, formatLabels, int, nameOf } from './cells.js';

/** loadBalancerStatusStringer, wide as the server prints: ingress IPs or hostnames, sorted and deduplicated. */
function loadBalancerAddresses(svc: any): string {
  const set = new Set<string>();
  for (const i of svc?.status?.loadBalancer?.ingress ?? []) {
    if (i?.ip) set.add(i.ip);
    else if (i?.hostname) set.add(i.hostname);
  }
  return [...set].sort(byteOrder).join(',');
}

/** getServiceExternalIP. */
function externalIP(svc: any): string {
  const external: string[] = svc?.spec?.externalIPs ?? [];
  switch (svc?.spec?.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(svc);
      if (external.length) return [...(lb ? lb.split(',') : []), ...external].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return svc.spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** makePortString: "80/TCP", or "80:30080/TCP" with a node port. */
function ports(svc: any): string {
  return (svc?.spec?.ports ?? [])
    .map((p: any) => (int(p?.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${p.protocol ?? ''}` : `${int(p?.port)}/${p?.protocol ?? ''}`))
    .join(',');
}

/** The first cluster IP after v1→internal conversion: spec.clusterIP wins over clusterIPs[0]. */
function clusterIP(svc: any): string {
  return svc?.spec?.clusterIP || svc?.spec?.clusterIPs?.[0] || '<none>';
}

export const servicePrinter: Printer = {
  columns: [
    nameColumn,
    column('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types'),
    column('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
    column('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.'),
    column('Port(s)', 'string', 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
    ageColumn,
    column('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    return [
      nameOf(obj), obj?.spec?.type ?? '', clusterIP(obj), externalIP(obj), ports(obj) || '<none>', ageOf(obj, now),
      formatLabels(obj?.spec?.selector),
    ];
  },
};
