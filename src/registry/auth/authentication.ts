import type { ResourceDef } from '../types.js';
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import { answer, reviewDef } from './reviews.js';
import { TOKEN_ISSUER } from '../../pki/service-account-tokens.js';

function userInfo(user: { name: string; groups: string[]; uid?: string } | undefined): Record<string, unknown> {
  const info: Record<string, unknown> = { username: user?.name ?? 'system:anonymous' };
  if (user?.uid) info.uid = user.uid;
  info.groups = user?.groups ?? ['system:unauthenticated'];
  return info;
}

/** `kubectl auth whoami`: the requesting user as the server sees it (v1, and v1beta1 for kubectl 1.27). */
const selfSubjectReview = (version: string): ResourceDef =>
  reviewDef('authentication.k8s.io', version, 'selfsubjectreviews', 'SelfSubjectReview', false,
    (obj, ctx) => answer(obj, { userInfo: userInfo(ctx.user) }));

export const selfSubjectReviewsV1 = selfSubjectReview('v1');
export const selfSubjectReviewsV1beta1 = selfSubjectReview('v1beta1');

/** TokenReview: whether a bearer token authenticates, and as whom. */
export const tokenReviews: ResourceDef<TokenReview> = reviewDef<TokenReview>('authentication.k8s.io', 'v1', 'tokenreviews', 'TokenReview', false,
  async (obj, _ctx, auth) => {
    // spec.audiences default to the API server's own (--api-audiences).
    const audiences: string[] = obj.spec?.audiences?.length ? obj.spec.audiences : [TOKEN_ISSUER];
    const result = await auth.authenticateToken(String(obj.spec?.token ?? ''), audiences);
    if (!result.ok) return answer(obj, { user: {}, error: result.error });
    return answer(obj, { authenticated: true, user: userInfo(result.user), audiences: result.audiences });
  });
