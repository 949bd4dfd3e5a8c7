/**
 * What a pending decision shows on a surface other than the editor (protocol/decisions.ts
 * `DecisionSection`): a prompt's preview, or the unified diff of each file a review changes,
 * every line as the editor shows it (protocol/visible.ts). Pure. Nothing is cut: a decision whose
 * text is longer than DECISION_LIMITS.maxShownChars is shown without it, and `whole` is false, so
 * that its owner offers only deny (reject) there, as a prompt does for a preview too long to show.
 */
import { DECISION_LIMITS, visible, type DecisionSection } from '../../protocol/index.ts';
import { unifiedDiff } from '../reviews/diff.ts';

/** A decision's sections, and whether they show all of it. */
export interface Shown {
  sections: DecisionSection[];
  whole: boolean;
}

/** `texts` (a title and the lines of each section) shown whole, or without their lines past the cap. */
function shown(texts: readonly { title: string | null; lines: readonly string[] | null }[]): Shown {
  const sections = texts.map(({ title, lines }) => {
    const seen = lines?.map(visible) ?? null;
    return { title: title === null ? null : visible(title), lines: seen, chars: seen?.reduce((n, l) => n + l.length, 0) ?? 0 };
  });
  const whole = texts.every((t) => t.lines !== null) && sections.reduce((n, s) => n + s.chars, 0) <= DECISION_LIMITS.maxShownChars;
  return { sections: whole ? sections : sections.map((s) => ({ ...s, lines: null })), whole };
}

/** A prompt's preview (null when the prompt itself could not show it, `chars` long). */
export function promptShown(preview: string | null, chars: number): Shown {
  const out = shown([{ title: null, lines: preview === null ? null : preview.split('\n') }]);
  return preview === null ? { ...out, sections: out.sections.map((s) => ({ ...s, chars })) } : out;
}

/** A review's files, each as the diff from the buffer as it is to the proposal. */
export function reviewShown(files: readonly { path: string | null; buf: number; base: readonly string[]; proposed: readonly string[] }[]): Shown {
  return shown(
    files.map((f) => {
      const name = f.path ?? `buffer ${f.buf}`;
      return { title: name, lines: unifiedDiff(f.base, f.proposed, name, `${name} (proposed)`).replace(/\n$/, '').split('\n') };
    }),
  );
}
