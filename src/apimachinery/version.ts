/** The Kubernetes release winkube emulates: what /version, nodes and system images report. */
export const EMULATED_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' };
