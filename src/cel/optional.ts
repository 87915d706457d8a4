/**
 * CEL optional values as cel-go's cel.OptionalTypes gives them (enabled from v1.28 in
 * environment.MustBaseEnvSet), for `oldSelf` of rules with optionalOldSelf: hasValue(), value(),
 * orValue(), optional.of() and optional.none(). The evaluator has no optional type, so an optional is
 * a map under a key no JSON value has (an empty map is none); the `.?` syntax is not parsed.
 */
import { celFunc, celMethod, CelScalar, isCelMap, type CelFunc, type CelInput, type CelMap, type CelValue } from '@bufbuild/cel';

const NONE_KEY = '\u0000optional.none';
const VALUE_KEY = '\u0000optional.value';

export function optionalOf(v: CelInput): CelInput {
  return new Map([[VALUE_KEY, v]]);
}

export function optionalNone(): CelInput {
  return new Map([[NONE_KEY, true]]);
}

function optional(v: CelValue): CelMap {
  if (!isCelMap(v) || !(v.has(VALUE_KEY) || v.has(NONE_KEY))) throw new Error('no such overload');
  return v;
}

export const optionalCelFuncs: CelFunc[] = [
  celFunc('optional.of', [CelScalar.DYN], CelScalar.DYN, (v) => optionalOf(v)),
  celFunc('optional.none', [], CelScalar.DYN, () => optionalNone()),
  celMethod('hasValue', CelScalar.DYN, [], CelScalar.BOOL, function () { return optional(this).has(VALUE_KEY); }),
  celMethod('value', CelScalar.DYN, [], CelScalar.DYN, function () {
    const o = optional(this);
    if (!o.has(VALUE_KEY)) throw new Error('optional.none() dereference');
    return o.get(VALUE_KEY)!;
  }),
  celMethod('orValue', CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    const o = optional(this);
    return o.has(VALUE_KEY) ? o.get(VALUE_KEY)! : other;
  }),
];
