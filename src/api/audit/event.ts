/**
 * audit.k8s.io/v1 Event, with its fields in the order kube-apiserver's JSON
 * encoder writes them (empty ones left out as its omitempty tags do).
 */
import type { Level, Stage } from './policy.js';

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface AuditUser { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

export interface AuditEvent {
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

function user(u: AuditUser): AuditUser {
  const out: AuditUser = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups?.length) out.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

function objectRef(r: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    if (r[k]) out[k] = r[k];
  }
  return out;
}

/** One line of the log: the event as JSON and a newline. */
export function eventLine(ev: AuditEvent): string {
  const out: Record<string, unknown> = {
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: ev.level, auditID: ev.auditID, stage: ev.stage,
    requestURI: ev.requestURI, verb: ev.verb, user: user(ev.user),
  };
  if (ev.impersonatedUser) out.impersonatedUser = user(ev.impersonatedUser);
  if (ev.sourceIPs.length) out.sourceIPs = ev.sourceIPs;
  if (ev.userAgent) out.userAgent = ev.userAgent;
  if (ev.objectRef) out.objectRef = objectRef(ev.objectRef);
  if (ev.responseStatus) out.responseStatus = ev.responseStatus;
  if (ev.requestObject !== undefined) out.requestObject = ev.requestObject;
  if (ev.responseObject !== undefined) out.responseObject = ev.responseObject;
  out.requestReceivedTimestamp = ev.requestReceivedTimestamp;
  out.stageTimestamp = ev.stageTimestamp;
  if (ev.annotations && Object.keys(ev.annotations).length) out.annotations = ev.annotations;
  return JSON.stringify(out) + '\n';
}
