/** ValidatingAdmissionPolicies and their bindings: printValidatingAdmissionPolicy, printValidatingAdmissionPolicyBinding. */
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from 'kubernetes-types/admissionregistration/v1.js';
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';
import { labelSelectorString } from '../../validation/common.js';

export const validatingAdmissionPolicyPrinter: Printer = {
  columns: [
    nameColumn,
    column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    ageColumn,
  ],
  cells(obj: ValidatingAdmissionPolicy, now: number): unknown[] {
    const pk = obj.spec?.paramKind;
    return [nameOf(obj), (obj.spec?.validations ?? []).length, pk ? `${pk.apiVersion ?? ''}/${pk.kind ?? ''}` : '<unset>', ageOf(obj, now)];
  },
};

export const validatingAdmissionPolicyBindingPrinter: Printer = {
  columns: [
    nameColumn,
    column('PolicyName', 'string', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', 'ParamRef indicates the param resource which sets the configration param'),
    ageColumn,
  ],
  cells(obj: ValidatingAdmissionPolicyBinding, now: number): unknown[] {
    const pr = obj.spec?.paramRef;
    let param = '<unset>';
    if (pr?.name) param = pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
    else if (pr?.selector) param = (labelSelectorString(pr.selector) as { goSyntax: string }).goSyntax;
    return [nameOf(obj), obj.spec?.policyName ?? '', param, ageOf(obj, now)];
  },
};
