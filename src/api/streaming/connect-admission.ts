/**
 * CONNECT admission of pods/exec and pods/attach (apiserver's ConnectResource, v1.32): the options
 * object the query decodes to (v1 PodExecOptions or PodAttachOptions), through the mutating admission
 * webhooks and then the validating ones, before the kubelet is reached. A refusal answers the
 * upgrade request with the webhook's Status; the options as the mutating webhooks left them are
 * what the connection uses.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { User } from '../auth.js';
import type { Store } from '../../registry/store.js';
import { admitConnectWithWebhooks } from '../../admission/chain.js';
import { parseBool } from '../query.js';

const FLAGS = ['stdin', 'stdout', 'stderr', 'tty'] as const;

/** The query decoded into the subresource's options object, as the query parameter codec does (Go's field order). */
export function connectOptions(sub: 'exec' | 'attach' | 'portforward', q: URLSearchParams): KObject {
  if (sub === 'portforward') {
    const ports = q.getAll('ports').flatMap((p) => p.split(',')).map((p) => Number(p.trim()));
    return { kind: 'PodPortForwardOptions', apiVersion: 'v1', ...(ports.length ? { ports } : {}) } as KObject;
  }
  const o: Record<string, unknown> = { kind: sub === 'exec' ? 'PodExecOptions' : 'PodAttachOptions', apiVersion: 'v1' };
  for (const f of FLAGS) if (parseBool(q.get(f), f)) o[f] = true;
  const container = q.get('container');
  if (container) o.container = container;
  if (sub === 'exec') {
    const command = q.getAll('command');
    o.command = command.length ? command : null;
  }
  return o as KObject;
}

/** The query the (possibly mutated) options object stands for. */
function queryOf(o: Record<string, unknown>): URLSearchParams {
  const q = new URLSearchParams();
  for (const f of FLAGS) if (o[f] === true) q.set(f, 'true');
  if (typeof o.container === 'string' && o.container) q.set('container', o.container);
  if (Array.isArray(o.command)) for (const c of o.command) q.append('command', String(c));
  if (Array.isArray(o.ports)) for (const p of o.ports) q.append('ports', String(p));
  return q;
}

/** Admits the connection; its query as admission left it. */
export async function admitConnect(store: Store, sub: 'exec' | 'attach' | 'portforward', namespace: string, name: string,
  q: URLSearchParams, user: User): Promise<URLSearchParams> {
  const object = connectOptions(sub, q);
  const before = JSON.stringify(object);
  await admitConnectWithWebhooks({
    def: { group: '', version: 'v1', resource: 'pods', kind: object.kind!, namespaced: true },
    subresource: sub, namespace, name, object, lookup: store,
    ctx: {
      namespace, now: new Date(), dryRun: false, fieldManager: '', warn: () => {},
      user: { name: user.name, groups: user.groups, ...(user.uid ? { uid: user.uid } : {}), ...(user.extra ? { extra: user.extra } : {}) },
    },
  });
  return JSON.stringify(object) === before ? q : queryOf(object as Record<string, unknown>);
}
