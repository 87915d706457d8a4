/** The scheduler's volume plugins read a pod's claims as the controllers do. */
export { podClaimNames } from '../../meta/pod-volumes.js';
