/**
 * `agnhost nettest` (test/images/agnhost/nettest/nettest.go): an HTTP
 * server on --port (8080) that records who wrote to it.
 *
 * - `/write`: decodes a JSON `{"Source": ..., "Dest": ...}` from the body
 *   (field names matched case-insensitively, as encoding/json does), counts
 *   Received[Source] (a request without a source is an error in Errors),
 *   answers 200 with `{"Hostname":"<hostname>"}` and a newline.
 * - `/read`: the state as json.MarshalIndent(state, "", "\t").
 * - `/status`: `pass` once --peers peers were both sent to and heard from,
 *   `running` while it still contacts them, else `fail`.
 * - `/quit`: os.Exit(0) before answering.
 *
 * Its peer-contacting goroutine (an in-cluster client reading the
 * --service's Endpoints and POSTing to each /write) is not modelled: the
 * state stays "still contacting peers" with nothing sent and no log lines,
 * as it is during the goroutine's first minutes.
 */
import type { Program } from '../shell/types.js';
import type { AppContext } from './app-context.js';
import { goBindError, goLog, goResponse } from './go-http.js';
import { GoStruct, goMarshal, goMarshalIndent, type GoJSONValue } from '../../apimachinery/go-json.js';
import { httpServer, pathOf, type Served } from './http-server.js';

export interface NettestFlags { port: number; peers: number; delayShutdown: number }

export function nettestFlags(flags: Map<string, string>): NettestFlags {
  return { port: Number(flags.get('port') ?? 8080), peers: Number(flags.get('peers') ?? 8), delayShutdown: Number(flags.get('delay-shutdown') ?? 0) };
}

/** The server's State, as /read writes it and the handlers change it. */
export interface NettestState {
  hostname: string;
  sent?: Map<string, number>;
  received?: Map<string, number>;
  errors?: string[];
  log?: string[];
  stillContactingPeers: boolean;
}

const mapJSON = (m: Map<string, number> | undefined): GoJSONValue => (m ? Object.fromEntries(m) : null);

/** json.MarshalIndent(state, "", "\t"). */
export function nettestRead(s: NettestState): string {
  return goMarshalIndent(new GoStruct([
    ['Hostname', s.hostname], ['Sent', mapJSON(s.sent)], ['Received', mapJSON(s.received)],
    ['Errors', s.errors ?? null], ['Log', s.log ?? null], ['StillContactingPeers', s.stillContactingPeers],
  ]), '', '\t');
}

/** json.Decoder.Decode into WritePost: the Source field, or the decode error's text. */
export function decodeWritePost(body: string): { source: string } | { error: string } {
  const text = body.trimStart();
  if (text === '') return { error: 'EOF' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const c = text[0]!;
    return { error: `invalid character ${c === "'" ? "'\\''" : `'${c}'`} looking for beginning of value` };
  }
  if (value === null) return { source: '' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'bool';
    return { error: `json: cannot unmarshal ${kind} into Go value of type nettest.WritePost` };
  }
  // encoding/json: an exact field name match wins, else a case-insensitive one (the last such key in the object).
  const entries = Object.entries(value as Record<string, unknown>);
  const exact = entries.find(([k]) => k === 'Source');
  const field = exact ?? entries.filter(([k]) => k.toLowerCase() === 'source').pop();
  if (!field || field[1] === null) return { source: '' };
  if (typeof field[1] !== 'string') {
    const kind = Array.isArray(field[1]) ? 'array' : typeof field[1] === 'object' ? 'object' : typeof field[1] === 'number' ? 'number' : 'bool';
    return { error: `json: cannot unmarshal ${kind} into Go struct field WritePost.Source of type string` };
  }
  return { source: field[1] };
}

/** /write: the state after the request and the answer's body. */
export function nettestWrite(s: NettestState, body: string): string {
  const decoded = decodeWritePost(body);
  if ('error' in decoded) (s.errors ??= []).push(decoded.error);
  const source = 'source' in decoded ? decoded.source : '';
  if (source === '') (s.errors ??= []).push(`${s.hostname}: Got request with no source`);
  else (s.received ??= new Map()).set(source, (s.received.get(source) ?? 0) + 1);
  return `${goMarshal({ Hostname: s.hostname })}\n`;
}

/** /status. */
export function nettestStatus(s: NettestState, peers: number): string {
  if ((s.sent?.size ?? 0) >= peers && (s.received?.size ?? 0) >= peers) return 'pass';
  return s.stillContactingPeers ? 'running' : 'fail';
}

export function nettest(ctx: AppContext, flags: NettestFlags): Program {
  const state: NettestState = { hostname: ctx.hostname, stillContactingPeers: true };
  const notFound = (): Served => ({ response: goResponse(ctx.now(), 404, '404 page not found\n', [['Content-Type', 'text/plain; charset=utf-8'], ['X-Content-Type-Options', 'nosniff']]) });
  return httpServer(ctx, {
    ports: [flags.port],
    startup: () => [],
    bound: () => [],
    bindFailed: () => ({ steps: [goBindError(ctx.now(), flags.port)], code: 1 }),
    serve: (req): Served => {
      const now = ctx.now();
      switch (pathOf(req.target)) {
        case '/read': return { response: goResponse(now, 200, nettestRead(state)) };
        case '/write': return { response: goResponse(now, 200, nettestWrite(state, Buffer.from(req.body).toString('utf8'))) };
        case '/status': return { response: goResponse(now, 200, nettestStatus(state, flags.peers)) };
        case '/quit': return { response: goResponse(now, 200, ''), reset: true, exitCode: 0 };
        default: return notFound();
      }
    },
    // --delay-shutdown: its SIGTERM handler sleeps, then exits 0; without it the signal kills the process (128+15).
    stopping: () => (flags.delayShutdown > 0
      ? [goLog(ctx.now(), `Sleeping ${flags.delayShutdown} seconds before exit ...`), { kind: 'sleep', ms: flags.delayShutdown * 1000 }]
      : []),
    stopCode: flags.delayShutdown > 0 ? 0 : 143,
  });
}
