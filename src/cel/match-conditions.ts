/**
 * CEL match conditions of admission webhooks (apiserver pkg/admission/plugin/webhook/matchconditions):
 * expressions over `object`, `oldObject`, `request` (and `namespaceObject`, `authorizer`), compiled
 * with the library the CRD rules use. Compiling is parsing plus cel-go's check for undeclared
 * names (`undeclared reference to 'x' (in container '')`); the evaluator does not type-check, so
 * type errors show only when a condition runs.
 */
import { celEnv, isCelError, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { kubernetesCelFuncs } from './library.js';

export type MatchProgram = (vars: Record<string, CelInput>) => unknown;

const env = celEnv({ funcs: kubernetesCelFuncs });

/** The variables a webhook match condition may name (plugin/cel's environment with an authorizer, without params). */
const DECLARED = new Set(['object', 'oldObject', 'request', 'namespaceObject', 'authorizer']);

/** Identifiers the expression reads that nothing declares, with their offsets, in the checker's order. */
function undeclared(expr: Expr | undefined, bound: ReadonlySet<string>, out: { name: string; id: bigint }[]): void {
  if (!expr) return;
  const k = expr.exprKind;
  switch (k.case) {
    case 'identExpr':
      if (!bound.has(k.value.name) && !DECLARED.has(k.value.name)) out.push({ name: k.value.name, id: expr.id });
      return;
    case 'selectExpr': undeclared(k.value.operand, bound, out); return;
    case 'callExpr':
      undeclared(k.value.target, bound, out);
      for (const a of k.value.args) undeclared(a, bound, out);
      return;
    case 'listExpr': for (const e of k.value.elements) undeclared(e, bound, out); return;
    case 'structExpr':
      for (const e of k.value.entries) {
        if (e.keyKind.case === 'mapKey') undeclared(e.keyKind.value, bound, out);
        undeclared(e.value, bound, out);
      }
      return;
    case 'comprehensionExpr': {
      const c = k.value;
      undeclared(c.iterRange, bound, out);
      undeclared(c.accuInit, bound, out);
      const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter(Boolean));
      undeclared(c.loopCondition, inner, out);
      undeclared(c.loopStep, inner, out);
      undeclared(c.result, inner, out);
      return;
    }
    default:
  }
}

/** cel-go's issue text: `ERROR: <input>:line:col: message`, the line, and a caret under the column. */
function issue(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset).split('\n');
  const line = before.length;
  const col = before.at(-1)!.length;
  const text = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

/** The compiled program, or cel-go's compile error text (`compilation failed: ...`). */
export function compileMatchCondition(expression: string): { program: MatchProgram } | { error: string } {
  let parsed;
  try {
    parsed = parse(expression);
  } catch (e) {
    return { error: `compilation failed: ERROR: ${e instanceof Error ? e.message : String(e)}` };
  }
  const missing: { name: string; id: bigint }[] = [];
  undeclared(parsed.expr, new Set(), missing);
  if (missing.length) {
    const positions = parsed.sourceInfo?.positions ?? {};
    return {
      error: `compilation failed: ${missing.map((m) => issue(expression, positions[String(m.id)] ?? 0,
        `undeclared reference to '${m.name}' (in container '')`)).join('\n')}`,
    };
  }
  try {
    return { program: plan(env, parsed) };
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
