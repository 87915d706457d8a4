import type { ResourceDef } from '../types.js';
import { selfSubjectReviewsV1, selfSubjectReviewsV1beta1, tokenReviews } from './authentication.js';
import { localSubjectAccessReviews, selfSubjectAccessReviews, selfSubjectRulesReviews, subjectAccessReviews } from './authorization.js';

/** authentication.k8s.io and authorization.k8s.io: review resources answered on create. */
export const reviewResources: ResourceDef[] = [
  selfSubjectReviewsV1, tokenReviews, selfSubjectReviewsV1beta1,
  localSubjectAccessReviews, selfSubjectAccessReviews, selfSubjectRulesReviews, subjectAccessReviews,
];
