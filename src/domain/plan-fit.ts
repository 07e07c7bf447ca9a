import type { CheckIssue } from './issues.ts';
import type { LoadMode } from './load-mode.ts';
import type { Plan } from './plans.ts';

// Whether the account's plan lets the engine check an active monitor at all.
// An operator can move an account to a plan without monitoring (no Pro
// access) or without checks of the monitor's load mode; its monitors then stop
// being checked, and this issue says why wherever the monitor is shown.

export function planStopIssue(plan: Plan, monitor: { status: string; load_mode: LoadMode }): CheckIssue | null {
  if (monitor.status !== 'active') return null;
  if (!plan.api_access) {
    return {
      target_id: null,
      code: 'not_in_plan',
      message: "not checked: the account's plan does not include monitoring (Pro access); checks resume when the account has it again",
    };
  }
  if (plan.checks_per_month[monitor.load_mode] === 0) {
    return {
      target_id: null,
      code: 'not_in_plan',
      message: `not checked: the account's plan includes no ${monitor.load_mode} checks; change the monitor's load mode, or the account's plan`,
    };
  }
  return null;
}

export interface PlanFitMonitor {
  id: string;
  url: string;
  name: string | null;
  status: string;
  load_mode: LoadMode;
}

export interface StoppedMonitor {
  id: string;
  url: string;
  name: string | null;
  /** why it is not checked, and what to do (the not_in_plan issue's message) */
  reason: string;
}

/** The monitors a move from one plan to another stops: checked under the old plan, not under the new one. */
export function monitorsStoppedByMove(from: Plan, to: Plan, monitors: PlanFitMonitor[]): StoppedMonitor[] {
  return monitors.flatMap((m) => {
    const issue = planStopIssue(to, m);
    if (issue === null || planStopIssue(from, m) !== null) return [];
    return [{ id: m.id, url: m.url, name: m.name, reason: issue.message }];
  });
}
