/**
 * k8s.io/apiserver/pkg/storage/value: a transformer turns a stored value into
 * what the registry reads and back. Values are byte strings here (one char per
 * byte, latin1), since the storage contract carries strings and ciphertext is
 * bytes; the registry's JSON is UTF-8 encoded into them first.
 */

/** What a read found: the plain value, and whether it should be rewritten with the writing transformer. */
export interface TransformedValue {
  value: Buffer;
  /** Read with a transformer other than the first (a key or provider being rotated away from). */
  stale: boolean;
}

export interface ValueTransformer {
  /** `authenticatedData`: the storage key, which AES-GCM binds the ciphertext to. */
  fromStorage(data: Buffer, authenticatedData: Buffer): TransformedValue;
  toStorage(data: Buffer, authenticatedData: Buffer): Buffer;
}

/** A transformer chosen by the prefix a stored value starts with (value.PrefixTransformer). */
export interface PrefixTransformer {
  prefix: Buffer;
  transformer: ValueTransformer;
}

/**
 * value.NewPrefixTransformers: the first writes (its prefix, then its output);
 * a read tries each whose prefix matches, in order, and is stale unless the
 * first one read it. An empty prefix (identity) that fails gives way to the next.
 */
export class PrefixTransformers implements ValueTransformer {
  constructor(private readonly transformers: readonly PrefixTransformer[], private readonly noMatch: string) {}

  fromStorage(data: Buffer, authenticatedData: Buffer): TransformedValue {
    const errs: string[] = [];
    for (const [i, t] of this.transformers.entries()) {
      if (!startsWith(data, t.prefix)) continue;
      let out: TransformedValue;
      try {
        out = t.transformer.fromStorage(data.subarray(t.prefix.length), authenticatedData);
      } catch (e) {
        if (t.prefix.length) errs.push((e as Error).message);
        continue;
      }
      return { value: out.value, stale: out.stale || i !== 0 };
    }
    // utilerrors.NewAggregate: one message bare, several in brackets.
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    throw new Error(this.noMatch);
  }

  toStorage(data: Buffer, authenticatedData: Buffer): Buffer {
    const first = this.transformers[0]!;
    return Buffer.concat([first.prefix, first.transformer.toStorage(data, authenticatedData)]);
  }
}

function startsWith(data: Buffer, prefix: Buffer): boolean {
  return data.length >= prefix.length && data.subarray(0, prefix.length).equals(prefix);
}
