/**
 * resource.Quantity's String() for printer cells: the canonical form, so cells
 * read "1500m" and "1Gi" whatever spelling was stored.
 */
import { formatQuantity, parseQuantity } from '../../apimachinery/quantity.js';

/** Quantity.String() of a stored quantity; the input itself when it does not parse. */
export function quantityString(q: unknown): string {
  if (q === undefined || q === null) return '0';
  const s = String(q);
  try {
    return formatQuantity(parseQuantity(s));
  } catch {
    return s;
  }
}
