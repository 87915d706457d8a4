import type { ResourceDef } from '../types.js';
import { answer, reviewDef } from './reviews.js';

/** Every authenticated request is allowed: there is no RBAC in this server. */
const allowed = () => ({ allowed: true });

export const selfSubjectAccessReviews: ResourceDef =
  reviewDef('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, (obj) => answer(obj, allowed()));

export const subjectAccessReviews: ResourceDef =
  reviewDef('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview', false, (obj) => answer(obj, allowed()));

export const localSubjectAccessReviews: ResourceDef =
  reviewDef('authorization.k8s.io', 'v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true, (obj) => answer(obj, allowed()));

/** `kubectl auth can-i --list`: the rules an always-allow authorizer reports. */
export const selfSubjectRulesReviews: ResourceDef =
  reviewDef('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, (obj) => answer(obj, {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }));
