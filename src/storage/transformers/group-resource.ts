/** schema.GroupResource as the encryption configuration names it. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** schema.ParseGroupResource: `resource.group`, split at the first dot. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

/** How the configuration's errors print a group resource (grYAMLString): `*.` for every core resource. */
export function groupResourceText(gr: GroupResource): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export function groupResourceKey(gr: GroupResource): string {
  return `${gr.resource}.${gr.group}`;
}

/**
 * The group resource a storage key belongs to: the registry lays keys out as
 * `/<group or core>/<resource>/...`.
 */
export function groupResourceOfKey(key: string): GroupResource | undefined {
  const second = key.indexOf('/', 1);
  if (second < 0) return undefined;
  const third = key.indexOf('/', second + 1);
  const group = key.slice(1, second);
  const resource = key.slice(second + 1, third < 0 ? undefined : third);
  return { group: group === 'core' ? '' : group, resource };
}
