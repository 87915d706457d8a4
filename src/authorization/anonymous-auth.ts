/**
 * Whether requests without credentials are served as system:anonymous.
 * kube-apiserver's --anonymous-auth defaults to true, and
 * BuiltInAuthenticationOptions.ApplyAuthorization
 * (pkg/kubeapiserver/options/authentication.go) turns it off when the modes
 * include AlwaysAllow: anonymous access must not mean unlimited access.
 * Without it such a request is 401, whatever its path (/healthz too).
 */
import { MODE_ALWAYS_ALLOW, type AuthorizationMode } from './modes.js';

export function anonymousAuthAllowed(modes: readonly AuthorizationMode[]): boolean {
  return !modes.includes(MODE_ALWAYS_ALLOW);
}
