/**
 * The admin-only node control endpoint `winkube node` talks to, outside the
 * Kubernetes API paths (nothing under /api or /apis changes):
 *
 *   GET    /winkube/v1/nodes               the farm's nodes and whether they run
 *   POST   /winkube/v1/nodes               add: {pool?, count?, name?, fields?}
 *   DELETE /winkube/v1/nodes/NAME          remove: the Node and its Lease go
 *   POST   /winkube/v1/nodes/NAME/stop     the kubelet stops heartbeating
 *   POST   /winkube/v1/nodes/NAME/start    the machine boots again
 *
 * Only members of system:masters (the admin kubeconfig) may call it: these
 * are operations on machines, not API objects, so RBAC has no verb for them.
 * Errors are metav1.Status objects, as the API server's are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { User } from '../api/auth.js';
import { readBody } from '../api/body.js';
import { writeJSON, writeStatus } from '../api/respond.js';
import { StatusError, errors } from '../apimachinery/errors.js';
import { isObject } from '../meta/json.js';
import type { NodeOperations } from '../node/control/operations.js';
import { NODE_CONTROL_PREFIX } from '../node/control/client.js';

export type NodeControlHandler = (req: IncomingMessage, res: ServerResponse, path: string, user: User) => Promise<void>;

function forbidden(user: User, verb: string): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 403, reason: 'Forbidden',
    message: `User "${user.name}" cannot ${verb} winkube nodes: only members of system:masters can`,
    details: { group: 'winkube.io', kind: 'nodes' },
  } as StatusError['status']);
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readBody(req)).toString('utf8');
  if (!text.trim()) return {};
  let body: unknown;
  try { body = JSON.parse(text); } catch { throw errors.badRequest('the request body is not JSON'); }
  if (!isObject(body)) throw errors.badRequest('the request body must be a JSON object');
  return body;
}

export function nodeControlHandler(ops: NodeOperations): NodeControlHandler {
  return async (req, res, path, user) => {
    const method = req.method ?? 'GET';
    if (path !== NODE_CONTROL_PREFIX && !path.startsWith(`${NODE_CONTROL_PREFIX}/`)) return writeStatus(res, errors.notFoundGeneric().status);
    const rest = path.slice(NODE_CONTROL_PREFIX.length).split('/').filter(Boolean);
    const verb = method === 'GET' ? 'list' : method === 'DELETE' ? 'remove' : rest[1] ?? 'add';
    if (!user.groups.includes('system:masters')) throw forbidden(user, verb);
    if (rest.length === 0 && method === 'GET') return writeJSON(res, 200, { items: ops.list() });
    if (rest.length === 0 && method === 'POST') {
      const b = await jsonBody(req);
      if (b.fields !== undefined && !isObject(b.fields)) throw errors.badRequest('fields must be an object');
      const added = await ops.add({
        pool: typeof b.pool === 'string' ? b.pool : undefined,
        count: typeof b.count === 'number' ? b.count : undefined,
        name: typeof b.name === 'string' ? b.name : undefined,
        fields: b.fields as Record<string, unknown> | undefined,
      });
      return writeJSON(res, 201, { added });
    }
    const [node, action] = rest;
    if (node !== undefined && action === undefined && method === 'DELETE') {
      await ops.remove(node);
      return writeJSON(res, 200, { removed: node });
    }
    if (node !== undefined && rest.length === 2 && method === 'POST' && (action === 'stop' || action === 'start')) {
      await (action === 'stop' ? ops.stop(node) : ops.start(node));
      return writeJSON(res, 200, { [action === 'stop' ? 'stopped' : 'started']: node });
    }
    if (rest.length <= 2) return writeStatus(res, errors.methodNotAllowed().status);
    return writeStatus(res, errors.notFoundGeneric().status);
  };
}
