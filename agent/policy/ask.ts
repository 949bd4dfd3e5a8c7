/**
 * Asking the user about one call (README "Permissions", "Deciding from elsewhere"), for the
 * CallGuard: the prompt becomes a pending decision (decisions/book.ts), shown in the editor when
 * the editor is among `surfaces` and answerable on each other surface the book reaches (the relay's
 * Pending page), and the first answer from any of them is the user's. The editor's own answer
 * counts only if it claims the decision first; an answer from elsewhere takes the editor's prompt
 * down with a one-line notice saying who answered ("vimrelay: allowed on the dashboard").
 *
 * Contract: resolves with the answer and where it was given; `cancelled` when the call's signal
 * aborts for any reason but its deadline (call.ts isDeadline), `timeout` when `deadline` (epoch
 * ms) or the call's own deadline comes first. Rejects when the editor's prompt cannot be shown
 * and no other surface can answer (EditorGone when the editor went away: the call cannot run
 * there in any case). The decision leaves the book however it ends.
 */
import type { DecisionAnswer, Surface } from '../../protocol/index.ts';
import type { AssistantAsk, DecisionBook, Said } from '../decisions/book.ts';
import { DecidedElsewhere } from '../decisions/elsewhere.ts';
import { promptShown } from '../decisions/sections.ts';
import { EditorGone, isDeadline } from '../editors/call.ts';
import type { Editor } from '../editors/editor.ts';
import type { AskAnswer, AskRequest } from './types.ts';

/** One question to the user. */
export interface Asking {
  editor: Editor;
  request: AskRequest;
  /** Where it may be answered (the policy's ask_via, among the surfaces that reach the user now). */
  surfaces: readonly Surface[];
  book: DecisionBook;
  /** The call's signal: aborts at its deadline, or when it is cancelled. */
  callSignal: AbortSignal;
  /** When the question closes unanswered (epoch ms). */
  deadline: number;
  /** Told the decision's id once it is open, when the assistant's card is among `surfaces` (calls/card.ts). */
  onCard?: (decision: string) => void;
  /** Asks in the calling client's assistant too, when `surfaces` has it (CallControl.assistant). */
  assistant?: AssistantAsk;
}

/** The user's answer, and where they gave it (absent for timeout and cancelled). */
export interface Asked {
  answer: AskAnswer;
  by?: Surface;
}

/** Asks as the module header says. */
export async function askUser({ editor, request, surfaces, book, callSignal, deadline, assistant, onCard }: Asking): Promise<Asked> {
  const unanswered = (): Asked => ({ answer: callSignal.aborted && !isDeadline(callSignal.reason) ? { kind: 'cancelled' } : { kind: 'timeout' } });
  const left = deadline - Date.now();
  if (left <= 0 || callSignal.aborted) return unanswered();
  const ends = AbortSignal.any([callSignal, AbortSignal.timeout(Math.ceil(left))]);
  // Aborted when another surface answers first: the editor's prompt then closes, saying so.
  const elsewhere = new AbortController();
  let fromElsewhere!: (asked: Asked) => void;
  const answeredElsewhere = new Promise<Asked>((resolve) => (fromElsewhere = resolve));
  const shown = promptShown(request.preview, request.previewChars);
  const decision = book.open({
    kind: 'prompt',
    editor: editor.id,
    editorName: request.editor,
    client: request.client,
    tool: request.tool,
    klass: request.klass,
    paths: request.paths,
    sections: shown.sections,
    // Allow only where the whole preview can be shown, as in the editor.
    offers: shown.whole && request.preview !== null ? ['allow', 'deny'] : ['deny'],
    expiresAt: deadline,
    surfaces,
    ...(assistant ? { assistant } : {}),
    onAnswer: (answer: DecisionAnswer, by: Surface): Promise<Said> => {
      const asked: AskAnswer = answer.kind === 'allow' ? { kind: 'allow_once' } : { kind: 'deny', ...(answer.kind === 'deny' && answer.reason ? { reason: answer.reason } : {}) };
      const said: Said = asked.kind === 'allow_once' ? 'allowed' : 'denied';
      fromElsewhere({ answer: asked, by });
      elsewhere.abort(new DecidedElsewhere(by, said));
      return Promise.resolve(said);
    },
  });
  if (surfaces.includes('assistant')) onCard?.(decision.id);
  let onEnd = (): void => {};
  const ended = new Promise<Asked>((resolve) => {
    onEnd = () => resolve(unanswered());
    ends.addEventListener('abort', onEnd, { once: true });
  });
  try {
    const others = surfaces.some((s) => s !== 'editor');
    const inEditor: Promise<Asked> = surfaces.includes('editor')
      ? editor.ask(request, AbortSignal.any([ends, elsewhere.signal])).then(
          (answer) => {
            // Closed unanswered (the deadline, or another surface answered): whoever ended it answers.
            if (answer.kind === 'timeout' || answer.kind === 'cancelled') return new Promise<Asked>(() => undefined);
            return decision.claim('editor').won ? { answer, by: 'editor' } : answeredElsewhere;
          },
          (error: unknown) => {
            // The editor could not show it: the other surfaces may still answer, unless the editor went away.
            if (error instanceof EditorGone || !others) throw error;
            return new Promise<Asked>(() => undefined);
          },
        )
      : new Promise<Asked>(() => undefined);
    // Once the deadline has won the race, a late rejection of the prompt has no one to tell.
    inEditor.catch(() => undefined);
    return await Promise.race([inEditor, answeredElsewhere, ended]);
  } finally {
    ends.removeEventListener('abort', onEnd);
    decision.close();
  }
}
