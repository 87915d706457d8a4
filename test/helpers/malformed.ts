import assert from 'node:assert/strict';
import { raw, type TestCluster } from './cluster.js';

/**
 * One request of the malformed-input corpus: what is sent, what upstream answers, and where to look
 * afterwards to prove nothing was stored. Each `test/e2e/malformed-*.test.ts` holds the cases of one
 * area and runs them with `checkMalformed`.
 */
export interface MalformedCase {
  /** What the request is, as the test's name. */
  name: string;
  method: string;
  path: string;
  body?: string | Buffer;
  /** Defaults to application/json when a body is sent. */
  contentType?: string;
  headers?: Record<string, string>;
  /** The HTTP status upstream answers with. */
  status: number;
  /**
   * The Status body's reason (omit for answers that are not a Status, e.g. a plain-text 404);
   * null for a Status without one (an error upstream passes through unconverted).
   */
  reason?: string | null;
  /** The Status body's message: exact when a string. */
  message?: string | RegExp;
  /** The whole body, exact, for answers that are not a Status (e.g. Go's own `400 Bad Request`). */
  text?: string;
  /** The Status body's details.causes, exact when given. */
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  /** The Status body's whole details, exact when given. */
  details?: Record<string, unknown>;
  /** Response headers that must have these values. */
  responseHeaders?: Record<string, string>;
  /** A GET path that must answer 404 afterwards: the object the request tried to create was not stored. */
  absent?: string;
  /** A GET path whose body must be the same before and after: the object the request tried to change is unchanged. */
  unchanged?: string;
}

async function snapshot(cluster: TestCluster, path: string): Promise<string> {
  const r = await raw(cluster, 'GET', path);
  assert.equal(r.status, 200, `GET ${path} before the request: ${r.body}`);
  return r.body;
}

/** Sends one corpus request and asserts status, Status body and that nothing was stored. */
export async function checkMalformed(cluster: TestCluster, c: MalformedCase): Promise<void> {
  const before = c.unchanged ? await snapshot(cluster, c.unchanged) : undefined;
  const headers: Record<string, string> = { ...c.headers };
  if (c.body !== undefined) headers['Content-Type'] ??= c.contentType ?? 'application/json';
  const r = await raw(cluster, c.method, c.path, { body: c.body, headers });
  assert.equal(r.status, c.status, `${c.method} ${c.path}: status ${r.status}, body ${r.body.slice(0, 500)}`);
  if (c.text !== undefined) assert.equal(r.body, c.text);
  for (const [k, v] of Object.entries(c.responseHeaders ?? {})) assert.equal(r.headers[k.toLowerCase()], v, `header ${k}`);
  if (c.reason !== undefined || c.message !== undefined || c.causes !== undefined || c.details !== undefined) {
    const status = JSON.parse(r.body) as { kind: string; status: string; reason?: string; message: string; code: number; details?: { causes?: unknown[] } };
    assert.equal(status.kind, 'Status', r.body);
    assert.equal(status.status, 'Failure', r.body);
    assert.equal(status.code, c.status, r.body);
    if (c.reason === null) assert.equal('reason' in status, false, r.body);
    else if (c.reason !== undefined) assert.equal(status.reason, c.reason, r.body);
    if (typeof c.message === 'string') assert.equal(status.message, c.message);
    else if (c.message) assert.match(status.message, c.message);
    if (c.causes) assert.deepEqual(status.details?.causes, c.causes);
    if (c.details) assert.deepEqual(status.details, c.details);
  }
  if (c.absent) {
    const after = await raw(cluster, 'GET', c.absent);
    assert.equal(after.status, 404, `${c.absent} was stored: ${after.body.slice(0, 300)}`);
  }
  if (c.unchanged) assert.equal(await snapshot(cluster, c.unchanged), before, `${c.unchanged} changed`);
}
