/**
 * The command's arguments to manifest texts: files, directories (recursive,
 * *.yaml, *.yml and *.json, in name order) and `-` for standard input.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface InputText { file: string; text: string }

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile() && MANIFEST_FILE.test(entry.name)) out.push(path);
  }
  return out;
}

export class InputError extends Error {}

export function readInputs(args: readonly string[], stdin: () => string): InputText[] {
  const out: InputText[] = [];
  for (const arg of args) {
    if (arg === '-') { out.push({ file: '-', text: stdin() }); continue; }
    let isDir: boolean;
    try { isDir = statSync(arg).isDirectory(); } catch { throw new InputError(`${arg}: no such file or directory`); }
    for (const file of isDir ? walk(arg) : [arg]) out.push({ file, text: readFileSync(file, 'utf8') });
  }
  return out;
}
