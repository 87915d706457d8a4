/**
 * flowcontrol.apiserver.k8s.io/v1 (GA in v1.29) as the recorded documents' v1beta3
 * under a new version, plus what v1.28 added to both: the exempt priority
 * level's configurable fields. Shared by the OpenAPI and field manager generators.
 */
type Schema = { [key: string]: unknown };

const FC = 'io.k8s.api.flowcontrol.';

/** A v1beta3 name, reference, operation id, tag or group-version-kind, in v1. */
export function flowcontrolV1Text(text: string): string {
  return text
    .replaceAll('flowcontrol.apiserver.k8s.io/v1beta3', 'flowcontrol.apiserver.k8s.io/v1')
    .replaceAll(`${FC}v1beta3.`, `${FC}v1.`)
    .replaceAll('FlowcontrolApiserverV1beta3', 'FlowcontrolApiserverV1')
    .replaceAll('flowcontrolApiserver_v1beta3', 'flowcontrolApiserver_v1')
    .replaceAll('["flowcontrol.apiserver.k8s.io","v1beta3",', '["flowcontrol.apiserver.k8s.io","v1",')
    .replace(/\{"group":"flowcontrol\.apiserver\.k8s\.io","kind":"(FlowSchema|FlowSchemaList|PriorityLevelConfiguration|PriorityLevelConfigurationList)","version":"v1beta3"\}/g,
      '{"group":"flowcontrol.apiserver.k8s.io","kind":"$1","version":"v1"}');
}

/** Adds the v1 definitions to `defs` (removing the v1beta3 ones unless `keepBeta`). */
export function addFlowcontrolV1(defs: Record<string, Schema>, keepBeta: boolean): void {
  for (const name of Object.keys(defs).filter((n) => n.startsWith(`${FC}v1beta3.`))) {
    defs[name.replace(`${FC}v1beta3.`, `${FC}v1.`)] = JSON.parse(flowcontrolV1Text(JSON.stringify(defs[name])));
    if (!keepBeta) delete defs[name];
  }
  const int32 = { type: 'integer', format: 'int32' };
  defs[`${FC}v1.ExemptPriorityLevelConfiguration`] = { type: 'object', properties: { lendablePercent: int32, nominalConcurrencyShares: int32 } };
  const spec = defs[`${FC}v1.PriorityLevelConfigurationSpec`] as { properties: Record<string, Schema> };
  const properties: Record<string, Schema> = { ...spec.properties, exempt: { allOf: [{ $ref: `#/components/schemas/${FC}v1.ExemptPriorityLevelConfiguration` }] } };
  spec.properties = Object.fromEntries(Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
