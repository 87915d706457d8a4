/**
 * framework.Status as the scheduler's plugins return it (pkg/scheduler/framework
 * /interface.go): a code and the reasons a user reads in FailedScheduling.
 */
export enum Code {
  Success = 0,
  Error = 1,
  /** The node does not fit now; preemption may help. */
  Unschedulable = 2,
  /** The node does not fit, and preemption cannot change that. */
  UnschedulableAndUnresolvable = 3,
  /** The plugin has nothing to do for this pod (PreFilter/PreScore). */
  Skip = 5,
}

export interface Status { code: Code; reasons: string[]; plugin?: string }

export const SUCCESS: Status = Object.freeze({ code: Code.Success, reasons: [] }) as Status;
export const SKIP: Status = Object.freeze({ code: Code.Skip, reasons: [] }) as Status;

export function unschedulable(...reasons: string[]): Status { return { code: Code.Unschedulable, reasons }; }
export function unresolvable(...reasons: string[]): Status { return { code: Code.UnschedulableAndUnresolvable, reasons }; }
export function isRejected(s: Status): boolean {
  return s.code === Code.Unschedulable || s.code === Code.UnschedulableAndUnresolvable;
}
/** Status.Message(): the reasons joined as upstream joins them. */
export function message(s: Status): string { return s.reasons.join(', '); }
