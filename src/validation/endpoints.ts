/**
 * Endpoints validation as v1.32's pkg/apis/core/validation ValidateEndpoints
 * (subsets, addresses, ports). Create runs ValidateEndpointsCreate; update
 * runs ValidateObjectMetaUpdate, then ValidateEndpoints on the new object.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import {
  arr, dns1123Label, isObj, isValidIP, isValidPortNum, metaCreate, metaUpdate, nameIsDNSSubdomain, num, qualifiedName, str,
  validateNonSpecialIP, type Obj,
} from './common.js';

const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateEndpointAddress(a: Obj, path: string): FieldError[] {
  const ip = str(a.ip);
  const errs = isValidIP(`${path}.ip`, ip);
  if (str(a.hostname)) errs.push(...dns1123Label(str(a.hostname), `${path}.hostname`));
  if (a.nodeName != null) {
    for (const m of nameIsDNSSubdomain(str(a.nodeName), false)) errs.push(field.invalid(`${path}.nodeName`, str(a.nodeName), m));
  }
  errs.push(...validateNonSpecialIP(ip, `${path}.ip`));
  return errs;
}

function validateEndpointPort(p: Obj, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p.name);
  if (requireName && !name) errs.push(field.required(`${path}.name`));
  else if (name) errs.push(...dns1123Label(name, `${path}.name`));
  for (const m of isValidPortNum(num(p.port))) errs.push(field.invalid(`${path}.port`, num(p.port), m));
  const protocol = str(p.protocol);
  if (!protocol) errs.push(field.required(`${path}.protocol`));
  else if (!SUPPORTED_PROTOCOLS.includes(protocol)) errs.push(field.notSupported(`${path}.protocol`, protocol, SUPPORTED_PROTOCOLS));
  if (p.appProtocol != null) errs.push(...qualifiedName(str(p.appProtocol), `${path}.appProtocol`));
  return errs;
}

/** validateEndpointSubsets */
export function validateEndpointSubsets(ep: Obj): FieldError[] {
  const errs: FieldError[] = [];
  arr<Obj>(ep.subsets).forEach((ss0, i) => {
    const ss = isObj(ss0) ? ss0 : {};
    const p = `subsets[${i}]`;
    const addresses = arr<Obj>(ss.addresses);
    const notReady = arr<Obj>(ss.notReadyAddresses);
    if (!addresses.length && !notReady.length) errs.push(field.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(isObj(a) ? a : {}, `${p}.addresses[${j}]`)));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(isObj(a) ? a : {}, `${p}.notReadyAddresses[${j}]`)));
    const ports = arr<Obj>(ss.ports);
    ports.forEach((port, j) => errs.push(...validateEndpointPort(isObj(port) ? port : {}, ports.length > 1, `${p}.ports[${j}]`)));
  });
  return errs;
}

const validateEndpoints = (ep: Obj) => [...metaCreate(ep, true, nameIsDNSSubdomain), ...validateEndpointSubsets(ep)];

export const endpointsValidation = {
  validate: validateEndpoints,
  validateUpdate: (ep: Obj, old: Obj) => [...metaUpdate(ep, old), ...validateEndpoints(ep)],
};
