/**
 * Name and label rules from k8s.io/apimachinery/pkg/util/validation, with
 * upstream's messages.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const reLabel = new RegExp(`^${DNS1123_LABEL}$`);
const reSubdomain = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const reQualified = new RegExp(`^${QUALIFIED_NAME}$`);
const reLabelValue = new RegExp(`^${LABEL_VALUE}$`);

/** validation.RegexError: a message with examples and the regex it checks. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let s = msg + ' (';
  if (examples.length) {
    s += 'e.g. ' + examples.map((e) => `'${e}'`).join(',  or ') + ', ';
  }
  return s + `regex used for validation is '${fmt}')`;
}

const maxLen = (n: number) => `must be no more than ${n} characters`;

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLen(63));
  if (!reLabel.test(v)) {
    errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
      DNS1123_LABEL, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLen(253));
  if (!reSubdomain.test(v)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
      DNS1123_SUBDOMAIN, 'example.com'));
  }
  return errs;
}

export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  const [first = '', second = ''] = parts;
  let name: string;
  if (parts.length === 1) name = first;
  else if (parts.length === 2) {
    const prefix = first;
    name = second;
    if (prefix.length === 0) errs.push('prefix part ' + 'must be non-empty');
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    return [regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      QUALIFIED_NAME, 'MyName', 'my.name', '123-abc') + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  if (name.length === 0) errs.push('name part ' + 'must be non-empty');
  else if (name.length > 63) errs.push('name part ' + maxLen(63));
  if (!reQualified.test(name)) {
    errs.push('name part ' + regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      QUALIFIED_NAME, 'MyName', 'my.name', '123-abc'));
  }
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLen(63));
  if (!reLabelValue.test(v)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      LABEL_VALUE, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** The label selector parser's key check, as the error text it raises. */
export function validateLabelKeyMessage(key: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}` : undefined;
}

export function validateLabelValueMessage(key: string, value: string): string | undefined {
  const errs = isValidLabelValue(value);
  return errs.length ? `[${key}]: Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}` : undefined;
}

/** ValidateLabels: every key a qualified name, every value a label value. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(field.invalid(path, k, m));
    for (const m of isValidLabelValue(v)) errs.push(field.invalid(`${path}`, v, m));
  }
  return errs;
}
