/** networking.k8s.io: printNetworkPolicy, printIngress, printIngressClass. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, byteOrder, nameOf } from './cells.js';
import { formatLabelSelector } from '../../selectors/labels.js';

/** extensions/v1beta1 NetworkPolicySpec's podSelector doc, which upstream's column description still quotes. */
const POD_SELECTOR_DESC = 'Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.';

export const networkPolicyPrinter: Printer = {
  columns: [nameColumn, column('Pod-Selector', 'string', POD_SELECTOR_DESC), ageColumn],
  cells: (obj: any, now: number) => [nameOf(obj), formatLabelSelector(obj?.spec?.podSelector ?? {}), ageOf(obj, now)],
};

/** formatHosts: the first three hosts given, "*" when none. */
function formatHosts(rules: any[]): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (list.length === max) more = true;
    if (!more && rule?.host) list.push(String(rule.host));
  }
  if (!list.length) return '*';
  const ret = list.join(',');
  return more ? `${ret} + ${rules.length - max} more...` : ret;
}

/**
 * ingressLoadBalancerStatusStringer, wide as the server prints (its TableConvertor
 * generates with Wide: true): distinct IPs or hostnames, sorted, never clipped.
 */
function loadBalancerAddresses(ingress: any[]): string {
  const set = new Set<string>();
  for (const i of ingress) {
    if (i?.ip) set.add(String(i.ip));
    else if (i?.hostname) set.add(String(i.hostname));
  }
  return [...set].sort(byteOrder).join(',');
}

export const ingressPrinter: Printer = {
  columns: [
    nameColumn,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    const spec = obj?.spec ?? {};
    return [
      nameOf(obj), spec.ingressClassName ?? '<none>', formatHosts(Array.isArray(spec.rules) ? spec.rules : []),
      loadBalancerAddresses(obj?.status?.loadBalancer?.ingress ?? []), Array.isArray(spec.tls) && spec.tls.length ? '80, 443' : '80',
      ageOf(obj, now),
    ];
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    const p = obj?.spec?.parameters;
    let parameters = '<none>';
    if (p) parameters = `${p.kind ?? ''}${p.apiGroup != null ? `.${p.apiGroup}` : ''}/${p.name ?? ''}`;
    return [nameOf(obj), obj?.spec?.controller ?? '', parameters, ageOf(obj, now)];
  },
};
