/**
 * How the dashboard writes times and durations. Pure: the clock is an argument. Times are shown in
 * UTC (the Worker does not know the viewer's zone), with a relative form where recency matters.
 */

/** `2026-12-01 02:13 UTC` for an ISO 8601 time; '—' for null. */
export function utcMinute(iso: string | null): string {
  if (iso === null) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `02:13:07` (UTC) for an ISO 8601 time: the recent-calls column. */
export function utcClock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : d.toISOString().slice(11, 19);
}

/** `just now`, `5 min ago`, `3 h ago`, `2 days ago` for a past ISO time at `nowMs`; `never` for null. */
export function ago(iso: string | null, nowMs: number): string {
  if (iso === null) return 'never';
  const seconds = Math.floor((nowMs - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(seconds)) return 'never';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86_400);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** `850 ms`, `1.2 s`, `31 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
