/**
 * Message descriptors for the Kubernetes protobuf wire format, generated from the
 * compiled upstream `generated.proto` files by scripts/gen-protobuf-descriptors.ts
 * into descriptors.json. Only facts of the wire format and JSON names are kept.
 */
import data from './descriptors.json' with { type: 'json' };

/** The field is `repeated` (a Go slice). */
export const FLAG_REPEATED = 1;
/**
 * A scalar whose zero value still appears in the JSON form: a Go pointer (set when
 * on the wire) or a field without `omitempty`.
 */
export const FLAG_KEEP_ZERO = 2;
/** An embedded struct whose fields the JSON form inlines into the parent (`json:",inline"`). */
export const FLAG_INLINE = 4;

/**
 * [field number, JSON name, type, flags, Go field name when not the capitalised JSON name].
 * Type: a scalar (`string`, `bool`, `int32`, `int64`, `uint32`, `uint64`, `double`, `float`,
 * `bytes`), a message (`core.v1.Container`), `map:<key type>:<value type>`, or one of
 * `@Quantity`, `@IntOrString`, `@Time`, `@MicroTime`, `@Duration`, `@FieldsV1`,
 * `@RawExtension`, `@StringList` (messages with a JSON form of their own).
 */
export type FieldTuple = [number, string, string, number, string?];

export interface DescriptorData {
  source: string;
  /** Message name (`core.v1.ConfigMap`, `meta.v1.ObjectMeta`) → fields in number order. */
  messages: Record<string, FieldTuple[]>;
  /** `<apiVersion>|<kind>` (or `*|<kind>` for kinds of every group version) → message name. */
  kinds: Record<string, string>;
}

export interface FieldSpec {
  number: number;
  name: string;
  type: string;
  repeated: boolean;
  keepZero: boolean;
  inline: boolean;
  goName: string;
}

export type MessageSpec = Map<number, FieldSpec>;

const DATA = data as unknown as DescriptorData;
const cache = new Map<string, MessageSpec>();

/** The fields of a message by number, or undefined for an unknown message. */
export function messageSpec(name: string): MessageSpec | undefined {
  let spec = cache.get(name);
  if (spec) return spec;
  const tuples = DATA.messages[name];
  if (!tuples) return undefined;
  spec = new Map(tuples.map(([number, fieldName, type, flags, goName]) => [number, {
    number, name: fieldName, type,
    repeated: (flags & FLAG_REPEATED) !== 0,
    keepZero: (flags & FLAG_KEEP_ZERO) !== 0,
    inline: (flags & FLAG_INLINE) !== 0,
    goName: goName ?? fieldName.charAt(0).toUpperCase() + fieldName.slice(1),
  }]));
  cache.set(name, spec);
  return spec;
}

/** The message of a group/version/kind, as the envelope's typeMeta names it. */
export function messageForKind(apiVersion: string, kind: string): string | undefined {
  return DATA.kinds[`${apiVersion}|${kind}`] ?? DATA.kinds[`*|${kind}`];
}

/** Every known apiVersion of a kind (to fill a missing apiVersion from the expected kind). */
export function apiVersionsOfKind(kind: string): string[] {
  const suffix = `|${kind}`;
  return Object.keys(DATA.kinds).filter((k) => k.endsWith(suffix)).map((k) => k.split('|', 1)[0] ?? '');
}
