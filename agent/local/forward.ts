/**
 * How `vimrelay serve` answers a validated tools/call with no relay: the `forward` of the shared
 * MCP server (protocol/mcp-server.ts). The call is routed by the same step as the relay's Hub
 * (protocol/routing.ts `routeCall`), over this machine's editors with the ids the relay would give
 * (`<device>/<local id>`, the local id accepted too) and this agent as the one device; list_editors
 * is answered there, and a call for an editor or for the agent runs in the agent's Dispatcher,
 * which validates again and enforces the deadline. A call waits for the editor source's first
 * discovery pass (`EditorSource.ready`), so that the first list_editors of a fresh `vimrelay
 * serve` shows the editors already running; it can be cancelled meanwhile, by its signal or its key. With no editor, the answer says how to start one for
 * local mode (no relay, no `vimrelay agent`). A local client is the user at this machine (stdio:
 * a process the user started; HTTP: a holder of the local token), so it holds every scope.
 */
import { userInfo } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ALL_SCOPES, fail, LIMITS, onlineEditor, routeCall, type AssistantChannel, type InputRequiredOutcome, type OnlineEditor, type ToolOutcome } from '../../protocol/index.ts';
import type { McpToolCall } from '../../protocol/mcp-server.ts';
import { Dispatcher } from '../calls/dispatcher.ts';
import type { AssistantAsk } from '../decisions/book.ts';
import { askByRequest } from '../decisions/elicit.ts';
import { callBinding, ElicitRounds } from '../decisions/elicit-rounds.ts';
import type { EditorSource } from '../editors/editor.ts';
import type { CallGuard } from '../policy/enforce.ts';

/** NO_EDITOR as local mode says it: this machine's editors are the only ones. */
const NO_LOCAL_EDITOR = fail('NO_EDITOR', 'No editor is running on this machine that vimrelay can reach.', {
  hint:
    'Ask the user to start Neovim (found by its server socket, as `nvim` creates one) or Vim with the vimrelay plugin ' +
    '(`:VimRelayConnect`), then call list_editors. A Neovim started with a socket elsewhere can be attached with connect_editor.',
});

export interface LocalForwarderOptions {
  editors: EditorSource;
  /** The user's policy and the audit log: local calls are held to them as relayed ones are. */
  guard: CallGuard;
  /** The device part of editor ids (the relay uses the enrolled name, local mode the hostname), and this agent's device name. */
  device: string;
  /** Who is calling, for the agent's prompts and audit log, e.g. `local:stdio` (beside the name the client gives itself, RunControl.clientName). */
  client: string;
  /** Deadline of one call (ms). Default LIMITS.callDeadlineMs, as through the relay. */
  deadlineMs?: number;
}

/** How one call may be stopped: `signal` aborts it; `key` lets `cancel(key)` abort it later. */
export interface RunControl {
  readonly signal: AbortSignal;
  /**
   * What a legacy-era `notifications/cancelled` names on stateless HTTP: the JSON-RPC request id.
   * Every HTTP client holds the one local token, so two may use the same id (see `cancel`).
   */
  readonly key?: string;
  /** The name the client gives itself (McpCallRequest.clientName), for prompts and the audit log. */
  readonly clientName?: string;
  /** The client renders the decision card (McpCallRequest.ui). */
  readonly ui?: boolean;
  /** Asks the client's user about what the call opens (CallControl.assistant). */
  readonly ask?: AssistantAsk;
}

export class LocalForwarder {
  readonly #opts: LocalForwarderOptions;
  readonly #dispatcher: Dispatcher;
  /** Calls in flight by client key. A key may repeat across clients (see `cancel`). */
  readonly #byKey = new Map<string, Set<AbortController>>();
  /** Whether the editor source's first discovery pass is over (failed included). */
  #ready = false;
  /** Calls that wait between the rounds of a 2026-07-28 client asked by elicitation. */
  readonly #rounds: ElicitRounds;

  constructor(opts: LocalForwarderOptions) {
    this.#opts = opts;
    // The decision card's secrets name this machine's account and this agent (decisions/card.ts).
    const account = `local ${userInfo().uid}`;
    this.#dispatcher = new Dispatcher(opts.editors, opts.guard, { cardHolder: () => ({ account, device: opts.device }) });
    this.#rounds = new ElicitRounds(opts.guard.decisions);
    const ready = (): void => void (this.#ready = true);
    opts.editors.ready.then(ready, ready);
  }

  /** The editors online, as the relay's registry lists them: public ids, ordered by local id. */
  online(): OnlineEditor[] {
    const device = this.#opts.device;
    return this.#opts.editors
      .list()
      .map((e) => e.info())
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((wire) => onlineEditor(device, device, wire));
  }

  /**
   * Runs one call from an MCP layer, asking its client's user when `assistant` says the client
   * can be asked (protocol/elicitation.ts): by `elicitation/create` beside the editor's prompt,
   * or by rounds (decisions/elicit-rounds.ts), where a retry resumes the call it was asked for.
   */
  serve(call: McpToolCall, control: RunControl, assistant: AssistantChannel | undefined): Promise<ToolOutcome | InputRequiredOutcome> {
    if (assistant?.kind === 'rounds') {
      const binding = callBinding(call.spec.name, call.args);
      if (assistant.requestState !== undefined) return this.#rounds.resume(binding, assistant, control.signal);
      return this.#rounds.start(binding, (ask, signal) => this.run(call, { ...control, signal, ask }), control.signal);
    }
    return this.run(call, assistant?.kind === 'request' ? { ...control, ask: askByRequest(this.#opts.guard.decisions, assistant) } : control);
  }

  /** Runs one call; resolves with its outcome, never rejects for a tool failure. */
  async run(call: McpToolCall, control: RunControl): Promise<ToolOutcome> {
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    if (control.signal.aborted) stop();
    else control.signal.addEventListener('abort', stop, { once: true });
    // Tracked (cancellable) in the tick it starts, also while it waits for the first discovery pass.
    const untrack = this.#track(control.key, controller);
    try {
      // Awaited only until the first discovery pass settles (a failed one lists what it found).
      // A cancellation ends that wait at once, however long the pass takes (a Neovim that does
      // not answer holds it for the probe's timeout).
      if (!this.#ready) await Promise.race([this.#opts.editors.ready.catch(() => undefined), abortedOf(controller.signal)]);
      if (controller.signal.aborted) return fail('CANCELLED', 'The call was cancelled before it reached the editor.');
      const device = this.#opts.device;
      const route = routeCall(call.spec, call.args, ALL_SCOPES, { editors: this.online(), devices: [{ deviceId: device, name: device }], noEditor: NO_LOCAL_EDITOR });
      if (route.kind === 'answer') return route.outcome;
      return await this.#dispatch(call, route.localId, route.args, controller.signal, control);
    } finally {
      control.signal.removeEventListener('abort', stop);
      untrack();
    }
  }

  /**
   * Aborts the call in flight under `key`; false when there is none, or several: those are calls
   * of different clients that reused one request id, and a stateless endpoint cannot tell which
   * one sent the cancellation, so none is stopped rather than someone else's (each still stops
   * when its own client goes away, and at the deadline).
   */
  cancel(key: string): boolean {
    const running = this.#byKey.get(key);
    if (running?.size !== 1) return false;
    for (const controller of running) controller.abort();
    return true;
  }

  /** Runs the call through the Dispatcher on editor `localId` ('' for a call to the agent itself) until `signal` aborts. */
  async #dispatch(call: McpToolCall, localId: string, args: Record<string, unknown>, signal: AbortSignal, { clientName, ask, ui }: RunControl): Promise<ToolOutcome> {
    const id = randomUUID();
    const cancel = (): void => this.#dispatcher.cancel(id);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      // handle() registers the id before its first await, so an abort from here on reaches it.
      const outcome = await this.#dispatcher.handle({
        id,
        tool: call.spec.name,
        editor: localId,
        args,
        scopes: ALL_SCOPES,
        client: this.#opts.client,
        ...(clientName === undefined ? {} : { client_name: clientName }),
        ...(ui ? { ui: true as const } : {}),
        deadline_ms: this.#opts.deadlineMs ?? LIMITS.callDeadlineMs,
      }, ask ? { assistant: ask } : {});
      // Undefined only for an id already running, which a fresh UUID never is.
      return outcome ?? fail('INTERNAL', 'The agent refused a call id it was already running.');
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  #track(key: string | undefined, controller: AbortController): () => void {
    if (key === undefined) return () => {};
    const running = this.#byKey.get(key) ?? new Set();
    running.add(controller);
    this.#byKey.set(key, running);
    return () => {
      running.delete(controller);
      if (running.size === 0) this.#byKey.delete(key);
    };
  }
}

/** Resolves when `signal` aborts (at once if it has). */
function abortedOf(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
