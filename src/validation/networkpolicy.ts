/**
 * NetworkPolicy validation as v1.32's pkg/apis/networking/validation:
 * ValidateNetworkPolicy (ObjectMeta, spec) and, on update, the same plus
 * ValidateNetworkPolicyUpdate, with the options of ValidationOptionsForNetworking
 * (an old pod selector with invalid label values lets them through).
 */
import { field, goQuote, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, isObj, isValidCIDR, isValidPortName, isValidPortNum, metaCreate, metaUpdate, nameIsDNSSubdomain,
  parseCIDRSloppy, raw, str, validateLabelSelector, type LabelSelectorOptions, type Obj,
} from './common.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

/** ValidateNetworkPolicyPort */
export function validateNetworkPolicyPort(port: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol != null && !PROTOCOLS.includes(str(port.protocol))) {
    errs.push(field.notSupported(`${path}.protocol`, str(port.protocol), PROTOCOLS));
  }
  const endPort = port.endPort;
  if (port.port != null) {
    if (typeof port.port === 'number') {
      for (const m of isValidPortNum(port.port)) errs.push(field.invalid(`${path}.port`, port.port, m));
      if (typeof endPort === 'number') {
        if (endPort < port.port) errs.push(field.invalid(`${path}.endPort`, endPort, 'must be greater than or equal to `port`'));
        for (const m of isValidPortNum(endPort)) errs.push(field.invalid(`${path}.endPort`, endPort, m));
      }
    } else {
      if (typeof endPort === 'number') errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
      for (const m of isValidPortName(str(port.port))) errs.push(field.invalid(`${path}.port`, str(port.port), m));
    }
  } else if (typeof endPort === 'number') {
    errs.push(field.invalid(`${path}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return errs;
}

/** netutils' IPNet.Contains(ip) for a parsed CIDR: the address's first `bits` bits equal the network's. */
function cidrContains(net: { ip: number[]; bits: number }, ip: number[]): boolean {
  if (net.ip.length !== ip.length) return false;
  for (let bit = 0; bit < net.bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((net.ip[byte] ?? 0) & mask) !== ((ip[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** The prefix length Go's Mask.Size() reports (an IPv4 written as IPv6 keeps its 128-bit form, mapped to 4 bytes: 96 bits less). */
function maskSize(s: string, net: { ip: number[]; bits: number }): number {
  return net.ip.length === 4 && s.slice(0, s.indexOf('/')).includes(':') ? net.bits - 96 : net.bits;
}

/**
 * ValidateIPBlock. Since v1.30 (validation.IsValidCIDR replacing
 * apivalidation.ValidateCIDR) every except entry is checked: an unparsable
 * one gets IsValidCIDR's message and is skipped.
 */
export function validateIPBlock(ipb: Obj, path: string): FieldError[] {
  const cidr = str(ipb.cidr);
  if (cidr === '') return [field.required(`${path}.cidr`)];
  const errs = isValidCIDR(`${path}.cidr`, cidr);
  const net = parseCIDRSloppy(cidr);
  if (!net) return errs;
  arr(ipb.except).forEach((e, i) => {
    const p = `${path}.except[${i}]`;
    const s = str(e);
    errs.push(...isValidCIDR(p, s));
    const ex = parseCIDRSloppy(s);
    if (!ex) return;
    // The except network's address is masked, as net.ParseCIDR returns it.
    if (!cidrContains(net, maskedAddress(ex)) || maskSize(cidr, net) >= maskSize(s, ex)) {
      errs.push(field.invalid(p, s, 'must be a strict subset of `cidr`'));
    }
  });
  return errs;
}

function maskedAddress(net: { ip: number[]; bits: number }): number[] {
  const bits = net.ip.length === 4 && net.bits > 32 ? net.bits - 96 : net.bits;
  return net.ip.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff00 >> keep) & 0xff);
  });
}

/** ValidateNetworkPolicyPeer */
function validateNetworkPolicyPeer(peer: Obj, opts: LabelSelectorOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  if (peer.podSelector != null) {
    peers++;
    errs.push(...validateLabelSelector(peer.podSelector, opts, `${path}.podSelector`));
  }
  if (peer.namespaceSelector != null) {
    peers++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, opts, `${path}.namespaceSelector`));
  }
  if (peer.ipBlock != null) {
    peers++;
    errs.push(...validateIPBlock(isObj(peer.ipBlock) ? peer.ipBlock : {}, `${path}.ipBlock`));
  }
  if (peers === 0) errs.push(field.required(path, 'must specify a peer'));
  else if (peers > 1 && peer.ipBlock != null) errs.push(field.forbidden(path, 'may not specify both ipBlock and another peer'));
  return errs;
}

const objs = (v: unknown): Obj[] => arr(v).map((x) => (isObj(x) ? x : {}));

/** ValidateNetworkPolicySpec */
export function validateNetworkPolicySpec(spec: Obj, opts: LabelSelectorOptions, path: string): FieldError[] {
  const errs = validateLabelSelector(spec.podSelector ?? {}, opts, `${path}.podSelector`);
  objs(spec.ingress).forEach((rule, i) => {
    const p = `${path}.ingress[${i}]`;
    objs(rule.ports).forEach((port, j) => errs.push(...validateNetworkPolicyPort(port, `${p}.ports[${j}]`)));
    objs(rule.from).forEach((peer, j) => errs.push(...validateNetworkPolicyPeer(peer, opts, `${p}.from[${j}]`)));
  });
  objs(spec.egress).forEach((rule, i) => {
    const p = `${path}.egress[${i}]`;
    objs(rule.ports).forEach((port, j) => errs.push(...validateNetworkPolicyPort(port, `${p}.ports[${j}]`)));
    objs(rule.to).forEach((peer, j) => errs.push(...validateNetworkPolicyPeer(peer, opts, `${p}.to[${j}]`)));
  });
  const types = arr(spec.policyTypes).map(str);
  if (types.length > POLICY_TYPES.length) {
    // The error body dereferences the *[]PolicyType it was given and prints the slice with %#v.
    errs.push(field.invalid(`${path}.policyTypes`, raw(`[]networking.PolicyType{${types.map(goQuote).join(', ')}}`),
      'may not specify more than two policyTypes'));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(field.notSupported(`${path}.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return errs;
}

/** ValidateNetworkPolicy */
export function validateNetworkPolicy(np: Obj, opts: LabelSelectorOptions = {}): FieldError[] {
  return [...metaCreate(np, true, nameIsDNSSubdomain), ...validateNetworkPolicySpec(isObj(np.spec) ? np.spec : {}, opts, 'spec')];
}

/** The strategy's ValidateUpdate: ValidateNetworkPolicy, then ValidateNetworkPolicyUpdate, with the same options. */
export function validateNetworkPolicyUpdate(np: Obj, old: Obj): FieldError[] {
  // ValidationOptionsForNetworking: any error in the old pod selector relaxes the label value check.
  const opts = { allowInvalidLabelValueInSelector: validateLabelSelector(old.spec?.podSelector ?? {}, {}, 'spec.podSelector').length > 0 };
  return [
    ...validateNetworkPolicy(np, opts),
    ...metaUpdate(np, old), ...validateNetworkPolicySpec(isObj(np.spec) ? np.spec : {}, opts, 'spec'),
  ];
}

export const networkPolicyValidation = {
  validate: (np: Obj) => validateNetworkPolicy(np),
  validateUpdate: (np: Obj, old: Obj) => validateNetworkPolicyUpdate(np, old),
};
