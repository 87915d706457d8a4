/** Every rule, in id order. */
import type { Rule } from '../types.js';
import { apiValidation, apiWarnings } from './api-validation.js';
import { buildMismatch, linuxImageOnWindows, linuxOnWindowsNodes, windowsImageOnLinux, windowsUnpinned, wouldNotSchedule } from './os-placement.js';
import {
  gmsaWithoutWebhook, hostNetworkOnWindows, hostProcessWithoutHostNetwork, privilegedOnWindows, readOnlyRootOnWindows,
  runAsUserNameConvention, runAsUserOnWindows,
} from './windows-security.js';
import { gracePeriodOnDocker, hostNetDnsOnWindows, memoryEmptyDirOnWindows, memoryRequestWithoutLimit, subPathOnDockerWindows } from './windows-runtime.js';
import { ipv6OnOverlay, localPolicyWithoutDSR, tooManyWindowsBackends } from './windows-services.js';

export const RULES: readonly Rule[] = [
  apiValidation, windowsUnpinned, linuxOnWindowsNodes, linuxImageOnWindows, windowsImageOnLinux, buildMismatch,
  hostNetworkOnWindows, privilegedOnWindows, runAsUserOnWindows, readOnlyRootOnWindows, subPathOnDockerWindows,
  memoryEmptyDirOnWindows, gracePeriodOnDocker, hostNetDnsOnWindows, ipv6OnOverlay, localPolicyWithoutDSR,
  tooManyWindowsBackends, memoryRequestWithoutLimit, runAsUserNameConvention, hostProcessWithoutHostNetwork,
  gmsaWithoutWebhook, wouldNotSchedule, apiWarnings,
].sort((a, b) => (a.id < b.id ? -1 : 1));

/** Not a rule over objects: a document that does not parse. Listed so that reports can describe it. */
export const PARSE_ERROR: Omit<Rule, 'check'> = {
  id: 'WK000', severity: 'error',
  title: 'the manifest does not parse',
  help: 'The document is not valid YAML or JSON, or is not an object; nothing in it was checked.',
};
