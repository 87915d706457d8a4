/**
 * Generates src/protobuf/descriptors.json: for each Kubernetes protobuf message the
 * request decoder needs, field number → JSON name, wire type and flags.
 *
 * Source of the wire facts: the compiled descriptors of upstream's `generated.proto`
 * files (k8s.io/api, k8s.io/apimachinery) that every kubectl binary embeds (gzipped
 * FileDescriptorProtos registered by the gogo-generated code). They carry field
 * numbers, types, repetition, map entries and gogoproto.nullable (= Go pointer or
 * not). JSON property names and the required (not `omitempty`) ones come from the
 * models @kubernetes/client-node generates from a recent upstream OpenAPI document:
 * a handful of proto field names differ from the JSON names (`uID` for `uid`), and a
 * field missing from a model whose message's fields are in it is an embedded struct
 * the JSON form inlines (`json:",inline"`, e.g. Probe's handler).
 *
 *   npx tsc -p tsconfig.json
 *   node dist/scripts/gen-protobuf-descriptors.js [kubectl binary] [out.json]
 *
 * Defaults: kubectl.1.32 beside `kubectl` (client-go/k8s.io/api 0.32, matching the
 * served v1.32 API) and src/protobuf/descriptors.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { DescriptorData, FieldTuple } from '../src/protobuf/descriptors.js';
import { FLAG_INLINE, FLAG_KEEP_ZERO, FLAG_REPEATED } from '../src/protobuf/descriptors.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Proto packages whose messages are decoded (the served groups plus the request-only ones). */
const PACKAGES = [
  'k8s.io.api.core.v1', 'k8s.io.api.apps.v1', 'k8s.io.api.batch.v1', 'k8s.io.api.autoscaling.v1',
  'k8s.io.api.autoscaling.v2', 'k8s.io.api.policy.v1', 'k8s.io.api.scheduling.v1',
  'k8s.io.api.authentication.v1', 'k8s.io.api.authorization.v1', 'k8s.io.api.rbac.v1',
  'k8s.io.api.certificates.v1', 'k8s.io.api.coordination.v1', 'k8s.io.api.discovery.v1', 'k8s.io.api.events.v1', 'k8s.io.api.node.v1',
  'k8s.io.api.networking.v1', 'k8s.io.api.admissionregistration.v1', 'k8s.io.api.storage.v1', 'k8s.io.apimachinery.pkg.apis.meta.v1',
];

/** Messages with a JSON form of their own instead of an object of their fields. */
const SPECIAL: Record<string, string> = {
  'k8s.io.apimachinery.pkg.api.resource.Quantity': '@Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': '@IntOrString',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': '@Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': '@MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': '@Duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': '@FieldsV1',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': '@RawExtension',
};

// ---- a minimal protobuf reader for descriptor.proto ----

type Raw = { f: number; w: number; v: bigint | Buffer };

function varint(b: Buffer, i: number): [bigint, number] {
  let r = 0n;
  let s = 0n;
  for (;;) {
    const x = b[i++];
    if (x === undefined) throw new Error(`truncated varint at byte ${i - 1}`);
    r |= BigInt(x & 127) << s;
    s += 7n;
    if (!(x & 128)) return [r, i];
  }
}

function fields(b: Buffer): Raw[] {
  const out: Raw[] = [];
  let i = 0;
  while (i < b.length) {
    const [tag, n] = varint(b, i);
    i = n;
    const f = Number(tag >> 3n);
    const w = Number(tag & 7n);
    if (w === 0) {
      const [v, m] = varint(b, i);
      i = m;
      out.push({ f, w, v });
    } else if (w === 2) {
      const [l, m] = varint(b, i);
      i = m + Number(l);
      out.push({ f, w, v: b.subarray(m, i) });
    } else if (w === 1) {
      out.push({ f, w, v: b.subarray(i, i + 8) });
      i += 8;
    } else if (w === 5) {
      out.push({ f, w, v: b.subarray(i, i + 4) });
      i += 4;
    } else {
      throw new Error(`wire type ${w}`);
    }
  }
  return out;
}

const str = (v: bigint | Buffer) => (v as Buffer).toString('utf8');

interface ProtoField {
  name: string;
  number: number;
  label: number;
  type: number;
  typeName?: string;
  nullable: boolean;
  customName?: string;
}
interface ProtoMessage { fullName: string; fields: ProtoField[]; mapEntry: boolean }

// gogoproto extension numbers inside FieldOptions.
const GOGO_NULLABLE = 65001;
const GOGO_CUSTOMNAME = 65004;

function parseField(b: Buffer): ProtoField {
  const f: ProtoField = { name: '', number: 0, label: 1, type: 0, nullable: true };
  for (const r of fields(b)) {
    if (r.f === 1) f.name = str(r.v);
    else if (r.f === 3) f.number = Number(r.v);
    else if (r.f === 4) f.label = Number(r.v);
    else if (r.f === 5) f.type = Number(r.v);
    else if (r.f === 6) f.typeName = str(r.v).replace(/^\./, '');
    else if (r.f === 8) {
      for (const o of fields(r.v as Buffer)) {
        if (o.f === GOGO_NULLABLE) f.nullable = o.v !== 0n;
        if (o.f === GOGO_CUSTOMNAME) f.customName = str(o.v);
      }
    }
  }
  return f;
}

function parseMessage(b: Buffer, scope: string, out: Map<string, ProtoMessage>): void {
  const m: ProtoMessage = { fullName: '', fields: [], mapEntry: false };
  const nested: Buffer[] = [];
  for (const r of fields(b)) {
    if (r.f === 1) m.fullName = `${scope}.${str(r.v)}`;
    else if (r.f === 2) m.fields.push(parseField(r.v as Buffer));
    else if (r.f === 3) nested.push(r.v as Buffer);
    else if (r.f === 7) m.mapEntry = fields(r.v as Buffer).some((o) => o.f === 7 && o.v === 1n);
  }
  out.set(m.fullName, m);
  for (const n of nested) parseMessage(n, m.fullName, out);
}

/** Every `k8s.io/...generated.proto` descriptor embedded in a Go binary. */
function embeddedDescriptors(binary: Buffer): Map<string, ProtoMessage> {
  const messages = new Map<string, ProtoMessage>();
  const magic = Buffer.from([0x1f, 0x8b, 0x08]);
  const seen = new Set<string>();
  for (let i = binary.indexOf(magic); i >= 0; i = binary.indexOf(magic, i + 1)) {
    let fd: Buffer;
    try {
      fd = gunzipSync(binary.subarray(i, i + 4_000_000), { finishFlush: 2 });
    } catch {
      continue;
    }
    if (fd[0] !== 0x0a) continue;
    let parsed: Raw[];
    try { parsed = fields(fd); } catch { continue; }
    const name = parsed.find((r) => r.f === 1);
    if (!name || !/^k8s\.io\/.*generated\.proto$/.test(str(name.v)) || seen.has(str(name.v))) continue;
    seen.add(str(name.v));
    const pkg = str(parsed.find((r) => r.f === 2)!.v);
    for (const r of parsed) if (r.f === 4) parseMessage(r.v as Buffer, pkg, messages);
  }
  return messages;
}

// ---- JSON names and required fields ----

/**
 * JSON property names and required ones of a definition, from the models that
 * @kubernetes/client-node generates from a recent upstream OpenAPI document
 * (`'name': string` is required, `'image'?: string` is not).
 */
interface JsonModel { props: Set<string>; required: Set<string> }

const MODELS = join(ROOT, 'node_modules', '@kubernetes', 'client-node', 'dist', 'gen', 'models');
const modelCache = new Map<string, JsonModel | undefined>();

function readModel(name: string): JsonModel | undefined {
  if (modelCache.has(name)) return modelCache.get(name);
  let m: JsonModel | undefined;
  try {
    const text = readFileSync(join(MODELS, `${name}.d.ts`), 'utf8');
    m = { props: new Set(), required: new Set() };
    for (const [, prop = '', opt] of text.matchAll(/^ {4}'([^']+)'(\?)?:/gm)) {
      m.props.add(prop);
      if (!opt) m.required.add(prop);
    }
  } catch {
    m = undefined;
  }
  modelCache.set(name, m);
  return m;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function modelOf(full: string): JsonModel | undefined {
  const [name = '', version = '', group = ''] = full.split('.').reverse();
  return readModel(`${cap(group)}${cap(version)}${name}`) ?? readModel(`${cap(version)}${name}`);
}

const SCALARS: Record<number, string> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 8: 'bool', 9: 'string', 12: 'bytes', 13: 'uint32',
};

function shortName(full: string): string {
  return full.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '');
}

/** apiVersion of a proto package: `k8s.io.api.rbac.v1` → `rbac.authorization.k8s.io/v1`. */
function apiVersionOf(pkg: string): string {
  const [group = '', version = ''] = pkg.replace(/^k8s\.io\.api\./, '').split('.');
  const groups: Record<string, string> = {
    core: '', apps: 'apps', batch: 'batch', autoscaling: 'autoscaling', policy: 'policy',
    rbac: 'rbac.authorization.k8s.io',
  };
  const g = groups[group] ?? `${group}.k8s.io`;
  return g ? `${g}/${version}` : version;
}

export function generate(binary: Buffer, source: string): DescriptorData {
  const all = embeddedDescriptors(binary);
  const pkgOf = (full: string) => PACKAGES.find((p) => full.startsWith(`${p}.`));
  const wanted = [...all.values()].filter((m) => !m.mapEntry && pkgOf(m.fullName) &&
    m.fullName.split('.').length === pkgOf(m.fullName)!.split('.').length + 1);

  // Named slices of strings (ExtraValue): one repeated string field "items" and no JSON model.
  const stringLists = new Set(wanted.filter(({ fields: [only, ...more], fullName }) => !more.length && only?.name === 'items' &&
    only.label === 3 && only.type === 9 && !modelOf(fullName)).map((m) => m.fullName));

  const typeOf = (f: ProtoField): string => {
    if (f.type !== 11) {
      const s = SCALARS[f.type];
      if (!s) throw new Error(`unsupported proto type ${f.type} in ${f.name}`);
      return s;
    }
    const t = f.typeName!;
    if (SPECIAL[t]) return SPECIAL[t];
    if (stringLists.has(t)) return '@StringList';
    const entry = all.get(t);
    if (entry?.mapEntry) {
      const [k, v] = [entry.fields.find((x) => x.number === 1)!, entry.fields.find((x) => x.number === 2)!];
      return `map:${typeOf(k)}:${typeOf(v)}`;
    }
    if (!all.has(t)) throw new Error(`unknown message ${t}`);
    return shortName(t);
  };
  const isPlainMessage = (f: ProtoField) => f.type === 11 && f.label !== 3 && !typeOf(f).startsWith('@') && !typeOf(f).startsWith('map:');

  // Embedded structs the JSON form inlines: the field is not a property of the parent,
  // but the fields of its message are. Their fields take the parent's JSON model.
  const inline = new Set<string>();
  const modelFor = new Map<string, JsonModel | undefined>();
  for (const m of all.values()) {
    const model = modelOf(m.fullName);
    if (!model || !pkgOf(m.fullName)) continue;
    for (const f of m.fields) {
      if (model.props.has(f.name) || !isPlainMessage(f)) continue;
      const child = all.get(f.typeName!)!;
      if (child.fields.some((c) => model.props.has(c.name))) {
        inline.add(`${m.fullName}.${f.name}`);
        if (!modelOf(child.fullName)) modelFor.set(child.fullName, model);
      }
    }
  }

  const messages: Record<string, FieldTuple[]> = {};
  const queue = wanted.filter((m) => !/List$/.test(m.fullName) || !m.fields.some((f) => f.name === 'items'))
    .map((m) => m.fullName).filter((n) => !stringLists.has(n) && !SPECIAL[n]);
  const renamed: string[] = [];
  const unmatched: string[] = [];
  while (queue.length) {
    const full = queue.shift()!;
    const short = shortName(full);
    if (messages[short]) continue;
    const m = all.get(full)!;
    const model = modelFor.has(full) ? modelFor.get(full) : modelOf(full);
    const tuples: FieldTuple[] = [];
    for (const f of [...m.fields].sort((a, b) => a.number - b.number)) {
      const type = typeOf(f);
      let name = f.name;
      let flags = 0;
      if (inline.has(`${full}.${f.name}`)) flags |= FLAG_INLINE;
      else if (model && !model.props.has(name)) {
        const match = [...model.props].find((p) => p.toLowerCase() === name.toLowerCase());
        if (match) {
          renamed.push(`${short}.${name}→${match}`);
          name = match;
        } else {
          unmatched.push(`${short}.${name}`);
        }
      }
      if (f.label === 3) flags |= FLAG_REPEATED;
      if (f.type !== 11 && f.label !== 3 && (f.nullable || model?.required.has(name))) flags |= FLAG_KEEP_ZERO;
      const goName = f.customName ?? cap(f.name);
      const t: FieldTuple = [f.number, name, type, flags];
      if (goName !== cap(name)) t.push(goName);
      tuples.push(t);
      if (f.type === 11) {
        const entry = all.get(f.typeName!)!;
        const target = entry.mapEntry ? entry.fields.find((x) => x.number === 2)!.typeName : f.typeName;
        if (target && !SPECIAL[target] && !stringLists.has(target)) queue.push(target);
      }
    }
    if (!model) unmatched.push(`${short} (no JSON model)`);
    messages[short] = tuples;
  }

  const kinds: Record<string, string> = {};
  for (const m of wanted) {
    const short = shortName(m.fullName);
    const name = short.split('.').pop()!;
    const meta = m.fields.find((f) => f.name === 'metadata');
    if (!messages[short] || short.startsWith('meta.') || meta?.typeName !== 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta' ||
      /TemplateSpec$|^PersistentVolumeClaimTemplate$/.test(name)) continue;
    kinds[`${apiVersionOf(pkgOf(m.fullName)!)}|${name}`] = short;
  }
  kinds['*|DeleteOptions'] = 'meta.v1.DeleteOptions';

  console.error(`inline fields: ${[...inline].map(shortName).join(', ')}`);
  console.error(`renamed to their JSON names: ${renamed.join(', ') || '(none)'}`);
  console.error(`not in the JSON models: ${unmatched.join(', ') || '(none)'}`);
  console.error(`string lists: ${[...stringLists].join(', ')}`);
  console.error(`${Object.keys(messages).length} messages, ${Object.keys(kinds).length} kinds`);
  return { source, messages: Object.fromEntries(Object.entries(messages).sort(([a], [b]) => (a < b ? -1 : 1))), kinds };
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const kubectlDir = dirname(realpathSync(execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim()));
  const binary = process.argv[2] ?? join(kubectlDir, 'kubectl.1.32');
  const out = process.argv[3] ?? join(ROOT, 'src', 'protobuf', 'descriptors.json');
  const version = execFileSync(binary, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  const data = generate(readFileSync(binary),
    `generated.proto descriptors embedded in kubectl ${JSON.parse(version).clientVersion.gitVersion}`);
  const lines = Object.entries(data.messages).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  const kindLines = Object.entries(data.kinds).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  writeFileSync(out, `{\n  "source": ${JSON.stringify(data.source)},\n  "messages": {\n${lines.join(',\n')}\n  },\n  "kinds": {\n${kindLines.join(',\n')}\n  }\n}\n`);
  console.error(`wrote ${out}`);
}
