/**
 * The map's label filter: the selector text a user types for `kubectl get pods -l`, parsed by the server's own
 * parser (src/selectors, bundled into the page) so it accepts and refuses exactly what the API server does,
 * with the same message the server returns and kubectl prints after "Error from server (BadRequest): ...: ".
 */
import { parseLabelSelector, type LabelSelector } from '../../../selectors/labels.js';

export type LabelFilter = { selector: LabelSelector; error?: undefined } | { selector?: undefined; error: string };

export function parseLabelFilter(text: string): LabelFilter {
  try {
    return { selector: parseLabelSelector(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
