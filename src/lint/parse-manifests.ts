/**
 * Manifest text to objects: multi-document YAML or JSON (JSON is YAML 1.2),
 * `List` kinds expanded into their items, empty documents skipped, and each
 * object tagged with its file, line and Helm `# Source:` template. A
 * document that does not parse becomes a problem with its line, never an
 * exception.
 */
import { LineCounter, parseAllDocuments, isMap, isSeq } from 'yaml';
import { isObject } from '../meta/json.js';
import type { Manifest, Source } from './types.js';

export interface ParseProblem { source: Source; message: string }
export interface ParsedText { manifests: Manifest[]; problems: ParseProblem[] }

/** Helm's `template` output names the chart file each document came from in a `# Source:` comment before it. */
const HELM_SOURCE = /^#\s*Source:\s*(\S.*?)\s*$/;

function helmSourceOf(text: string, start: number, contentStart: number): string | undefined {
  for (const line of text.slice(start, contentStart).split('\n')) {
    const m = HELM_SOURCE.exec(line.trim());
    if (m) return m[1];
  }
  return undefined;
}

/** `v1 List` and every `<Kind>List` with an items array (what `kubectl get -o yaml` writes). */
function isList(obj: Record<string, unknown>): boolean {
  return typeof obj.kind === 'string' && obj.kind.endsWith('List') && Array.isArray(obj.items);
}

const parseDocuments = (text: string, lineCounter?: LineCounter) => [...parseAllDocuments(text, { lineCounter, uniqueKeys: false })];

function tabsIndentingAsSpaces(text: string): ReturnType<typeof parseDocuments> {
  return parseDocuments(text.replace(/^[ \t]+/gm, (ws) => ws.replace(/\t/g, ' ')));
}

export function parseManifests(text: string, file: string): ParsedText {
  const lines = new LineCounter();
  const out: ParsedText = { manifests: [], problems: [] };
  const docs = parseDocuments(text, lines);
  const lenient = docs.some((d) => d.errors.length) ? tabsIndentingAsSpaces(text) : undefined;
  docs.forEach((first, i) => {
    // Go's YAML (what kubectl and the API server use) accepts tabs leading the continuation lines of a
    // quoted scalar, where they are folded away; this parser does not. The same text with those tabs as
    // spaces has the same offsets and the same values, so its document stands in for the refused one.
    const retry = first.errors.length && lenient?.length === docs.length ? lenient[i] : undefined;
    const doc = retry && !retry.errors.length ? retry : first;
    const docStart = doc.range?.[0] ?? 0;
    const contentStart = doc.contents?.range?.[0] ?? docStart;
    const source: Source = { file, line: lines.linePos(contentStart).line };
    const helm = helmSourceOf(text, docStart, contentStart);
    if (helm) source.helmSource = helm;
    const [err] = doc.errors;
    if (err) {
      out.problems.push({ source: { ...source, line: err.linePos?.[0].line ?? source.line }, message: err.message.split('\n')[0] ?? err.message });
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) return;
    if (!isObject(value)) {
      out.problems.push({ source, message: `a manifest must be an object, not ${Array.isArray(value) ? 'a list' : typeof value}` });
      return;
    }
    if (!isList(value)) {
      out.manifests.push({ obj: value, source });
      return;
    }
    const itemsNode = isMap(doc.contents) ? doc.contents.get('items', true) : undefined;
    (value.items as unknown[]).forEach((item, i) => {
      const node = isSeq(itemsNode) ? itemsNode.items[i] : undefined;
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      const at = range ? lines.linePos(range[0]).line : source.line;
      if (isObject(item)) out.manifests.push({ obj: item, source: { ...source, line: at } });
      else if (item !== null) out.problems.push({ source: { ...source, line: at }, message: `items[${i}] of a ${String(value.kind)} must be an object` });
    });
  });
  return out;
}
