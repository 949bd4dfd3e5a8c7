// Agents that stop answering (frozen, asleep, cut off) as the Hub sees them: heartbeats are answered
// by the runtime without waking the Hub, which reads their times when it needs to. A silent agent's
// call answers EDITOR_OFFLINE from the heartbeat watch (not TIMEOUT at the 30 s deadline), its
// socket is closed with 4004 and list_editors drops it, while an agent that keeps heartbeating stays;
// afterwards NO_EDITOR and a call naming its editor say that the device is reconnecting. Any message
// of the agent's counts as hearing from it, as a heartbeat does.
import { afterEach, expect, it } from 'vitest';
import { HEARTBEAT_PING, LIMITS } from '../../protocol/index.ts';
import { deviceJwt, editor, errorCode, FakeAgent, mint, outcomeOf, rawCall, uniqueName } from './helpers.ts';

const agents: FakeAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function online(name: string, localId: string): Promise<FakeAgent> {
  const { agent } = await FakeAgent.online((await deviceJwt(name)).token, [editor(localId)]);
  agents.push(agent);
  return agent;
}

it('a silent agent: its call answers EDITOR_OFFLINE before the deadline, it is dropped, and its device counts as reconnecting', async () => {
  const access = (await mint({ kind: 'access', name: 'liveness' })).token;
  const frozenName = uniqueName('frozen');
  const frozen = await online(frozenName, 'nvim-1');
  const beating = await online(uniqueName('beating'), 'nvim-2');
  const heartbeat = setInterval(() => beating.send(HEARTBEAT_PING), LIMITS.heartbeatMs);
  try {
    const pending = rawCall(access, 'read_buffer', { editor: `${frozenName}/nvim-1` });
    await frozen.next('call');
    // The frozen agent never answers, nor heartbeats.
    const outcome = outcomeOf(await pending);
    expect(errorCode(outcome)).toBe('EDITOR_OFFLINE');
    expect(!outcome.ok && outcome.error.message).toMatch(/stopped answering heartbeats/);
    expect((await frozen.closed).code).toBe(4004);

    const listed = outcomeOf(await rawCall(access, 'list_editors', {}));
    expect(listed.ok && (listed.data.editors as { id: string }[]).map((e) => e.id)).toEqual([expect.stringMatching(/^beating\d+\/nvim-2$/)]);

    const again = outcomeOf(await rawCall(access, 'read_buffer', { editor: `${frozenName}/nvim-1` }));
    expect(again).toMatchObject({ ok: false, error: { code: 'EDITOR_OFFLINE', message: expect.stringContaining(`device "${frozenName}" was online`) } });
    expect(!again.ok && again.error.hint).toMatch(/reconnects by itself/);
  } finally {
    clearInterval(heartbeat);
  }
  await beating.close();
  const none = outcomeOf(await rawCall(access, 'read_buffer', {}));
  expect(none).toMatchObject({ ok: false, error: { code: 'NO_EDITOR', message: expect.stringContaining('is reconnecting'), reconnecting: expect.arrayContaining([frozenName]) } });
}, LIMITS.callDeadlineMs);

it('an agent that sends messages counts as heard from, heartbeats or not: its call waits past the heartbeat timeout for the result', async () => {
  const access = (await mint({ kind: 'access', name: 'liveness' })).token;
  const name = uniqueName('talking');
  const talking = await online(name, 'nvim-3');
  // No heartbeat at all: only its list, again and again, as a busy agent's messages come.
  const talk = setInterval(() => talking.send({ type: 'editors', editors: [editor('nvim-3')] }), LIMITS.heartbeatMs);
  try {
    const pending = rawCall(access, 'read_buffer', { editor: `${name}/nvim-3` });
    const call = await talking.next('call');
    // Past the heartbeat timeout: the Hub has swept for silent agents several times meanwhile.
    await new Promise((resolve) => setTimeout(resolve, LIMITS.heartbeatTimeoutMs + 2 * LIMITS.heartbeatMs));
    talking.answer(call.id, { ok: false, error: { code: 'UNSUPPORTED', message: 'answered late', hint: 'h' } });
    expect(outcomeOf(await pending)).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: 'answered late' } });
  } finally {
    clearInterval(talk);
  }
}, LIMITS.callDeadlineMs);
