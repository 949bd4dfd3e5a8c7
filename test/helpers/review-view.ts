/**
 * What the tests see of reviews (README "Reviews"): the reviews an editor holds, as it reports them
 * (lua/review.lua 'state', vimrelay#review#state()), and waiting for one to come to the front.
 */
import { REVIEW_LUA } from '../../agent/editors/nvim/lua.ts';
import type { Driver } from './editors.ts';
import { waitFor } from './wait.ts';

/** A review as its editor reports it. */
export interface ReviewState {
  id: string;
  shown: boolean;
  decided: boolean;
  expired: boolean;
}

/** The reviews `d` holds. */
export function reviewStates(d: Pick<Driver, 'kind' | 'expr'>): Promise<ReviewState[]> {
  if (d.kind === 'nvim') return d.expr<ReviewState[]>(`luaeval('loadstring(_A)("state", 0, "", {})', ${JSON.stringify(REVIEW_LUA)})`);
  return d.expr<ReviewState[]>('vimrelay#review#state()');
}

/** Waits until review `id` (default: the only one) is at the front, and returns it. */
export function reviewShown(d: Pick<Driver, 'kind' | 'expr'>, id?: string): Promise<ReviewState> {
  return waitFor(async () => {
    const states = await reviewStates(d);
    const review = id === undefined ? (states.length === 1 ? states[0] : undefined) : states.find((s) => s.id === id);
    return review?.shown ? review : undefined;
  }, 15_000, 'the review to come to the front');
}

/** The number of the proposal buffer of review `id`. */
export function proposalBuffer(d: Pick<Driver, 'expr'>, id: string): Promise<number> {
  return d.expr<number>(`bufnr('vimrelay://review/${id}')`);
}
