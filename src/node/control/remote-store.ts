/**
 * The part of the Store the node farm uses, over HTTPS against a remote
 * winkube (or any Kubernetes) API server: what lets the same farm code run
 * as `winkube agent`. get/create/update/delete map to GET/POST/PUT/DELETE;
 * update is client-go's read-modify-write with retries on conflict, as
 * GuaranteedUpdate is in-process. Failures are the server's Status errors.
 */
import { Agent, request } from 'node:https';
import { StatusError, isConflict, isNotFound } from '../../apimachinery/errors.js';
import type { DeleteRequest } from '../../registry/store.js';
import type { KObject } from '../../apimachinery/object.js';
import type { ResourceDef } from '../../registry/types.js';
import type { WriteContext } from '../../apimachinery/write-context.js';
import type { ServerTarget } from './client.js';

/** The resources an agent writes. */
const DEFS: Record<string, Pick<ResourceDef, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>> = {
  '/v1/nodes': { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false },
  'coordination.k8s.io/v1/leases': { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  '/v1/events': { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
};

const MAX_CONFLICT_RETRIES = 5;

export class RemoteStore {
  private readonly agent: Agent;

  constructor(private readonly target: ServerTarget) {
    this.agent = new Agent({ ca: target.ca, cert: target.cert, key: target.key, keepAlive: true, maxSockets: 32 });
  }

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return DEFS[`${group}/${version}/${resource}`] as ResourceDef | undefined;
  }

  private path(def: Pick<ResourceDef, 'group' | 'version' | 'resource' | 'namespaced'>, namespace: string, name?: string, sub?: string): string {
    const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
    const ns = def.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${base}${ns}/${def.resource}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}`;
  }

  private call(method: string, path: string, body?: unknown, fieldManager?: string): Promise<any> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const query = fieldManager && method !== 'GET' && method !== 'DELETE' ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '';
    return new Promise((resolve, reject) => {
      const req = request({
        host: this.target.server.hostname, port: this.target.server.port || 443, method, path: path + query, agent: this.agent,
        headers: {
          Accept: 'application/json', 'User-Agent': `${fieldManager ?? 'winkube-agent'}/winkube`,
          ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          ...(this.target.token ? { Authorization: `Bearer ${this.target.token}` } : {}),
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any;
          try { parsed = JSON.parse(text); } catch { parsed = text; }
          if ((res.statusCode ?? 0) >= 400) {
            if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') reject(new StatusError(parsed));
            else reject(new Error(`${method} ${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
            return;
          }
          resolve(parsed);
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A lookup by group and resource in its v1 version; undefined when not found. */
  async get(group: string, resource: string, namespace: string, name: string): Promise<KObject | undefined> {
    const def = this.find(group, 'v1', resource);
    if (!def) return undefined;
    try {
      return await this.call('GET', this.path(def, namespace, name));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async list(def: ResourceDef, namespace: string): Promise<{ items: KObject[]; revision: string }> {
    const l = await this.call('GET', this.path(def, namespace));
    return { items: l.items ?? [], revision: l.metadata?.resourceVersion ?? '' };
  }

  create(def: ResourceDef, namespace: string, input: KObject, ctx: WriteContext): Promise<KObject> {
    return this.call('POST', this.path(def, namespace), { apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind, ...input }, ctx.fieldManager);
  }

  async update(def: ResourceDef, namespace: string, name: string, mutate: (current: KObject) => KObject | Promise<KObject>,
    ctx: WriteContext, subresource?: string): Promise<KObject> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.call('GET', this.path(def, namespace, name));
      const next = await mutate(current);
      try {
        return await this.call('PUT', this.path(def, namespace, name, subresource), next, ctx.fieldManager);
      } catch (e) {
        if (!(isConflict(e)) || attempt >= MAX_CONFLICT_RETRIES) throw e;
      }
    }
  }

  async delete(def: ResourceDef, namespace: string, name: string, _req: DeleteRequest, _ctx: WriteContext): Promise<{ obj: KObject; deleted: boolean }> {
    const obj = await this.call('DELETE', this.path(def, namespace, name));
    return { obj, deleted: true };
  }

  close(): void { this.agent.destroy(); }
}
