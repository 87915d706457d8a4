/**
 * CEL match conditions of admission webhooks (apiserver pkg/admission/plugin/webhook/matchconditions):
 * expressions over `object`, `oldObject`, `request` (and `namespaceObject`, `authorizer`), compiled
 * by the one compile path admission policies and CRD rules use (compile.ts) with the variables a
 * webhook declares. The evaluator does not type-check, so type errors show only when a condition runs.
 */
import { isCelError, type CelInput, type CelValue } from '@bufbuild/cel';
import { compileExpression, type CelProgram } from './compile.js';

export type MatchProgram = CelProgram;

/** The variables a webhook match condition may name (plugin/cel's environment with an authorizer, without params). */
const DECLARED: ReadonlySet<string> = new Set(['object', 'oldObject', 'request', 'namespaceObject', 'authorizer']);

/** The compiled program, or cel-go's compile error text (`compilation failed: ...`). */
export function compileMatchCondition(expression: string): { program: MatchProgram } | { error: string } {
  const c = compileExpression(expression, DECLARED);
  if (c.error !== undefined || !c.program) return { error: `compilation failed: ${c.error ?? ''}` };
  return { program: c.program };
}

/** The outcome of one expression: true, false, or an evaluation error's text. */
export function evalMatchCondition(program: MatchProgram, vars: Record<string, CelInput>): boolean | { error: string } {
  const r = program(vars) as CelValue | Error;
  if (isCelError(r)) return { error: r.message.replace(/^field not found: /, 'no such key: ') };
  if (typeof r !== 'boolean') return { error: 'no such overload' };
  return r;
}
