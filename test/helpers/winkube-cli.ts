/**
 * The built `winkube` command run as a user runs it: its exit code and what it printed.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** dist/src/cli/main.js, beside these compiled helpers. */
export const WINKUBE_MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface WinkubeResult { code: number | null; stdout: string; stderr: string }

/** Runs `winkube ARGS` to its end, `input` on its standard input (closed at once without one). */
export function runWinkube(args: string[], opts: { cwd?: string; input?: string } = {}): Promise<WinkubeResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [WINKUBE_MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'], ...(opts.cwd ? { cwd: opts.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(opts.input ?? '');
  });
}
