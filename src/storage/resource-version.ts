/**
 * Resource versions as storage reads them (k8s.io/apiserver/pkg/storage:
 * APIObjectVersioner), with the errors each layer that parses one answers.
 */
import { errors } from '../apimachinery/errors.js';
import { field, formatFieldErrors } from '../apimachinery/field-errors.js';
import { parseUint64 } from '../apimachinery/go-strconv.js';

/**
 * APIObjectVersioner.ParseResourceVersion: "" and "0" are 0; anything else must be a uint64. Its
 * InvalidError reaches the client unconverted (500, no reason) where the watch cache parses it
 * (get, watch, and lists the cache serves).
 */
export function parseResourceVersion(rv: string): number {
  if (rv === '' || rv === '0') return 0;
  try {
    return parseUint64(rv);
  } catch (e) {
    throw errors.unknown(formatFieldErrors([field.invalid('resourceVersion', rv, (e as Error).message)]));
  }
}

/** The same parse where etcd3's store does it (resolveGetListRev): a 400. */
export function parseResourceVersionForStorage(rv: string): number {
  try {
    return parseResourceVersion(rv);
  } catch (e) {
    throw errors.badRequest(`invalid resource version: ${(e as { status: { message: string } }).status.message}`);
  }
}
