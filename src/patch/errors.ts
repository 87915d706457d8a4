/**
 * Patch failures carry upstream's error text plus the class of Status the
 * apiserver turns them into (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
 */

/**
 * - BadRequest: errors.NewBadRequest(err.Error())
 * - Invalid: errors.NewGenericServerResponse(422, ...), which drops the error text
 * - TooLarge: errors.NewRequestEntityTooLargeError(msg)
 * - Unknown: a plain Go error, which the handler answers as a 500 with an empty reason
 */
export type PatchErrorKind = 'BadRequest' | 'Invalid' | 'TooLarge' | 'Unknown';

export class PatchError extends Error {
  constructor(message: string, readonly kind: PatchErrorKind = 'Unknown') {
    super(message);
    this.name = 'PatchError';
  }
}

export const badRequest = (message: string) => new PatchError(message, 'BadRequest');
export const invalid = (message: string) => new PatchError(message, 'Invalid');
