/**
 * JSON.stringify for values nested deeper than V8's recursive serializer
 * goes (a body may nest up to the decoder's 10000 levels): the same text,
 * written without recursion. Only for plain JSON data (no toJSON, no
 * undefined values in arrays).
 */
export function stringifyDeep(root: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (closing brackets, commas, keys).
  const stack: { v?: unknown; text?: string }[] = [{ v: root }];
  while (stack.length) {
    const item = stack.pop()!;
    if (item.text !== undefined) { out.push(item.text); continue; }
    const v = item.v;
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i] === undefined ? null : v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      out.push('{');
      stack.push({ text: '}' });
      // Pushed last to first, so the first entry comes off the stack first.
      entries.reverse().forEach(([k, x], r) => {
        stack.push({ v: x });
        stack.push({ text: `${r < entries.length - 1 ? ',' : ''}${JSON.stringify(k)}:` });
      });
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  }
  return out.join('');
}

/** JSON.stringify, falling back to stringifyDeep where V8's serializer runs out of stack. */
export function stringifyAnyDepth(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (e instanceof RangeError) return stringifyDeep(v);
    throw e;
  }
}
