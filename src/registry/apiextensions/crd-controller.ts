/**
 * The apiextensions-apiserver's own controllers for CustomResourceDefinitions, run in the API
 * server: the naming controller (pkg/controller/status/naming_controller.go: accepted names and
 * NamesAccepted), the establishing controller (pkg/controller/establish: Established), the
 * serving of established versions (customresource_handler.go, customresource_discovery_controller.go)
 * and the finalizer (pkg/controller/finalizer/crd_finalizer.go: a deleted CRD's instances go first).
 */
import type { CustomResourceDefinition, CustomResourceDefinitionNames } from 'kubernetes-types/apiextensions/v1.js';
import type { Store } from '../store.js';
import type { ResourceDef, Stored } from '../types.js';
import type { WatchHandle } from '../../storage/types.js';
import type { KObject } from '../../apimachinery/object.js';
import { inProcessWriteContext } from '../../apimachinery/write-context.js';
import { isNotFound } from '../../apimachinery/errors.js';
import { deepEqual } from '../../fieldmanager/typed.js';
import { customresourcedefinitions, CUSTOM_RESOURCE_CLEANUP_FINALIZER, crdCondition, setCRDCondition } from './customresourcedefinitions.js';
import { customResourceDefs } from './custom-resource-def.js';
import { ConversionWebhookClients } from './conversion-webhook-client.js';

type CRD = Stored<CustomResourceDefinition>;

/** The API server's loopback client's field manager (from its user agent). */
const FIELD_MANAGER = 'kube-apiserver';

/** equalToAcceptedOrFresh: a requested name is fine if already ours or used by no CRD of the group. */
function nameError(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (requested === undefined || requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

export class CustomResourceDefinitionController {
  private watch?: WatchHandle;
  private readonly served = new Map<string, ResourceDef[]>();
  /** CRDs whose reconciliation is queued or running; a change meanwhile runs it again. */
  private readonly queue = new Map<string, boolean>();
  private stopped = false;
  /** Conversion webhooks given as a Service are reached through this server's Services and Endpoints. */
  private readonly conversion: ConversionWebhookClients;

  constructor(private readonly store: Store, private readonly log: (m: string) => void = () => {}) {
    this.conversion = new ConversionWebhookClients((resource, namespace, name) => store.get('', resource, namespace, name), () => store.podEndpoints);
  }

  async start(): Promise<void> {
    const list = await this.store.list(customresourcedefinitions, '');
    for (const crd of list.items) this.enqueue(crd.metadata.name!);
    this.watch = await this.store.watch(customresourcedefinitions, '', list.revision, {}, (type, obj) => {
      if (type === 'DELETED') this.unserve(obj.metadata.name!);
      else this.enqueue(obj.metadata.name!);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.cancel();
  }

  private enqueue(name: string): void {
    if (this.queue.has(name)) { this.queue.set(name, true); return; }
    this.queue.set(name, false);
    void this.run(name);
  }

  private async run(name: string): Promise<void> {
    for (;;) {
      try {
        const again = await this.reconcile(name);
        if (again && !this.stopped) setTimeout(() => this.enqueue(name), 100);
      } catch (e) {
        if (!isNotFound(e)) this.log(`customresourcedefinition ${name}: ${(e as Error).message}`);
        if (!this.stopped && !isNotFound(e)) setTimeout(() => this.enqueue(name), 500);
      }
      if (!this.queue.get(name) || this.stopped) break;
      this.queue.set(name, false);
    }
    this.queue.delete(name);
  }

  /** One pass over a CRD; true when it must be looked at again (instances still being deleted). */
  private async reconcile(name: string): Promise<boolean> {
    let crd: CRD;
    try {
      crd = await this.store.read(customresourcedefinitions, '', name);
    } catch (e) {
      if (isNotFound(e)) { this.unserve(name); return false; }
      throw e;
    }
    if (crd.metadata.deletionTimestamp) return this.finalize(crd);
    crd = await this.updateNames(crd);
    if (crdCondition(crd, 'Established')?.status === 'True') this.serve(crd);
    return false;
  }

  /** The accepted names of the group's other CRDs (getAcceptedNamesForGroup). */
  private async usedNames(crd: CRD): Promise<{ resources: Set<string>; kinds: Set<string> }> {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const other of (await this.store.list(customresourcedefinitions, '')).items as CRD[]) {
      if (other.spec.group !== crd.spec.group) continue;
      const a = other.status?.acceptedNames;
      if (!a) continue;
      for (const n of [a.plural, a.singular ?? '', ...(a.shortNames ?? [])]) resources.add(n);
      kinds.add(a.kind);
      kinds.add(a.listKind ?? '');
    }
    return { resources, kinds };
  }

  /** calculateNamesAndConditions, then the establishing controller's Established, written as status. */
  private async updateNames(crd: CRD): Promise<CRD> {
    const { resources, kinds } = await this.usedNames(crd);
    const requested = crd.spec.names;
    const accepted: CustomResourceDefinitionNames = crd.status?.acceptedNames ?? { plural: '', kind: '' };
    const names: CustomResourceDefinitionNames = { ...accepted };
    let conflict: { reason: string; message: string } | undefined;
    const check = (reason: string, err: string | undefined, take: () => void) => {
      if (err) conflict = { reason, message: err }; else take();
    };
    check('PluralConflict', nameError(requested.plural, accepted.plural, resources), () => { names.plural = requested.plural; });
    check('SingularConflict', nameError(requested.singular, accepted.singular, resources), () => { names.singular = requested.singular; });
    if (!deepEqual(requested.shortNames, accepted.shortNames)) {
      const mine = new Set(accepted.shortNames ?? []);
      const errs = (requested.shortNames ?? []).filter((s) => !mine.has(s)).map((s) => nameError(s, '', resources)).filter((e): e is string => !!e);
      check('ShortNamesConflict', errs.length ? (errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`) : undefined, () => {
        if (requested.shortNames) names.shortNames = requested.shortNames; else delete names.shortNames;
      });
    }
    check('KindConflict', nameError(requested.kind, accepted.kind, kinds), () => { names.kind = requested.kind; });
    check('ListKindConflict', nameError(requested.listKind, accepted.listKind, kinds), () => { names.listKind = requested.listKind; });
    if (requested.categories) names.categories = requested.categories; else delete names.categories;
    const namesAccepted = conflict
      ? { type: 'NamesAccepted', status: 'False', ...conflict }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
    const wasEstablished = crdCondition(crd, 'Established')?.status === 'True';
    const established = wasEstablished || namesAccepted.status === 'True'
      ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
      : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
    const wanted = structuredClone(crd) as CRD;
    const now = new Date();
    wanted.status ??= { acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
    // In CustomResourceDefinitionNames' field order, as upstream serializes them.
    const ordered: Partial<Record<keyof CustomResourceDefinitionNames, unknown>> = {};
    for (const k of ['plural', 'singular', 'shortNames', 'kind', 'listKind', 'categories'] as const) {
      if (names[k] !== undefined) ordered[k] = names[k];
    }
    wanted.status.acceptedNames = ordered as CustomResourceDefinitionNames;
    setCRDCondition(wanted, namesAccepted, now);
    setCRDCondition(wanted, established, now);
    if (deepEqual(wanted.status, crd.status)) return crd;
    return await this.store.update(customresourcedefinitions, '', crd.metadata.name!, (cur) => {
      const next = cur as KObject as CRD;
      if (next.metadata.uid !== crd.metadata.uid || next.metadata.resourceVersion !== crd.metadata.resourceVersion) {
        throw Object.assign(new Error('changed'), { retry: true });
      }
      next.status = wanted.status;
      return next;
    }, inProcessWriteContext(FIELD_MANAGER), 'status').catch((e: unknown) => {
      if ((e as { retry?: boolean }).retry) { this.enqueue(crd.metadata.name!); return crd; }
      throw e;
    });
  }

  private serve(crd: CRD): void {
    const name = crd.metadata.name!;
    const defs = customResourceDefs(crd, this.conversion);
    const old = this.served.get(name) ?? [];
    this.served.set(name, defs);
    this.store.setResources(defs, old);
  }

  private unserve(name: string): void {
    const old = this.served.get(name);
    if (!old) return;
    this.served.delete(name);
    this.store.setResources([], old);
    this.conversion.release(name);
  }

  /**
   * crd_finalizer.go sync: Terminating while the instances are deleted (the CRD stays served
   * meanwhile, for clients' deletes and watches), then the finalizer removed.
   */
  private async finalize(crd: CRD): Promise<boolean> {
    const name = crd.metadata.name!;
    if (!crd.metadata.finalizers?.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
    const established = crdCondition(crd, 'Established')?.status === 'True';
    const ctx = inProcessWriteContext(FIELD_MANAGER);
    if (established) {
      await this.setTerminating(crd, 'InstanceDeletionInProgress', 'CustomResource deletion is in progress');
      const defs = this.served.get(name) ?? customResourceDefs(crd, this.conversion);
      // The finalizer lists and deletes in the storage version (no conversion webhook call) when it is served.
      const storageVersion = crd.spec.versions.find((v) => v.storage)?.name;
      const def = defs.find((d) => d.version === storageVersion) ?? defs[0];
      if (def) {
        const { items } = await this.store.list(def, '');
        for (const o of items) {
          try {
            await this.store.delete(def, o.metadata.namespace ?? '', o.metadata.name!, {}, ctx);
          } catch (e) {
            if (!isNotFound(e)) throw e;
          }
        }
        // Instances held by their own finalizers: look again shortly (upstream polls for a minute).
        if ((await this.store.list(def, '')).items.length) return true;
      }
      await this.setTerminating(crd, 'InstanceDeletionCompleted', 'removed all instances', 'False');
    } else {
      await this.setTerminating(crd, 'NeverEstablished', 'resource was never established');
    }
    this.unserve(name);
    await this.store.update(customresourcedefinitions, '', name, (cur) => {
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
      if (!cur.metadata.finalizers.length) delete cur.metadata.finalizers;
      return cur;
    }, ctx);
    return false;
  }

  private async setTerminating(crd: CRD, reason: string, message: string, status = 'True'): Promise<void> {
    const cond = crdCondition(crd, 'Terminating');
    if (cond?.reason === reason && cond.message === message && cond.status === status) return;
    const updated = await this.store.update(customresourcedefinitions, '', crd.metadata.name!, (cur) => {
      setCRDCondition(cur, { type: 'Terminating', status, reason, message }, new Date());
      return cur;
    }, inProcessWriteContext(FIELD_MANAGER), 'status');
    crd.status = (updated as CRD).status;
  }
}
