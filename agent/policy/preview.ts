/**
 * What a call would do, in words a person can judge at a prompt (issue 6: "a preview: the command
 * text for exec, the diff or replaced text for writes, the path for save and open").
 *
 * Contract: pure. Takes a tool name and its arguments (already validated against the tool's input
 * schema) and returns plain text, capped at PREVIEW_LIMITS: whole lines are dropped from the end
 * with a last line "… (N more lines)", and an over-long line is cut with "…". It reads no
 * editor, so a preview shows what the model sent (commands, keys, new text), never a file's
 * content.
 */

/** Caps of a preview. */
export const PREVIEW_LIMITS = {
  /** Lines shown; the rest are counted on a last line. */
  maxLines: 20,
  /** Characters shown in all, line breaks included. */
  maxChars: 2_000,
  /** Characters of one line. */
  lineChars: 200,
} as const;

type Args = Readonly<Record<string, unknown>>;

/** A buffer argument as a person reads it: the path, `buffer 3`, or `the current buffer`. */
function bufferName(ref: unknown): string {
  if (typeof ref === 'number') return `buffer ${ref}`;
  if (typeof ref === 'string') return ref;
  return 'the current buffer';
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `prefix` before each line of `body` (a trailing newline ends the last line, it adds none). */
function prefixed(prefix: string, body: string): string[] {
  return body.replace(/\n$/, '').split('\n').map((l) => prefix + l);
}

function lineCount(body: string): number {
  return body === '' ? 0 : body.replace(/\n$/, '').split('\n').length;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The uncapped preview lines of one call. */
function describe(tool: string, args: Args): string[] {
  switch (tool) {
    case 'run_command': {
      const commands = Array.isArray(args.commands) ? args.commands : [args.commands];
      return commands.map((c) => `:${text(c)}`).flatMap((c) => c.split('\n'));
    }
    case 'send_keys':
      return [`keys: ${text(args.keys)}`];
    case 'send_to_terminal': {
      const target = args.terminal === undefined ? 'the current (or only) terminal' : `terminal ${String(args.terminal)}`;
      return [`to ${target}${args.submit === true ? ', then Enter' : ''}:`, ...prefixed('  ', text(args.text))];
    }
    case 'find_and_replace':
      return [`in ${bufferName(args.buffer)}:`, ...prefixed('- ', text(args.old_text)), ...prefixed('+ ', text(args.new_text))];
    case 'apply_diff':
      return [`in ${bufferName(args.buffer)}:`, ...text(args.diff).replace(/\n$/, '').split('\n')];
    case 'write_buffer': {
      const body = text(args.text);
      return [`replace all of ${bufferName(args.buffer)} with ${plural(lineCount(body), 'line')}:`, ...prefixed('  ', body)];
    }
    case 'substitute': {
      const start = typeof args.start_line === 'number' ? args.start_line : 1;
      const range = typeof args.end_line === 'number' ? `${start},${args.end_line}` : `${start},$`;
      return [`in ${bufferName(args.buffer)}:`, `:${range}s/${text(args.pattern)}/${text(args.replacement)}/${text(args.flags)}`];
    }
    case 'undo':
    case 'redo': {
      const steps = typeof args.steps === 'number' ? args.steps : 1;
      return [`${tool} ${plural(steps, 'step')} in ${bufferName(args.buffer)}`];
    }
    case 'set_cursor': {
      const where = `line ${String(args.line)}${typeof args.col === 'number' ? `, column ${args.col}` : ''}`;
      const buffer = args.buffer === undefined ? '' : ` of ${bufferName(args.buffer)}`;
      const win = typeof args.window === 'number' ? `window ${args.window}` : 'the current window';
      return [`move the cursor of ${win} to ${where}${buffer}`];
    }
    case 'highlight_range': {
      const pos = (p: unknown): string => {
        const { line, col } = (p ?? {}) as { line?: unknown; col?: unknown };
        return `${String(line)}:${String(col)}`;
      };
      return [`highlight ${pos(args.start)}-${pos(args.end)} of ${bufferName(args.buffer)}`];
    }
    case 'add_virtual_text':
      return [`a note on line ${String(args.line)} of ${bufferName(args.buffer)}:`, ...prefixed('  ', text(args.text))];
    case 'clear_decorations':
      return [args.all_buffers === true ? 'clear every vimrelay decoration in every buffer' : `clear vimrelay decorations of ${bufferName(args.buffer)}`];
    case 'save_buffer':
      return [`save ${bufferName(args.buffer)}`];
    case 'open_file':
      return [`open ${text(args.path)}${args.show === true ? ' and show it' : ''}`];
    default:
      return [`${tool} ${JSON.stringify({ ...args, editor: undefined })}`];
  }
}

/** `line` cut to PREVIEW_LIMITS.lineChars characters (code points), marked with "…". */
function cutLine(line: string): string {
  const chars = [...line];
  return chars.length <= PREVIEW_LIMITS.lineChars ? line : `${chars.slice(0, PREVIEW_LIMITS.lineChars - 1).join('')}…`;
}

/**
 * What `tool` with `args` would do, for a person at a prompt: exec shows the commands or keys,
 * terminal the text and its target, writes the replaced and new text or the diff, save the buffer,
 * open the path. At most PREVIEW_LIMITS.maxLines lines and maxChars characters.
 */
export function previewOf(tool: string, args: Args): string {
  const lines = describe(tool, args).map(cutLine);
  const kept: string[] = [];
  let chars = 0;
  for (const [i, line] of lines.entries()) {
    const left = lines.length - i;
    // Room for the line, and for the "more lines" note when it is not the last one.
    const note = left > 1 ? `… (${left} more lines)`.length + 1 : 0;
    if (kept.length === PREVIEW_LIMITS.maxLines - (left > 1 ? 1 : 0) || chars + line.length + 1 + note > PREVIEW_LIMITS.maxChars) {
      kept.push(`… (${left} more ${left === 1 ? 'line' : 'lines'})`);
      break;
    }
    kept.push(line);
    chars += line.length + 1;
  }
  return kept.join('\n');
}
