/**
 * WK100 and WK122: what a v1.32 API server answers the template with. The
 * validation (src/validation, pkg/apis/core/validation ValidatePodTemplateSpec
 * and ValidatePodSpec) runs on the defaulted template as the server runs it;
 * the warnings are the server's (pkg/api/pod/warnings.go GetWarningsForPodTemplate).
 */
import { formatFieldErrors } from '../../apimachinery/field-errors.js';
import { validatePodTemplateSpec } from '../../validation/pod-spec.js';
import { podCreateWarnings, podTemplateWarnings } from '../../validation/pod-warnings.js';
import { defaultedTemplate } from '../schedule.js';
import type { Rule } from '../types.js';
import { onTemplates } from './template-rule.js';

/** Owned by WK119, which reports it for every kind (StatefulSet templates included). */
const HOST_PROCESS_HOST_NETWORK = 'hostNetwork must be true if pod contains any hostProcess containers';

export const apiValidation: Rule = {
  id: 'WK100', severity: 'error',
  title: 'the API server (v1.32) refuses the pod template',
  help: 'The errors a v1.32 kube-apiserver returns for this pod template (ValidatePodTemplateSpec, pkg/apis/core/validation), quoted as it prints them. '
    + 'StatefulSet templates are not checked: v1.32 validates only their labels and annotations (the spec since v1.34, kubernetes/kubernetes#131790).',
  check: onTemplates((t) => {
    if (t.kind === 'StatefulSet') return [];
    const base = t.specPath.replace(/\.?spec$/, '');
    const errs = validatePodTemplateSpec(defaultedTemplate(t), base).filter((e) => e.detail !== HOST_PROCESS_HOST_NETWORK);
    return errs.map((e) => ({
      path: e.field,
      message: formatFieldErrors([e]),
      fix: 'change the field as the message says; the server would reject the whole object',
    }));
  }),
};

export const apiWarnings: Rule = {
  id: 'WK122', severity: 'warning',
  title: 'the API server (v1.32) warns about the pod template',
  help: 'The warnings a v1.32 kube-apiserver returns with the object (pkg/api/pod/warnings.go), e.g. deprecated node labels such as beta.kubernetes.io/os.',
  check: onTemplates((t, _target, m) => {
    const base = t.specPath.replace(/\.?spec$/, '');
    const warnings = t.kind === 'Pod' ? podCreateWarnings(m.obj) : podTemplateWarnings({ metadata: t.meta, spec: t.spec }, base);
    return warnings.map((w) => {
      const colon = w.indexOf(': ');
      return { path: colon > 0 ? w.slice(0, colon) : t.specPath, message: w, fix: 'follow the warning: the field is deprecated or has no effect' };
    });
  }),
};
