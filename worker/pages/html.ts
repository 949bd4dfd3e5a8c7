/**
 * HTML built from templates whose interpolations are escaped by default: every value that reaches
 * a page (client names from dynamic registration, device names, hostnames, error text) is
 * attacker-chosen until proven otherwise. Only `Html` values pass through unescaped, and only this
 * module makes them. Escapes for both text and quoted attribute values (HTML Living Standard
 * §13.1.2.3 / §13.1.4): `&`, `<`, `>`, `"`, `'`.
 */

const SAFE: unique symbol = Symbol('vimrelay.html');

/** Markup that is already safe to emit as is. */
export interface Html {
  readonly [SAFE]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `value` as text that cannot open a tag or leave a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** A value a template may take: escaped unless it is `Html`; lists are joined; null/undefined/false render nothing. */
export type Interpolation = string | number | Html | null | undefined | false | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  if (typeof value === 'object') return (value as Html)[SAFE];
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return { [SAFE]: out };
}

/** Markup written in this codebase (a stylesheet, say), never data: passes through unescaped. */
export function trusted(markup: string): Html {
  return { [SAFE]: markup };
}

/** The markup text of `h`. */
export function toString(h: Html): string {
  return h[SAFE];
}
