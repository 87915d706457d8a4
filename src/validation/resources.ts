/**
 * Resource names and quantities as pkg/apis/core/helper and
 * pkg/apis/core/validation judge them (validateResourceName,
 * validateContainerResourceName, ValidateResourceQuantityValue), for the
 * resource lists outside pod specs (node capacity, HPA container resources).
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isQualifiedName } from '../meta/names.js';
import { cmpQuantity, formatQuantity, parseQuantity, type Quantity } from '../apimachinery/quantity.js';
import { raw, str } from './common.js';

const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory',
  'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'quota', 'services',
  'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports',
  'services.loadbalancers']);
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps',
  'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const isHugePage = (n: string) => n.startsWith('hugepages-');
/** helper.IsNativeResource: no domain, or a kubernetes.io domain. */
export const isNativeResource = (n: string) => !n.includes('/') || n.includes('kubernetes.io/');
/** helper.IsExtendedResourceName */
export const isExtendedResourceName = (n: string) =>
  !isNativeResource(n) && !n.startsWith('requests.') && isQualifiedName(`requests.${n}`).length === 0;
/** helper.IsIntegerResourceName */
export const isIntegerResourceName = (n: string) => INTEGER_RESOURCES.has(n) || isExtendedResourceName(n);
const isStandardResourceName = (n: string) => STANDARD_RESOURCES.has(n) || isHugePage(n) || n.startsWith('requests.hugepages-');
const isStandardContainerResourceName = (n: string) => ['cpu', 'memory', 'ephemeral-storage'].includes(n) || isHugePage(n);

/** validateResourceName */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((m) => field.invalid(path, name, m));
  if (errs.length) return errs;
  if (name.split('/').length === 1 && !isStandardResourceName(name)) {
    errs.push(field.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** validateContainerResourceName */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (name.split('/').length === 1) {
    if (!isStandardContainerResourceName(name)) errs.push(field.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(field.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

const ZERO = parseQuantity('0');

export function quantityOf(v: unknown): Quantity | undefined {
  try { return parseQuantity(typeof v === 'number' ? v : str(v)); } catch { return undefined; }
}

/** ValidateResourceQuantityValue: not negative, whole for integer resources. */
export function validateResourceQuantityValue(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (cmpQuantity(q, ZERO) < 0) errs.push(field.invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name)) {
    // MilliValue() rounds up: anything below a milli still counts as a fraction.
    const d = -q.scale - 3;
    const milli = d <= 0 ? q.unscaled * 10n ** BigInt(-d) : (q.unscaled + 10n ** BigInt(d) - 1n) / 10n ** BigInt(d);
    if (milli % 1000n !== 0n) errs.push(field.invalid(path, raw(formatQuantity(q)), 'must be an integer'));
  }
  return errs;
}
