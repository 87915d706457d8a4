/** How Go and metav1 print instants: every timestamp a user sees goes through one of these. */

/** metav1.Time (time.RFC3339 in UTC): whole seconds. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime (RFC3339Micro): six fractional digits, always printed. */
export function rfc3339Micro(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** time.RFC3339Nano: fractional seconds without trailing zeros (none at all when zero). */
export function rfc3339Nano(d: Date): string {
  return d.toISOString().replace(/\.(\d+)Z$/, (_m, frac: string) => {
    const f = frac.replace(/0+$/, '');
    return f ? `.${f}Z` : 'Z';
  });
}
