import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef, ReviewContext } from '../registry/types.js';
import type { AuthorizerWithRules } from '../authorization/types.js';
import { printerFor } from '../registry/printers/index.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { apiVersionOf } from '../apimachinery/object.js';
import { type DeleteRequest, type ListRequest, type RawListResponse, type Store } from '../registry/store.js';
import { isSelectableField, unknownFieldSelectorMessage } from '../registry/field-values.js';
import { decodeObject, mediaType, readBody } from './body.js';
import { auditAnnotate, auditRequestObject } from './audit/http-audit.js';
import { negotiate, negotiateShape, NOT_ACCEPTABLE, type Shape } from './negotiate.js';
import { parseDryRun, requestedOptions } from './query.js';
import { parseInt64, queryBool } from '../apimachinery/go-strconv.js';
import { parseFieldSelector } from '../selectors/fields.js';
import { decodeListOptions, defaultListOptions, validateListOptions, type ListOptions } from './list-options.js';
import { parseResourceVersion } from '../storage/resource-version.js';
import type { ResourceRequest } from './request-info.js';
import { addWarning, writeJSON, writeJSONText } from './respond.js';
import { errors, isNotFound, StatusError } from '../apimachinery/errors.js';
import { checkCustomResourceFields, deprecationWarningOf, isCustomResource } from '../registry/apiextensions/custom-resource-def.js';
import { STRATEGIC_MERGE_PATCH, unsupportedPatchTypeStatus } from '../patch/index.js';
import { field, formatFieldErrors, type FieldError } from '../apimachinery/field-errors.js';
import type { Authenticator, User } from './auth.js';
import { cloneDecoded, rawLength, withTypeMeta, writeWithRevision } from '../registry/codec.js';
import { listKind, partialObject, toTable, type IncludeObject } from './table.js';
import { serveWatch } from './watch.js';
import { LIST_PAGE_SIZE, writeListStream } from './list-stream.js';
import { applyPatchRequest } from './patch.js';
import { checkApplyPatchYAML, checkBodyFields, checkPatchedFields, fieldValidationOf, hasUnknownFieldsOf } from '../openapi/field-validation.js';
import { checkPatchBody } from './patch-body.js';
import { checkPatchedGoTypes } from '../openapi/patched-types.js';
import { subresourceHandlers, type SubresourceContext } from './subresources.js';
import { checkCreateNamespace, checkObjectKey } from './path-segment.js';
import { APPLY_PATCH, checkPatchOptions, dryRunErrors, validateWriteOptions } from '../meta/write-options.js';
import { managerOrUserAgent } from '../fieldmanager/request.js';
import { serveApplyPatch } from './apply-patch.js';

const INTERNAL_PACKAGE: Record<string, string> = { '': 'core' };

/** Checks that a body's apiVersion/kind, when present, name the resource of the URL. */
function checkTypeMeta(def: ResourceDef, obj: Record<string, unknown>): void {
  const apiVersion = obj.apiVersion as string | undefined;
  const kind = obj.kind as string | undefined;
  if (!apiVersion && !kind) return;
  if ((apiVersion ?? apiVersionOf(def)) === apiVersionOf(def) && (kind ?? def.kind) === def.kind) return;
  const version = (apiVersion ?? apiVersionOf(def)).split('/').pop()!;
  const k = kind ?? def.kind;
  const pkg = INTERNAL_PACKAGE[def.group] ?? def.group.split('.')[0];
  throw errors.badRequest(
    `${k} in version "${version}" cannot be handled as a ${def.kind}: converting (${version}.${k}) to (${pkg}.${def.kind}): unknown conversion`);
}

/**
 * The list/watch options of a collection GET (or DELETE), checked as ListResource checks them:
 * decoded (400), defaulted, validated (422), then the field selector's fields (400).
 */
function listOptionsOf(def: ResourceDef, q: URLSearchParams): ListOptions {
  const opts = decodeListOptions(q);
  defaultListOptions(opts);
  validateListOptions(opts);
  for (const t of opts.fieldSelector?.terms ?? []) {
    if (!isSelectableField(def, t.field)) throw errors.badRequest(unknownFieldSelectorMessage(def, t.field));
  }
  return opts;
}

function listRequest(opts: ListOptions): ListRequest {
  const out: ListRequest = {
    labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector,
    resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch,
  };
  // The watch cache ignores the limit of a list at resourceVersion "0" (computeListLimit).
  if (opts.limit > 0 && opts.resourceVersion !== '0') out.limit = opts.limit;
  if (opts.continue) out.continueToken = opts.continue;
  return out;
}

/** TableOptions.includeObject, checked as optionsForTransform does when a Table is asked for. */
function includeObjectOf(q: URLSearchParams): IncludeObject {
  const v = q.getAll('includeObject')[0] ?? '';
  if (v === 'None' || v === 'Object' || v === 'Metadata') return v;
  if (v === '') return 'Metadata';
  throw errors.badRequest(`Unable to convert to Table as requested: ${formatFieldErrors([
    field.invalid('includeObject', v, "must be 'Metadata', 'Object', 'None', or empty")])}`);
}

/** A JSON list's text up to its first item. */
function listHead(def: ResourceDef, meta: Record<string, string>): string {
  return `{"kind":"${listKind(def)}","apiVersion":"${apiVersionOf(def)}","metadata":${JSON.stringify(meta)},"items":[`;
}

/** A JSON list from stored texts, written into one buffer without parsing them. */
function writeRawList(res: ServerResponse, def: ResourceDef, list: RawListResponse): void {
  const meta: Record<string, string> = { resourceVersion: String(list.revision) };
  if (list.continueToken) meta.continue = list.continueToken;
  const head = listHead(def, meta);
  let size = Buffer.byteLength(head) + list.items.length + 2;
  for (const kv of list.items) size += rawLength(kv.value, kv.modRevision);
  const buf = Buffer.allocUnsafe(size);
  let off = buf.write(head);
  list.items.forEach((kv, i) => {
    if (i) buf[off++] = 0x2c;
    off = writeWithRevision(buf, off, kv.value, kv.modRevision);
  });
  off += buf.write(']}', off);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': off });
  res.end(buf.subarray(0, off));
}


/** Serves the REST verbs of every registered resource. */
export class ResourceHandlers {
  /** The authenticated user of each request in flight. */
  private readonly users = new WeakMap<IncomingMessage, User>();

  /** What review resources ask of the server: token authentication and the authorizer's decisions. */
  private readonly reviewContext: ReviewContext;

  constructor(private readonly store: Store, private readonly authenticator: Authenticator, authorizer?: AuthorizerWithRules) {
    this.reviewContext = {
      authenticateToken: (token, audiences) => authenticator.authenticateToken(token, audiences),
      ...(authorizer ? { authorizer } : {}),
    };
  }

  private writeContext(namespace: string, q: URLSearchParams, optionsKind: string,
    req: IncomingMessage, res: ServerResponse, requestName?: string): WriteContext {
    const seen = new Set<string>();
    return {
      namespace,
      ...(requestName ? { requestName } : {}),
      now: new Date(),
      dryRun: parseDryRun(q, optionsKind),
      fieldManager: managerOrUserAgent(q.get('fieldManager'), req.headers['user-agent']),
      options: requestedOptions(q),
      user: this.users.get(req),
      warn: (message) => {
        if (seen.has(message)) return;
        seen.add(message);
        addWarning(res, message);
      },
      annotate: (key, value) => auditAnnotate(req, key, value),
    };
  }

  private respondObject(res: ServerResponse, code: number, def: ResourceDef, obj: KObject, shape: Shape, q: URLSearchParams): void {
    if (shape.kind === 'table') {
      writeJSON(res, code, toTable(def.printer ?? printerFor(def.group, def.resource), [obj], { resourceVersion: obj.metadata.resourceVersion }, includeObjectOf(q)));
    } else if (shape.kind === 'partial') {
      writeJSON(res, code, partialObject(obj));
    } else {
      writeJSON(res, code, obj, shape.kind === 'object' ? shape.format : 'json');
    }
  }

  /**
   * respondObject for an object the store's create or update just returned:
   * JSON answers reuse the text stored rather than serializing the object again.
   */
  private respondWritten(res: ServerResponse, code: number, def: ResourceDef, obj: KObject, shape: Shape, q: URLSearchParams): void {
    const text = shape.kind === 'object' && shape.format === 'json' ? this.store.writtenJSON(obj) : undefined;
    if (text === undefined) return this.respondObject(res, code, def, obj, shape, q);
    writeJSONText(res, code, text);
  }

  async handle(req: IncomingMessage, res: ServerResponse, info: ResourceRequest, url: URL, def: ResourceDef, user: User): Promise<void> {
    this.users.set(req, user);
    const q = url.searchParams;
    const method = req.method ?? 'GET';
    const shape = def.review ? negotiateShape(req.headers.accept, { table: false }) : negotiate(req.headers.accept);
    if (!shape) throw errors.notAcceptable(NOT_ACCEPTABLE);
    const deprecation = deprecationWarningOf(def);
    if (deprecation) addWarning(res, deprecation);
    if (!def.namespaced && info.namespace) throw errors.notFoundGeneric();
    const namespace = def.namespaced ? info.namespace : '';

    if (info.subresource) {
      const sub = subresourceHandlers[info.subresource];
      const declared = def.subresources?.some((s) => s.name === info.subresource);
      if (!declared || !sub || !info.name) throw errors.notFoundGeneric();
      checkObjectKey(def, namespace, info.name);
      const ctx: SubresourceContext = {
        store: this.store, def, namespace, name: info.name, req, res, url, shape,
        respond: (code, obj) => this.respondObject(res, code, def, obj, shape, q),
        writeContext: (optionsKind) => this.writeContext(namespace, q, optionsKind, req, res),
        tokens: this.authenticator.serviceAccountTokens,
      };
      return sub(ctx);
    }

    if (!info.name) {
      switch (method) {
        case 'GET': {
          const opts = listOptionsOf(def, q);
          // The /watch/ paths watch whatever the query says.
          return opts.watch || info.watchPath ? this.watch(req, res, def, namespace, opts, shape, q) : this.list(res, def, namespace, opts, shape, q);
        }
        case 'POST': return this.create(req, res, def, namespace, q, shape);
        case 'DELETE': return this.deleteCollection(req, res, def, namespace, q);
        default: throw errors.methodNotAllowed();
      }
    }
    if (info.watchPath) {
      // The deprecated /watch/ path of one object watches the collection selected by its name
      // (a GET of the object itself ignores ?watch, as upstream routes it to GetResource).
      const opts = listOptionsOf(def, q);
      if (opts.fieldSelector?.terms.length) {
        const byName = opts.fieldSelector.terms.find((t) => t.field === 'metadata.name' && !t.negate);
        if (byName?.value !== info.name) throw errors.badRequest("fieldSelector metadata.name doesn't match requested name");
      } else {
        opts.fieldSelector = parseFieldSelector(`metadata.name=${info.name}`);
      }
      return this.watch(req, res, def, namespace, opts, shape, q);
    }
    switch (method) {
      case 'GET': {
        checkObjectKey(def, namespace, info.name);
        // Get with a resourceVersion reads from the watch cache: a bad one fails its parse, a future one waits.
        const rv = q.get('resourceVersion');
        if (rv) await this.store.waitForRevision(parseResourceVersion(rv));
        const obj = await this.store.read(def, namespace, info.name);
        return this.respondObject(res, 200, def, obj, shape, q);
      }
      case 'PUT': return this.update(req, res, def, namespace, info.name, q, shape);
      case 'PATCH': return this.patch(req, res, def, namespace, info.name, q, shape);
      case 'DELETE': return this.delete(req, res, def, namespace, info.name, q, shape);
      default: throw errors.methodNotAllowed();
    }
  }

  private async list(res: ServerResponse, def: ResourceDef, namespace: string, opts: ListOptions, shape: Shape, q: URLSearchParams): Promise<void> {
    const lr = listRequest(opts);
    if (shape.kind === 'object' && shape.format === 'json') {
      // Without a limit the list can be as long as the collection: it is written as it is read.
      const pages = !lr.limit && !lr.continueToken ? this.store.listRawPages(def, namespace, lr, LIST_PAGE_SIZE) : undefined;
      if (pages) return writeListStream(res, (rv) => listHead(def, { resourceVersion: String(rv) }), pages);
      const raw = await this.store.listRaw(def, namespace, lr);
      if (raw) return writeRawList(res, def, raw);
    }
    const out = await this.store.list(def, namespace, lr);
    const meta: Record<string, unknown> = { resourceVersion: String(out.revision) };
    if (out.continueToken) meta.continue = out.continueToken;
    if (shape.kind === 'table') {
      writeJSON(res, 200, toTable(def.printer ?? printerFor(def.group, def.resource), out.items, meta, includeObjectOf(q)));
    } else if (shape.kind === 'partial') {
      writeJSON(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: out.items.map(partialObject) });
    } else {
      writeJSON(res, 200, { kind: listKind(def), apiVersion: apiVersionOf(def), metadata: meta, items: out.items },
        shape.kind === 'object' ? shape.format : 'json');
    }
  }

  private async watch(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string,
    opts: ListOptions, shape: Shape, q: URLSearchParams): Promise<void> {
    await serveWatch(this.store, def, namespace, {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      timeoutSeconds: opts.timeoutSeconds,
      allowBookmarks: opts.allowWatchBookmarks,
      sendInitialEvents: opts.sendInitialEvents,
      shape,
      includeObject: shape.kind === 'table' ? includeObjectOf(q) : 'Metadata',
    }, req, res);
  }

  private async create(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string,
    q: URLSearchParams, shape: Shape): Promise<void> {
    validateWriteOptions(q, 'CreateOptions');
    const ctx = this.store.readOnlyResult(this.writeContext(namespace, q, 'CreateOptions', req, res));
    const fieldValidation = fieldValidationOf(q, 'CreateOptions');
    const raw = await readBody(req);
    const body = decodeObject(raw, req.headers['content-type'], def.kind, def);
    auditRequestObject(req, body);
    checkTypeMeta(def, body);
    checkBodyFields(def, raw, req.headers['content-type'], body, fieldValidation, ctx.warn);
    checkCustomResourceFields(def, body, fieldValidation, ctx.warn);
    if (def.review) {
      const answer = await def.review(withTypeMeta(def, body as KObject), ctx, this.reviewContext);
      return this.respondObject(res, 201, def, answer, shape, q);
    }
    // Admission's namespace lookup comes after the body's namespace is checked against the URL's.
    const bodyNamespace = (body as KObject).metadata?.namespace;
    if (def.namespaced && (!bodyNamespace || bodyNamespace === namespace)) checkCreateNamespace(namespace);
    const obj = await this.store.create(def, namespace, body as KObject, ctx);
    this.respondWritten(res, 201, def, obj, shape, q);
  }

  private async update(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string, name: string,
    q: URLSearchParams, shape: Shape): Promise<void> {
    validateWriteOptions(q, 'UpdateOptions');
    const ctx = this.store.readOnlyResult(this.writeContext(namespace, q, 'UpdateOptions', req, res, name));
    const fieldValidation = fieldValidationOf(q, 'UpdateOptions');
    const raw = await readBody(req);
    const body = decodeObject(raw, req.headers['content-type'], def.kind, def) as KObject;
    auditRequestObject(req, body);
    checkTypeMeta(def, body);
    checkBodyFields(def, raw, req.headers['content-type'], body, fieldValidation, ctx.warn);
    checkCustomResourceFields(def, body, fieldValidation, ctx.warn);
    body.metadata ??= {};
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    checkObjectKey(def, namespace, name);
    // rest.defaultUpdatedObjectInfo: each GuaranteedUpdate attempt starts from a fresh copy of the body.
    let obj: KObject;
    try {
      obj = await this.store.update(def, namespace, name, () => cloneDecoded(body), ctx);
    } catch (e) {
      if (!def.allowCreateOnUpdate || !isNotFound(e)) throw e;
      // Strategy.AllowCreateOnUpdate: a PUT of a missing object creates it, answered 201
      // (the creating path of Store.Update does not compare resourceVersions).
      if (def.namespaced) checkCreateNamespace(namespace);
      const created = cloneDecoded(body);
      delete created.metadata.resourceVersion;
      return this.respondWritten(res, 201, def, await this.store.create(def, namespace, created, ctx), shape, q);
    }
    this.respondWritten(res, 200, def, obj, shape, q);
  }

  private async patch(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string, name: string,
    q: URLSearchParams, shape: Shape): Promise<void> {
    const contentType = mediaType(req.headers['content-type']);
    if (contentType === STRATEGIC_MERGE_PATCH && isCustomResource(def)) {
      const s = unsupportedPatchTypeStatus(false);
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: s.message, reason: s.reason, code: s.code });
    }
    checkPatchOptions(contentType, q);
    const ctx = this.store.readOnlyResult(this.writeContext(namespace, q, 'PatchOptions', req, res, name));
    const fieldValidation = fieldValidationOf(q, 'PatchOptions');
    const body = (await readBody(req)).toString('utf8');
    checkObjectKey(def, namespace, name);
    checkPatchBody(contentType, body, fieldValidation);
    if (contentType === APPLY_PATCH) {
      checkApplyPatchYAML(body, fieldValidation, ctx.warn);
      const applied = await serveApplyPatch(this.store, def, namespace, name, body, q, ctx);
      return this.respondWritten(res, applied.code, def, applied.obj, shape, q);
    }
    const obj = await this.store.update(def, namespace, name, (current) => {
      // current is the store's copy for this attempt: the patch may change it in place, unless the
      // field check needs it as it was (it has unknown fields, which almost no stored object has).
      const before = hasUnknownFieldsOf(def, current) ? structuredClone(current) : undefined;
      const patched = applyPatchRequest(contentType, current, body, def, true);
      checkPatchedGoTypes(def, contentType, body, patched);
      return checkPatchedFields(def, contentType, body, before, patched, fieldValidation, ctx.warn);
    }, ctx);
    this.respondWritten(res, 200, def, obj, shape, q);
  }

  /**
   * The DeleteOptions of a delete: the body's when there is one, else the query's (decoded as
   * upstream converts query strings: 400 with the conversion's error), then ValidateDeleteOptions.
   */
  private async deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<DeleteRequest & { dryRunAll: boolean }> {
    const raw = await readBody(req);
    let grace: number | undefined;
    let policy: string | undefined;
    let orphan: boolean | undefined;
    let dryRun: string[];
    let preconditions: DeleteRequest['preconditions'];
    if (raw.length) {
      const body = decodeObject(raw, req.headers['content-type'], 'DeleteOptions') as {
        gracePeriodSeconds?: number | null; propagationPolicy?: string | null; orphanDependents?: boolean | null;
        dryRun?: string[] | null; preconditions?: DeleteRequest['preconditions'];
      };
      grace = body.gracePeriodSeconds ?? undefined;
      policy = body.propagationPolicy ?? undefined;
      orphan = body.orphanDependents ?? undefined;
      dryRun = body.dryRun ?? [];
      preconditions = body.preconditions;
    } else {
      const first = (name: string) => (q.has(name) ? q.getAll(name)[0] : undefined);
      const g = first('gracePeriodSeconds');
      if (g !== undefined) {
        try { grace = parseInt64(g); } catch (e) { throw errors.badRequest((e as Error).message); }
      }
      const o = first('orphanDependents');
      if (o !== undefined) orphan = queryBool(o);
      policy = first('propagationPolicy');
      dryRun = q.getAll('dryRun');
    }
    const errs: FieldError[] = [];
    if (orphan !== undefined && policy !== undefined) {
      errs.push(field.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
    }
    if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
      errs.push(field.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
    }
    errs.push(...dryRunErrors(new URLSearchParams(dryRun.map((v) => ['dryRun', v]))));
    if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
    if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
    return {
      gracePeriodSeconds: grace,
      propagationPolicy: policy as DeleteRequest['propagationPolicy'],
      preconditions,
      dryRunAll: dryRun.length > 0,
    };
  }

  private async delete(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string, name: string,
    q: URLSearchParams, shape: Shape): Promise<void> {
    const opts = await this.deleteOptions(req, q);
    checkObjectKey(def, namespace, name);
    const ctx = this.writeContext(namespace, new URLSearchParams(), 'DeleteOptions', req, res);
    ctx.dryRun = opts.dryRunAll;
    const { obj, deleted } = await this.store.delete(def, namespace, name, opts, ctx);
    if (deleted && !def.returnDeletedObject) {
      const details: Record<string, unknown> = { name };
      if (def.group) details.group = def.group;
      details.kind = def.resource;
      details.uid = obj.metadata.uid;
      writeJSON(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
      return;
    }
    this.respondObject(res, 200, def, obj, shape, q);
  }

  private async deleteCollection(req: IncomingMessage, res: ServerResponse, def: ResourceDef, namespace: string,
    q: URLSearchParams): Promise<void> {
    if (def.verbs && !def.verbs.includes('deletecollection')) throw errors.methodNotAllowed();
    const lr = listRequest(listOptionsOf(def, q));
    const opts = await this.deleteOptions(req, q);
    const ctx = this.writeContext(namespace, new URLSearchParams(), 'DeleteOptions', req, res);
    ctx.dryRun = opts.dryRunAll;
    const list = await this.store.list(def, namespace, { labelSelector: lr.labelSelector, fieldSelector: lr.fieldSelector });
    const items: KObject[] = [];
    for (const o of list.items) {
      try {
        items.push((await this.store.delete(def, o.metadata.namespace ?? '', o.metadata.name!, opts, ctx)).obj);
      } catch (e) {
        if ((e as { status?: { code?: number } }).status?.code !== 404) throw e;
      }
    }
    writeJSON(res, 200, { kind: listKind(def), apiVersion: apiVersionOf(def), metadata: { resourceVersion: String(this.store.storage.currentRevision()) }, items });
  }
}

