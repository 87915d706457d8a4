/**
 * Service validation as v1.32's pkg/apis/core/validation (ValidateService,
 * validateServicePort, ValidateServiceClusterIPsRelatedFields,
 * ValidateServiceUpdate and their helpers), run on the v1 object after
 * defaulting and the registry's IP family / allocation steps.
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, dns1123Label, dns1123Subdomain, goStrings, isIPv6String, isObj, isValidCIDR, isValidIP, isValidPortNum,
  num, parseIPSloppy, qualifiedName, raw, str, validateLabels, validateNonSpecialIP, validatePortNumOrName, type Obj,
} from './common.js';

/** ports.KubeletPort */
const KUBELET_PORT = 10250;
/** core.MaxClientIPServiceAffinitySeconds */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const TOPOLOGY_HINTS = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const LB_SOURCE_RANGES = 'service.beta.kubernetes.io/load-balancer-source-ranges';

const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SUPPORTED_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SUPPORTED_AFFINITY = ['ClientIP', 'None'];
const SUPPORTED_ITP = ['Cluster', 'Local'];
const SUPPORTED_ETP = ['Cluster', 'Local'];
const SUPPORTED_FAMILIES = ['IPv4', 'IPv6'];
const SUPPORTED_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

const specOf = (svc: Obj): Obj => (isObj(svc.spec) ? svc.spec : {});
const typeOf = (svc: Obj) => str(specOf(svc).type);
const clusterIPs = (svc: Obj): string[] => arr(specOf(svc).clusterIPs).map(str);

/** isHeadlessService */
export const isHeadlessService = (svc: Obj) => clusterIPs(svc).length === 1 && clusterIPs(svc)[0] === 'None';

/** apiservice.ExternallyAccessible */
const externallyAccessible = (svc: Obj) => ['LoadBalancer', 'NodePort'].includes(typeOf(svc)) ||
  (typeOf(svc) === 'ClusterIP' && arr(specOf(svc).externalIPs).length > 0);

/** apiservice.NeedsHealthCheck */
const needsHealthCheck = (svc: Obj) => typeOf(svc) === 'LoadBalancer' && specOf(svc).externalTrafficPolicy === 'Local';

/** %#v of the core.ServicePort key the duplicate check builds (only protocol and port set). */
function servicePortKey(protocol: string, port: number): string {
  return `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, ` +
    'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}';
}

/** validateServicePort */
function validateServicePort(sp: Obj, requireName: boolean, allNames: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sp.name);
  if (requireName && !name) {
    errs.push(field.required(`${path}.name`));
  } else if (name) {
    errs.push(...dns1123Label(name, `${path}.name`));
    if (allNames.has(name)) errs.push(field.duplicate(`${path}.name`, name));
    else allNames.add(name);
  }
  for (const m of isValidPortNum(num(sp.port))) errs.push(field.invalid(`${path}.port`, num(sp.port), m));
  const protocol = str(sp.protocol);
  if (!protocol) errs.push(field.required(`${path}.protocol`));
  else if (!SUPPORTED_PROTOCOLS.includes(protocol)) errs.push(field.notSupported(`${path}.protocol`, protocol, SUPPORTED_PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort ?? 0, `${path}.targetPort`));
  if (sp.appProtocol != null) errs.push(...qualifiedName(str(sp.appProtocol), `${path}.appProtocol`));
  return errs;
}

/** validateClientIPAffinityConfig */
function validateClientIPAffinityConfig(config: unknown, path: string): FieldError[] {
  const when = 'when session affinity type is ClientIP';
  if (!isObj(config)) return [field.required(path, when)];
  if (!isObj(config.clientIP)) return [field.required(`${path}.clientIP`, when)];
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout == null) return [field.required(`${path}.clientIP.timeoutSeconds`, when)];
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [field.invalid(`${path}.clientIP.timeoutSeconds`, timeout,
      `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** netutils.IsDualStackIPStrings: one address of each family. */
function isDualStack(ips: string[]): boolean {
  let v4 = 0;
  let v6 = 0;
  for (const ip of ips) {
    if (isIPv6String(ip)) v6++; else v4++;
  }
  return v4 >= 1 && v6 >= 1;
}

/** ValidateServiceClusterIPsRelatedFields */
export function validateServiceClusterIPsRelatedFields(svc: Obj): FieldError[] {
  if (typeOf(svc) === 'ExternalName') return [];
  const s = specOf(svc);
  const errs: FieldError[] = [];
  const ips = clusterIPs(svc);
  const families = arr(s.ipFamilies).map(str);
  const clusterIP = str(s.clusterIP);
  if (clusterIP) {
    if (!ips.length) errs.push(field.required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP) errs.push(field.invalid('spec.clusterIPs', goStrings(ips), 'first value must match `clusterIP`'));
  } else if (ips.length) {
    errs.push(field.invalid('spec.clusterIPs', goStrings(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (!SUPPORTED_FAMILIES.includes(f)) errs.push(field.notSupported(`spec.ipFamilies[${i}]`, f, SUPPORTED_FAMILIES));
    if (seen.has(f)) errs.push(field.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy != null && !SUPPORTED_FAMILY_POLICIES.includes(str(s.ipFamilyPolicy))) {
    errs.push(field.notSupported('spec.ipFamilyPolicy', str(s.ipFamilyPolicy), SUPPORTED_FAMILY_POLICIES));
  }
  let hasInvalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        hasInvalidIPs = true;
        errs.push(field.invalid('spec.clusterIPs', goStrings(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const e = isValidIP(`spec.clusterIPs[${i}]`, ip);
    if (e.length) hasInvalidIPs = true;
    errs.push(...e);
  });
  if (ips.length > 2) errs.push(field.invalid('spec.clusterIPs', goStrings(ips), 'may only hold up to 2 values'));
  if (hasInvalidIPs) return errs;
  if (ips.length > 1 && !isDualStack(ips)) {
    errs.push(field.invalid('spec.clusterIPs', goStrings(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadlessService(svc) && ips.length && families.length) {
    for (const [i, ip] of ips.slice(0, families.length).entries()) {
      if (families[i] === 'IPv4' && isIPv6String(ip)) {
        errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      }
      if (families[i] === 'IPv6' && !isIPv6String(ip)) {
        errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
      }
    }
  }
  return errs;
}

/** validateLoadBalancerClassField */
function validateLoadBalancerClassField(old: Obj | undefined, svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const cls = specOf(svc).loadBalancerClass;
  if (old && typeOf(old) === 'LoadBalancer' && typeOf(svc) === 'LoadBalancer') {
    const oldCls = specOf(old).loadBalancerClass;
    if ((oldCls ?? null) !== (cls ?? null)) {
      errs.push(field.invalid('spec.loadBalancerClass', cls == null ? null : str(cls), 'may not change once set'));
    }
  }
  if (typeOf(svc) === 'LoadBalancer') {
    if (cls != null) errs.push(...qualifiedName(str(cls), 'spec.loadBalancerClass'));
  } else if (cls != null) {
    errs.push(field.forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

/** validateServiceExternalTrafficPolicy */
function validateServiceExternalTrafficPolicy(svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const s = specOf(svc);
  const etp = str(s.externalTrafficPolicy);
  if (!externallyAccessible(svc)) {
    if (etp) errs.push(field.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (!etp) {
    errs.push(field.required('spec.externalTrafficPolicy'));
  } else if (!SUPPORTED_ETP.includes(etp)) {
    errs.push(field.notSupported('spec.externalTrafficPolicy', etp, SUPPORTED_ETP));
  }
  const hc = num(s.healthCheckNodePort);
  if (!needsHealthCheck(svc)) {
    if (hc !== 0) {
      errs.push(field.invalid('spec.healthCheckNodePort', hc,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (hc === 0) {
    errs.push(field.required('spec.healthCheckNodePort'));
  } else {
    for (const m of isValidPortNum(hc)) errs.push(field.invalid('spec.healthCheckNodePort', hc, m));
  }
  return errs;
}

/** validateServiceInternalTrafficFieldsValue */
function validateServiceInternalTrafficFieldsValue(svc: Obj): FieldError[] {
  const itp = specOf(svc).internalTrafficPolicy;
  if (itp == null) {
    return ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(typeOf(svc)) ? [field.required('spec.internalTrafficPolicy')] : [];
  }
  return SUPPORTED_ITP.includes(str(itp)) ? [] : [field.notSupported('spec.internalTrafficPolicy', str(itp), SUPPORTED_ITP)];
}

/** validateServiceTrafficDistribution (v1.32: PreferClose only). */
function validateServiceTrafficDistribution(svc: Obj): FieldError[] {
  const td = specOf(svc).trafficDistribution;
  if (td == null || str(td) === 'PreferClose') return [];
  return [field.notSupported('spec.trafficDistribution', str(td), ['PreferClose'])];
}

/** ValidateService without its ValidateObjectMeta (the registry runs that first). */
export function validateServiceSpec(svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const annotations: Obj = isObj(svc.metadata?.annotations) ? svc.metadata.annotations : {};
  if (TOPOLOGY_MODE in annotations && TOPOLOGY_HINTS in annotations && annotations[TOPOLOGY_MODE] !== annotations[TOPOLOGY_HINTS]) {
    errs.push(field.invalid(`metadata.annotations[${TOPOLOGY_MODE}]`, str(annotations[TOPOLOGY_MODE]),
      `must match annotations[${TOPOLOGY_HINTS}] when both are specified`));
  }
  const s = specOf(svc);
  const type = typeOf(svc);
  const ports = arr<Obj>(s.ports).map((p) => (isObj(p) ? p : {}));
  const headless = isHeadlessService(svc);
  if (!ports.length && !headless && type !== 'ExternalName') errs.push(field.required('spec.ports'));
  switch (type) {
    case 'LoadBalancer':
      // Dropped by kubernetes/kubernetes#129174, after v1.32.
      ports.forEach((p, i) => {
        if (num(p.port) === KUBELET_PORT) {
          errs.push(field.invalid(`spec.ports[${i}]`, num(p.port), `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
        }
      });
      if (headless) errs.push(field.invalid('spec.clusterIPs[0]', clusterIPs(svc)[0] ?? '', "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (headless) errs.push(field.invalid('spec.clusterIPs[0]', clusterIPs(svc)[0] ?? '', "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (clusterIPs(svc).length) errs.push(field.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (arr(s.ipFamilies).length) errs.push(field.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      if (s.ipFamilyPolicy != null) errs.push(field.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      // The value (a CNAME) may have a trailing dot to denote it as fully qualified.
      const cname = str(s.externalName).replace(/\.$/, '');
      if (cname) errs.push(...dns1123Subdomain(cname, 'spec.externalName'));
      else errs.push(field.required('spec.externalName'));
      break;
    }
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (s.selector != null) errs.push(...validateLabels(s.selector, 'spec.selector'));
  const affinity = str(s.sessionAffinity);
  if (!affinity) errs.push(field.required('spec.sessionAffinity'));
  else if (!SUPPORTED_AFFINITY.includes(affinity)) errs.push(field.notSupported('spec.sessionAffinity', affinity, SUPPORTED_AFFINITY));
  if (affinity === 'ClientIP') {
    errs.push(...validateClientIPAffinityConfig(s.sessionAffinityConfig, 'spec.sessionAffinityConfig'));
  } else if (affinity === 'None' && s.sessionAffinityConfig != null) {
    errs.push(field.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateServiceClusterIPsRelatedFields(svc));
  arr(s.externalIPs).forEach((ip, i) => {
    const p = `spec.externalIPs[${i}]`;
    const e = isValidIP(p, str(ip));
    errs.push(...(e.length ? e : validateNonSpecialIP(str(ip), p)));
  });
  if (!type) errs.push(field.required('spec.type'));
  else if (!SUPPORTED_TYPES.includes(type)) errs.push(field.notSupported('spec.type', type, SUPPORTED_TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (num(p.nodePort) !== 0) errs.push(field.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!num(p.nodePort)) return;
    const key = `${str(p.protocol)}/${num(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(field.duplicate(`spec.ports[${i}].nodePort`, num(p.nodePort)));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${str(p.protocol)}/${num(p.port)}`;
    if (portKeys.has(key)) errs.push(field.duplicate(`spec.ports[${i}]`, raw(servicePortKey(str(p.protocol), num(p.port)))));
    portKeys.add(key);
  });
  const ranges = arr(s.loadBalancerSourceRanges);
  if (ranges.length) {
    const p = 'spec.LoadBalancerSourceRanges';
    if (type !== 'LoadBalancer') errs.push(field.forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    // Values may be space-padded (a historical accident of the annotation).
    ranges.forEach((v, i) => errs.push(...isValidCIDR(`${p}[${i}]`, str(v).trim())));
  } else if (LB_SOURCE_RANGES in annotations) {
    const p = `metadata.annotations[${LB_SOURCE_RANGES}]`;
    if (type !== 'LoadBalancer') errs.push(field.forbidden(p, "may only be used when `type` is 'LoadBalancer'"));
    const val = str(annotations[LB_SOURCE_RANGES]).trim();
    if (val) for (const c of val.split(',')) errs.push(...isValidCIDR(p, c.trim()));
  }
  if (s.allocateLoadBalancerNodePorts != null && type !== 'LoadBalancer') {
    errs.push(field.forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  // Upstream's path really lacks the spec prefix.
  if (type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts == null) errs.push(field.required('allocateLoadBalancerNodePorts'));
  errs.push(...validateLoadBalancerClassField(undefined, svc));
  errs.push(...validateServiceExternalTrafficPolicy(svc));
  errs.push(...validateServiceInternalTrafficFieldsValue(svc));
  errs.push(...validateServiceTrafficDistribution(svc));
  return errs;
}

/** validateUpgradeDowngradeClusterIPs */
function validateUpgradeDowngradeClusterIPs(old: Obj, svc: Obj): FieldError[] {
  if (typeOf(svc) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  if (isHeadlessService(old) && isHeadlessService(svc)) return [];
  const errs: FieldError[] = [];
  const o = clusterIPs(old);
  const n = clusterIPs(svc);
  const value = goStrings(specOf(svc).clusterIPs);
  if (o.length === n.length) {
    o.forEach((ip, i) => { if (ip !== n[i]) errs.push(field.invalid(`spec.clusterIPs[${i}]`, value, 'may not change once set')); });
  } else if (o.length > n.length) {
    if (!n.length) errs.push(field.invalid('spec.clusterIPs[0]', value, 'primary clusterIP can not be unset'));
    if (o.length && n.length && n[0] !== o[0]) errs.push(field.invalid('spec.clusterIPs[0]', value, 'may not change once set'));
    if (n.length === 1 && specOf(svc).ipFamilyPolicy !== 'SingleStack') {
      const pol = specOf(svc).ipFamilyPolicy;
      errs.push(field.invalid('spec.ipFamilyPolicy', pol == null ? null : str(pol),
        "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (o.length && n[0] !== o[0]) {
    errs.push(field.invalid('spec.clusterIPs[0]', value, 'may not change once set'));
  }
  return errs;
}

/** %#v of a []core.IPFamily. */
const goFamilies = (v: unknown) => raw(v == null ? '[]core.IPFamily(nil)' : `[]core.IPFamily{${arr(v).map((f) => goQuote(str(f))).join(', ')}}`);

/** validateUpgradeDowngradeIPFamilies */
function validateUpgradeDowngradeIPFamilies(old: Obj, svc: Obj): FieldError[] {
  if (typeOf(svc) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  if (isHeadlessService(svc) !== isHeadlessService(old) || isHeadlessService(svc)) return [];
  const errs: FieldError[] = [];
  const o = arr(specOf(old).ipFamilies).map(str);
  const n = arr(specOf(svc).ipFamilies).map(str);
  if (o.length === n.length) {
    o.forEach((f, i) => {
      if (f !== n[i]) errs.push(field.invalid('spec.ipFamilies[0]', goFamilies(specOf(svc).ipFamilies), 'may not change once set'));
    });
  } else if (o.length > n.length) {
    if (!clusterIPs(svc).length) errs.push(field.invalid('spec.ipFamilies[0]', goFamilies(specOf(svc).ipFamilies), 'primary ipFamily can not be unset'));
    if (n.length && n[0] !== o[0]) errs.push(field.invalid('spec.ipFamilies[0]', goStrings(specOf(svc).clusterIPs), 'may not change once set'));
    if (n.length === 1 && specOf(svc).ipFamilyPolicy !== 'SingleStack') {
      const pol = specOf(svc).ipFamilyPolicy;
      errs.push(field.invalid('spec.ipFamilyPolicy', pol == null ? null : str(pol),
        "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (o.length && n.length && n[0] !== o[0]) {
    errs.push(field.invalid('spec.ipFamilies[0]', goStrings(specOf(svc).clusterIPs), 'may not change once set'));
  }
  return errs;
}

/** ValidateServiceUpdate's checks between ValidateObjectMetaUpdate and ValidateService. */
export function validateServiceUpdateSpec(svc: Obj, old: Obj): FieldError[] {
  const errs = [
    ...validateUpgradeDowngradeClusterIPs(old, svc),
    ...validateUpgradeDowngradeIPFamilies(old, svc),
    ...validateLoadBalancerClassField(old, svc),
  ];
  if (needsHealthCheck(old) && needsHealthCheck(svc) && num(specOf(svc).healthCheckNodePort) !== num(specOf(old).healthCheckNodePort)) {
    errs.push(field.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}

/** ValidateLoadBalancerStatus (LoadBalancerIPMode on, AllowServiceLBStatusOnNonLB off in v1.32). */
export function validateLoadBalancerStatus(svc: Obj): FieldError[] {
  const ingress = arr<Obj>(svc.status?.loadBalancer?.ingress);
  const path = 'status.loadBalancer.ingress';
  if (typeOf(svc) !== 'LoadBalancer' && ingress.length) {
    return [field.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  const errs: FieldError[] = [];
  ingress.forEach((ing0, i) => {
    const ing: Obj = isObj(ing0) ? ing0 : {};
    const p = `${path}[${i}]`;
    const ip = str(ing.ip);
    if (ip) errs.push(...isValidIP(`${p}.ip`, ip));
    if (ing.ipMode == null) {
      if (ip) errs.push(field.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    } else if (!ip) {
      errs.push(field.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not set'));
    } else if (!['Proxy', 'VIP'].includes(str(ing.ipMode))) {
      errs.push(field.notSupported(`${p}.ipMode`, str(ing.ipMode), ['Proxy', 'VIP']));
    }
    const host = str(ing.hostname);
    if (host) {
      errs.push(...dns1123Subdomain(host, `${p}.hostname`));
      if (parseIPSloppy(host)) errs.push(field.invalid(`${p}.hostname`, host, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
