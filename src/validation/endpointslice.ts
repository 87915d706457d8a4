/**
 * EndpointSlice validation as v1.32's pkg/apis/discovery/validation:
 * ValidateEndpointSlice on create; on update the same (ObjectMeta's create
 * rules included, no ValidateObjectMetaUpdate) plus addressType immutable.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isValidLabelValue } from '../meta/names.js';
import {
  arr, dns1123Label, immutableScalar, isFullyQualifiedDomainName, isObj, isValidIPv4Address, isValidIPv6Address, metaCreate,
  nameIsDNSSubdomain, qualifiedName, str, validateLabels, validateNonSpecialIP, type Obj,
} from './common.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;
const ZONE_LABEL = 'topology.kubernetes.io/zone';

function validateHints(hints: Obj, path: string): FieldError[] {
  const fz = arr<Obj>(hints.forZones);
  if (fz.length > MAX_ZONE_HINTS) return [{ type: 'FieldValueTooMany', field: `${path}.forZones`, value: fz.length, detail: `must have at most ${MAX_ZONE_HINTS} items` }];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  fz.forEach((z, i) => {
    const p = `${path}.forZones[${i}].name`;
    const name = str(z?.name);
    if (names.has(name)) errs.push(field.duplicate(p, name));
    else names.add(name);
    for (const m of isValidLabelValue(name)) errs.push(field.invalid(p, name, m));
  });
  return errs;
}

function validateEndpoints(endpoints: unknown, addressType: string): FieldError[] {
  const list = arr<Obj>(endpoints);
  if (list.length > MAX_ENDPOINTS) return [{ type: 'FieldValueTooMany', field: 'endpoints', value: list.length, detail: `must have at most ${MAX_ENDPOINTS} items` }];
  const errs: FieldError[] = [];
  list.forEach((ep0, i) => {
    const ep = isObj(ep0) ? ep0 : {};
    const p = `endpoints[${i}]`;
    const addresses = arr(ep.addresses).map(str);
    if (!addresses.length) errs.push(field.required(`${p}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) {
      errs.push({ type: 'FieldValueTooMany', field: `${p}.addresses`, value: addresses.length, detail: `must have at most ${MAX_ADDRESSES} items` });
    }
    addresses.forEach((a, j) => {
      const ap = `${p}.addresses[${j}]`;
      if (addressType === 'IPv4') errs.push(...isValidIPv4Address(ap, a), ...validateNonSpecialIP(a, ap));
      else if (addressType === 'IPv6') errs.push(...isValidIPv6Address(ap, a), ...validateNonSpecialIP(a, ap));
      else if (addressType === 'FQDN') errs.push(...isFullyQualifiedDomainName(ap, a));
    });
    if (ep.nodeName != null) {
      for (const m of nameIsDNSSubdomain(str(ep.nodeName), false)) errs.push(field.invalid(`${p}.nodeName`, str(ep.nodeName), m));
    }
    const topology = isObj(ep.deprecatedTopology) ? ep.deprecatedTopology : {};
    const tp = `${p}.deprecatedTopology`;
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
      errs.push({ type: 'FieldValueTooMany', field: tp, value: Object.keys(topology).length, detail: `must have at most ${MAX_TOPOLOGY_LABELS} items` });
    }
    errs.push(...validateLabels(topology, tp));
    if (ZONE_LABEL in topology) {
      errs.push({ type: 'InternalError', field: `${tp}[${ZONE_LABEL}]`, detail: 'reserved key was not removed in conversion' });
    }
    if (ep.hostname != null) errs.push(...dns1123Label(str(ep.hostname), `${p}.hostname`));
    if (isObj(ep.hints)) errs.push(...validateHints(ep.hints, `${p}.hints`));
  });
  return errs;
}

function validatePorts(ports: unknown): FieldError[] {
  const list = arr<Obj>(ports);
  if (list.length > MAX_PORTS) return [{ type: 'FieldValueTooMany', field: 'ports', value: list.length, detail: `must have at most ${MAX_PORTS} items` }];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((port0, i) => {
    const port = isObj(port0) ? port0 : {};
    const p = `ports[${i}]`;
    const name = str(port.name);
    if (name) errs.push(...dns1123Label(name, `${p}.name`));
    if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
    else names.add(name);
    if (port.protocol == null) errs.push(field.required(`${p}.protocol`));
    else if (!SUPPORTED_PROTOCOLS.includes(str(port.protocol))) {
      errs.push(field.notSupported(`${p}.protocol`, str(port.protocol), SUPPORTED_PROTOCOLS));
    }
    if (port.appProtocol != null) errs.push(...qualifiedName(str(port.appProtocol), `${p}.appProtocol`));
  });
  return errs;
}

/** ValidateEndpointSlice */
export function validateEndpointSlice(eps: Obj): FieldError[] {
  const errs = metaCreate(eps, true, nameIsDNSSubdomain);
  const at = str(eps.addressType);
  if (!at) errs.push(field.required('addressType'));
  else if (!ADDRESS_TYPES.includes(at)) errs.push(field.notSupported('addressType', at, ADDRESS_TYPES));
  errs.push(...validateEndpoints(eps.endpoints, at), ...validatePorts(eps.ports));
  return errs;
}

export const endpointSliceValidation = {
  validate: validateEndpointSlice,
  validateUpdate: (eps: Obj, old: Obj) => [
    ...validateEndpointSlice(eps), ...immutableScalar(str(eps.addressType), str(old.addressType), 'addressType'),
  ],
};
