/**
 * The 403 a denied request gets: responsewriters.ForbiddenStatusError and
 * forbiddenMessage (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go).
 */
import { errors, type StatusError } from '../apimachinery/errors.js';
import { goQuote } from '../apimachinery/go-quote.js';
import type { Attributes } from './types.js';

export function forbiddenMessage(a: Attributes): string {
  const user = goQuote(a.user.name);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) {
    return `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} in the namespace ${goQuote(a.namespace)}`;
  }
  return `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} at the cluster scope`;
}

/** Upstream keeps the text from looking like HTML (quotes stay). */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Forbidden Status for the request's group, resource and name, with the authorizer's reason appended. */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  return errors.forbidden({ group: a.apiGroup, resource: a.resource }, a.name, reason ? `${msg}: ${reason}` : msg);
}
