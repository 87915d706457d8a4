/**
 * The audit pipeline (k8s.io/apiserver/pkg/endpoints/filters/audit.go and
 * pkg/audit/request.go): each request's event is made when the policy gives it
 * a level above None, logged at RequestReceived, at ResponseStarted for
 * long-running requests, and at ResponseComplete, each stage unless omitted,
 * to the log backend in blocking mode (written before the request goes on).
 */
import { randomUUID } from 'node:crypto';
import { rfc3339Micro } from '../../apimachinery/time.js';
import type { Attributes, UserInfo } from '../../authorization/types.js';
import type { AuditedRequest, AuditEventRecorder, RequestAudit } from '../../registry/request-audit.js';
import { eventLine, type AuditEvent, type AuditUser, type ResponseStatus } from './event.js';
import { evaluatePolicy, levelAtLeast, type Policy, type RequestAuditConfig, type Stage } from './policy.js';

export interface AuditSink {
  write(line: string): void;
}

function auditUser(u: UserInfo): AuditUser {
  return { username: u.name, uid: u.uid, groups: u.groups, extra: u.extra };
}

interface ObjectLike { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; managedFields?: unknown } }

function isObject(v: unknown): v is Record<string, unknown> & ObjectLike {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStatus(v: unknown): v is ResponseStatus & { kind: 'Status' } {
  return isObject(v) && v.kind === 'Status' && typeof v.code === 'number';
}

/** copyWithoutManagedFields: the object, or each item of a list, without metadata.managedFields. */
function withoutManagedFields(obj: unknown): unknown {
  if (!isObject(obj)) return obj;
  const strip = (o: unknown): unknown => {
    if (!isObject(o) || !isObject(o.metadata) || !('managedFields' in o.metadata)) return o;
    const { managedFields: _dropped, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  return Array.isArray(obj.items) ? { ...(strip(obj) as object), items: obj.items.map(strip) } : strip(obj);
}

class EventRecorder implements AuditEventRecorder {
  private started = false;
  readonly logsResponseObject: boolean;

  constructor(private readonly ev: AuditEvent, private readonly config: RequestAuditConfig,
    private readonly sink: AuditSink, private readonly longRunning: boolean, private readonly now: () => Date) {
    this.logsResponseObject = levelAtLeast(ev.level, 'RequestResponse');
  }

  get auditID(): string { return this.ev.auditID; }

  private process(stage: Stage): void {
    if (this.config.omitStages.includes(stage)) return;
    this.ev.stage = stage;
    this.ev.stageTimestamp = stage === 'RequestReceived' ? this.ev.requestReceivedTimestamp : rfc3339Micro(this.now());
    this.sink.write(eventLine(this.ev));
  }

  receive(): void {
    this.process('RequestReceived');
  }

  annotate(key: string, value: string): void {
    (this.ev.annotations ??= {})[key] = value;
  }

  annotateOnce(key: string, value: string): void {
    if (this.ev.annotations?.[key] === undefined) this.annotate(key, value);
  }

  impersonated(user: UserInfo): void {
    this.ev.impersonatedUser = auditUser(user);
  }

  requestObject(obj: unknown): void {
    const ref = (this.ev.objectRef ??= {});
    if (isObject(obj) && isObject(obj.metadata)) {
      const m = obj.metadata;
      ref.namespace ||= m.namespace;
      ref.name ||= m.name;
      ref.uid ||= m.uid;
      ref.resourceVersion ||= m.resourceVersion;
    }
    if (!levelAtLeast(this.ev.level, 'Request')) return;
    // A copy: the registry goes on to default and fill in the object it was given.
    this.ev.requestObject = structuredClone(this.config.omitManagedFields ? withoutManagedFields(obj) : obj);
  }

  responseObject(obj: unknown): void {
    if (isStatus(obj)) {
      const s: ResponseStatus = { metadata: {} };
      if (obj.status) s.status = obj.status;
      if (obj.message) s.message = obj.message;
      if (obj.reason) s.reason = obj.reason;
      if (obj.details) s.details = obj.details;
      s.code = obj.code;
      this.ev.responseStatus = s;
    }
    if (!levelAtLeast(this.ev.level, 'RequestResponse')) return;
    this.ev.responseObject = structuredClone(this.config.omitManagedFields ? withoutManagedFields(obj) : obj);
  }

  responseStarted(code: number): void {
    if (this.started) return;
    this.started = true;
    this.ev.responseStatus ??= { metadata: {} };
    this.ev.responseStatus.code = code;
    if (this.longRunning) this.process('ResponseStarted');
  }

  complete(): void {
    // A response never started (the connection closed early) is logged as upstream fakes it.
    const faked: ResponseStatus = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
    if (!this.ev.responseStatus && this.longRunning) {
      this.ev.responseStatus = faked;
      this.process('ResponseStarted');
    }
    this.ev.responseStatus ??= faked;
    this.process('ResponseComplete');
  }
}

export class Auditor implements RequestAudit {
  constructor(private readonly policy: Policy, private readonly sink: AuditSink, private readonly now: () => Date = () => new Date()) {}

  begin(attrs: Attributes, request: AuditedRequest, longRunning: boolean): EventRecorder | undefined {
    const config = evaluatePolicy(this.policy, attrs);
    if (config.level === 'None') return undefined;
    const ev: AuditEvent = {
      level: config.level, auditID: request.auditID ?? randomUUID(), stage: 'RequestReceived', requestURI: request.requestURI, verb: attrs.verb,
      user: auditUser(attrs.user), sourceIPs: request.sourceIPs, userAgent: request.userAgent,
      requestReceivedTimestamp: rfc3339Micro(request.received), stageTimestamp: '',
    };
    if (attrs.resourceRequest) {
      ev.objectRef = {
        namespace: attrs.namespace, name: attrs.name, resource: attrs.resource, subresource: attrs.subresource,
        apiGroup: attrs.apiGroup, apiVersion: attrs.apiVersion,
      };
    }
    const recorder = new EventRecorder(ev, config, this.sink, longRunning, this.now);
    recorder.receive();
    return recorder;
  }
}
