import type { StatusCause } from 'kubernetes-types/meta/v1.js';

/** The field error types of apimachinery's validation/field package. */
export type FieldErrorType =
  | 'FieldValueNotFound' | 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueInvalid'
  | 'FieldValueNotSupported' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany'
  | 'InternalError' | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** A sentinel: the error message carries no value. */
export const OMIT = Symbol('omit');

/**
 * A bad value given in Go's formatting: strings are quoted (%q), numbers and
 * booleans bare (%v), anything else is written as Go's %#v would (`goSyntax`).
 */
export type BadValue = string | number | boolean | null | typeof OMIT | { goSyntax: string };

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: BadValue;
  detail?: string;
}

/** strconv.Quote (%q): Go's escapes (\a, \x7f, ...) rather than JSON's. */
export { goQuote } from './go-quote.js';
import { goQuote } from './go-quote.js';

/** field.Error.ErrorBody(): the message without the field path. */
export function errorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  const plain = e.type === 'FieldValueRequired' || e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' || e.type === 'InternalError' || e.value === undefined || e.value === OMIT;
  if (!plain) {
    const v = e.value as Exclude<BadValue, typeof OMIT>;
    if (v === null) s += ': "null"';
    else if (typeof v === 'string') s += `: ${goQuote(v)}`;
    else if (typeof v === 'object') s += `: ${v.goSyntax}`;
    else s += `: ${v}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function causeOf(e: FieldError): StatusCause {
  return { reason: e.type, message: errorBody(e), field: e.field };
}

/** utilerrors.NewAggregate(errs).Error(): one message bare, several in brackets. */
export function formatFieldErrors(errs: FieldError[]): string {
  const msgs: string[] = [];
  for (const e of errs) {
    const m = `${e.field}: ${errorBody(e)}`;
    if (!msgs.includes(m)) msgs.push(m);
  }
  const [only] = msgs;
  return only !== undefined && msgs.length === 1 ? only : `[${msgs.join(', ')}]`;
}

export const field = {
  required: (f: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: f, detail }),
  invalid: (f: string, value: BadValue, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field: f, value, detail }),
  forbidden: (f: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: f, detail }),
  duplicate: (f: string, value: BadValue): FieldError => ({ type: 'FieldValueDuplicate', field: f, value }),
  notSupported: (f: string, value: BadValue, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported', field: f, value,
    detail: supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
  }),
  tooLong: (f: string, max: number): FieldError => ({
    type: 'FieldValueTooLong', field: f, detail: `may not be more than ${max} bytes`,
  }),
};
