/** Every check, in the order the report lists findings of equal severity. */
import type { Check } from '../types.js';
import { windowsNodeNotReady } from './windows-node-not-ready.js';
import { kubeletVersionSkew } from './kubelet-version-skew.js';
import { podSandboxFailed } from './pod-sandbox-failed.js';
import { windowsImageBuildMismatch } from './windows-image-build-mismatch.js';
import { imageOSMismatch } from './image-os-mismatch.js';
import { windowsNetworkDaemonSetUnhealthy } from './windows-network-daemonset-unhealthy.js';
import { windowsNetworkDaemonSetMissing } from './windows-network-daemonset-missing.js';
import { pauseImageWithoutWincat } from './pause-image-without-wincat.js';
import { podWithoutOSSelector } from './pod-without-os-selector.js';
import { windowsNodeUntainted } from './windows-node-untainted.js';
import { windowsDNSPolicy } from './windows-dns-policy.js';
import { windowsNodePortFromNode } from './windows-nodeport-from-node.js';
import { windowsPodsICMP } from './windows-pods-icmp.js';

export const CHECKS: readonly Check[] = [
  windowsNodeNotReady, kubeletVersionSkew, podSandboxFailed, windowsImageBuildMismatch, imageOSMismatch,
  windowsNetworkDaemonSetUnhealthy, windowsNetworkDaemonSetMissing, pauseImageWithoutWincat, podWithoutOSSelector,
  windowsNodeUntainted, windowsDNSPolicy, windowsNodePortFromNode, windowsPodsICMP,
];
