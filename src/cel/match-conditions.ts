/**
 * CEL match conditions of admission webhooks (apiserver pkg/admission/plugin/webhook/matchconditions):
 * expressions over `object`, `oldObject`, `request` (and `namespaceObject`, `authorizer`), compiled
 * with the library the CRD rules use. Compiling is parsing: the evaluator does not type-check, so
 * only syntax errors are compile errors here (upstream's checker also refuses undeclared names).
 */
import { celEnv, isCelError, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { kubernetesCelFuncs } from './library.js';

export type MatchProgram = (vars: Record<string, CelInput>) => unknown;

const env = celEnv({ funcs: kubernetesCelFuncs });

/** The compiled program, or cel-go's compile error text (`compilation failed: ...`). */
export function compileMatchCondition(expression: string): { program: MatchProgram } | { error: string } {
  try {
    return { program: plan(env, parse(expression)) };
  } catch (e) {
    return { error: `compilation failed: ERROR: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** A JSON value as CEL sees an unstructured object (integers as int, the rest as given). */
export function jsonToCel(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(jsonToCel);
  const m = new Map<string, CelInput>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, jsonToCel(x));
  return m;
}

/** The outcome of one expression: true, false, or an evaluation error's text. */
export function evalMatchCondition(program: MatchProgram, vars: Record<string, CelInput>): boolean | { error: string } {
  const r = program(vars) as CelValue | Error;
  if (isCelError(r)) return { error: r.message.replace(/^field not found: /, 'no such key: ') };
  if (typeof r !== 'boolean') return { error: 'no such overload' };
  return r;
}
