import type { ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import type { Status } from 'kubernetes-types/meta/v1.js';

export type OutputFormat = 'json' | 'yaml';

export function writeJSON(res: ServerResponse, code: number, body: unknown, format: OutputFormat = 'json',
  headers: Record<string, string> = {}): void {
  const text = format === 'yaml' ? toYaml(body) : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': format === 'yaml' ? 'application/yaml' : 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A JSON answer already serialized. */
export function writeJSONText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function writeStatus(res: ServerResponse, status: Status & { code: number }): void {
  // responsewriters.ErrorNegotiated: a Status that says when to retry says it in Retry-After too.
  const retry = status.details?.retryAfterSeconds;
  if (retry && retry > 0 && !res.headersSent) res.setHeader('Retry-After', String(retry));
  writeJSON(res, status.code, status);
}

export function writeText(res: ServerResponse, code: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

/** Adds an RFC 7234 warning header with code 299, escaped as upstream escapes it. */
export function addWarning(res: ServerResponse, message: string): void {
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  const text = message.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, ' ');
  res.appendHeader('Warning', `299 - "${text}"`);
}
