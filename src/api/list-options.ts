import { errors } from '../apimachinery/errors.js';
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { parseLabelSelector, type LabelSelector } from '../selectors/labels.js';
import { parseFieldSelector, type FieldSelector } from '../selectors/fields.js';
import { parseInt64, queryBool } from '../apimachinery/go-strconv.js';

/**
 * metainternalversion.ListOptions as list and watch requests carry them in the query: decoded
 * (ParameterCodec.DecodeParameters, 400 with the conversion's own error), defaulted for the
 * WatchList feature (beta and on in v1.32) and validated (ValidateListOptions, 422) as
 * ListResource does, before anything is read.
 */
export interface ListOptions {
  labelSelector?: LabelSelector;
  fieldSelector?: FieldSelector;
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  timeoutSeconds?: number;
  limit: number;
  continue: string;
  sendInitialEvents?: boolean;
}

const EXACT = 'Exact';
const NOT_OLDER_THAN = 'NotOlderThan';

/** The first value of a query parameter that is present, even empty (url.Values' first element). */
function first(q: URLSearchParams, name: string): string | undefined {
  return q.has(name) ? q.getAll(name)[0] : undefined;
}

function decodeOrBadRequest<T>(decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    throw errors.badRequest((e as Error).message);
  }
}

/** The url.Values conversion into v1.ListOptions, then into the internal version (selectors parsed). */
export function decodeListOptions(q: URLSearchParams): ListOptions {
  const bool = (name: string) => { const v = first(q, name); return v === undefined ? undefined : queryBool(v); };
  const int = (name: string) => { const v = first(q, name); return v === undefined ? undefined : decodeOrBadRequest(() => parseInt64(v)); };
  const timeoutSeconds = int('timeoutSeconds');
  const limit = int('limit') ?? 0;
  const opts: ListOptions = {
    watch: bool('watch') ?? false,
    allowWatchBookmarks: bool('allowWatchBookmarks') ?? false,
    resourceVersion: first(q, 'resourceVersion') ?? '',
    resourceVersionMatch: first(q, 'resourceVersionMatch') ?? '',
    timeoutSeconds,
    limit,
    continue: first(q, 'continue') ?? '',
    sendInitialEvents: bool('sendInitialEvents'),
  };
  const ls = first(q, 'labelSelector');
  if (ls) opts.labelSelector = decodeOrBadRequest(() => parseLabelSelector(ls));
  const fs = first(q, 'fieldSelector');
  if (fs) opts.fieldSelector = decodeOrBadRequest(() => parseFieldSelector(fs));
  return opts;
}

/** SetListOptionsDefaults with WatchList on: a watch from no version streams the state first. */
export function defaultListOptions(opts: ListOptions): void {
  if (opts.sendInitialEvents !== undefined || opts.resourceVersionMatch) return;
  if (opts.watch && (opts.resourceVersion === '' || opts.resourceVersion === '0')) {
    opts.sendInitialEvents = true;
    opts.resourceVersionMatch = NOT_OLDER_THAN;
  }
}

/** ValidateListOptions (WatchList enabled). */
export function validateListOptions(opts: ListOptions): void {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.watch) {
    if (opts.sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) {
      errs.push(field.forbidden('resourceVersionMatch', `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`));
    }
    if (match) {
      if (opts.sendInitialEvents === undefined) {
        errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== NOT_OLDER_THAN) errs.push(field.notSupported('resourceVersionMatch', match, [NOT_OLDER_THAN]));
      if (opts.continue) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match) {
      if (!opts.resourceVersion) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (opts.continue) errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== EXACT && match !== NOT_OLDER_THAN) errs.push(field.notSupported('resourceVersionMatch', match, [EXACT, NOT_OLDER_THAN, '']));
      if (match === EXACT && opts.resourceVersion === '0') {
        errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (opts.sendInitialEvents !== undefined) errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length) throw errors.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
}
