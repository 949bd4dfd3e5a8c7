/**
 * The start-by time of the exec and terminal tools: the unix second after which the editor must
 * not start the call (core.lua `M.check_start_by`). A call held up past the call deadline (the
 * editor busy, or at a prompt) has been answered TIMEOUT; running it later would act behind the
 * caller's back.
 */
import { LIMITS } from '../../../../protocol/index.ts';

/** `now` plus the call deadline, in whole unix seconds, rounded up. */
export function startBy(now: number = Date.now()): number {
  return Math.ceil((now + LIMITS.callDeadlineMs) / 1000);
}
