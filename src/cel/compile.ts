/**
 * Compiling a CEL expression in the environment the API server gives CRD rules and admission
 * expressions (library.ts), with compile errors worded as cel-go's Issues.String() words them
 * (common/error.go ToDisplayString: `ERROR: <input>:L:C: message`, then the source line and a caret).
 *
 * The evaluator has no type checker, so of cel-go's checker errors only the undeclared references
 * are found (by walking the parsed expression for identifiers no declaration, comprehension or
 * namespaced function names); syntax errors carry the parser's own wording, not ANTLR's.
 */
import { celEnv, parse, plan, type CelInput } from '@bufbuild/cel';
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { kubernetesCelFuncs } from './library.js';
import { authzCelFuncs } from './library-authz.js';

export type CelProgram = (bindings: Record<string, CelInput>) => unknown;

export const celEnvironment = celEnv({ funcs: kubernetesCelFuncs });

/** Admission expressions' environment: CRD rules' and the authorizer library (library-authz.ts). */
export const admissionCelEnvironment = celEnv({ funcs: [...kubernetesCelFuncs, ...authzCelFuncs] });

/** Type names a CEL expression may use as values (`type(x) == int`). */
const TYPE_IDENTS = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn'];

/** Namespaces of namespaced functions (`sets.contains`, `optional.of`, `strings.quote`). */
const FUNCTION_NAMESPACES = new Set(kubernetesCelFuncs.flatMap((f) => (f.name.includes('.') ? [f.name.slice(0, f.name.lastIndexOf('.'))] : [])));

export interface CompiledExpression {
  program?: CelProgram;
  expr?: Expr;
  /** cel-go's Issues.String() for the expression, when it does not compile. */
  error?: string;
}

/** cel-go's Error.ToDisplayString for an error at a character offset of the source. */
export function displayError(source: string, offset: number, message: string): string {
  const lines = source.split('\n');
  let line = 0;
  let col = offset;
  while (line < lines.length - 1 && col > lines[line]!.length) {
    col -= lines[line]!.length + 1;
    line++;
  }
  const snippet = (lines[line] ?? '').replaceAll('\t', ' ');
  const chars = [...snippet];
  const dots = chars.slice(0, col).map((c) => (c.length > 1 || c.charCodeAt(0) > 0x7f ? '\uff0e' : '.')).join('');
  const hat = chars[col] !== undefined && (chars[col]!.length > 1 || chars[col]!.charCodeAt(0) > 0x7f) ? '\uff3e' : '^';
  return `ERROR: <input>:${line + 1}:${col + 1}: ${message}\n | ${snippet}\n | ${dots}${hat}`;
}

interface Undeclared { name: string; id: bigint }

/** Identifiers the expression reads that nothing declares, in the order cel-go's checker meets them. */
function undeclaredReferences(expr: Expr, declared: ReadonlySet<string>): Undeclared[] {
  const out: Undeclared[] = [];
  const walk = (e: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'identExpr':
        if (!scope.has(k.value.name) && !declared.has(k.value.name) && !TYPE_IDENTS.includes(k.value.name)) out.push({ name: k.value.name, id: e.id });
        return;
      case 'selectExpr':
        walk(k.value.operand, scope);
        return;
      case 'callExpr': {
        const t = k.value.target;
        const namespaced = t?.exprKind.case === 'identExpr' && FUNCTION_NAMESPACES.has(t.exprKind.value.name) && !scope.has(t.exprKind.value.name);
        if (!namespaced) walk(t, scope);
        for (const a of k.value.args) walk(a, scope);
        return;
      }
      case 'listExpr':
        for (const x of k.value.elements) walk(x, scope);
        return;
      case 'structExpr':
        for (const x of k.value.entries) {
          if (x.keyKind.case === 'mapKey') walk(x.keyKind.value, scope);
          walk(x.value, scope);
        }
        return;
      case 'comprehensionExpr': {
        const c = k.value;
        walk(c.iterRange, scope);
        walk(c.accuInit, scope);
        const inner = new Set(scope);
        inner.add(c.accuVar);
        if (c.iterVar) inner.add(c.iterVar);
        if (c.iterVar2) inner.add(c.iterVar2);
        walk(c.loopCondition, inner);
        walk(c.loopStep, inner);
        const result = new Set(scope);
        result.add(c.accuVar);
        walk(c.result, result);
        return;
      }
      default:
        return;
    }
  };
  walk(expr, new Set());
  return out;
}

/**
 * Compiles `source` with the variables `declared`. Without `declared` (CRD rules, whose variables
 * depend on the schema node) references are not checked and a syntax error is the parser's message.
 */
export function compileExpression(source: string, declared?: ReadonlySet<string>, env = celEnvironment): CompiledExpression {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (e) {
    const err = e as { message?: string; location?: { start?: { offset?: number } } };
    const message = String(err.message ?? e);
    const offset = err.location?.start?.offset;
    if (offset === undefined || !declared) return { error: message };
    return { error: displayError(source, offset, `Syntax error: ${message.replace(/^<input>:\d+:\d+: /, '')}`) };
  }
  if (declared) {
    const positions = parsed.sourceInfo?.positions ?? {};
    const issues = undeclaredReferences(parsed.expr, declared)
      .map((u) => ({ offset: positions[String(u.id)] ?? 0, message: `undeclared reference to '${u.name}' (in container '')` }))
      .sort((a, b) => a.offset - b.offset);
    if (issues.length) return { expr: parsed.expr, error: issues.map((i) => displayError(source, i.offset, i.message)).join('\n') };
  }
  try {
    return { program: plan(env, parsed), expr: parsed.expr };
  } catch (e) {
    return { expr: parsed.expr, error: e instanceof Error ? e.message : String(e) };
  }
}

const CONSTANT_TYPES: Record<string, string> = {
  boolValue: 'bool', int64Value: 'int', uint64Value: 'uint', doubleValue: 'double', stringValue: 'string', bytesValue: 'bytes', nullValue: 'null_type',
};

/** The CEL type of an expression that is a literal (the one output type known without a checker), else undefined. */
export function literalType(expr: Expr | undefined): string | undefined {
  const k = expr?.exprKind;
  if (k?.case === 'constExpr') return CONSTANT_TYPES[k.value.constantKind.case ?? ''];
  return undefined;
}
