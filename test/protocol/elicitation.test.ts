// A pending decision as an elicitation form (protocol/elicitation.ts): which clients declared form
// mode (spec 2025-11-25: an empty `elicitation` is form), the form's message (the decision as the
// editor shows it, escaped, the client's own words included; for text not shown, that only the
// negative answer is offered) and its schema (the decision's offers, a bounded reason, nothing
// else), and what a reply says: the offered answer, decline as deny or reject, cancel as nothing,
// and every other reply (an answer not offered, a reason too long, a made-up action) invalid.
import { describe, expect, it } from 'vitest';
import { DECISION_LIMITS, decisionForm, elicitsForm, formReply, type WireDecision } from '../../protocol/index.ts';

const prompt: WireDecision = {
  id: 'd'.repeat(32),
  kind: 'prompt',
  editor: 'nvim-1',
  editor_name: 'desk\u001b]0;x\u0007',
  client: 'evil\u202eclient',
  tool: 'run_command',
  klass: 'exec',
  paths: [],
  sections: [{ title: null, lines: [':!rm ^G -rf'], chars: 11 }],
  offers: ['allow', 'deny'],
  expires_at: '2026-12-07T05:00:00.000Z',
};

describe('elicitation forms', () => {
  it('are asked of clients that declared form mode, or elicitation with no mode', () => {
    expect(elicitsForm({ elicitation: {} })).toBe(true);
    expect(elicitsForm({ elicitation: { form: {} } })).toBe(true);
    expect(elicitsForm({ elicitation: { form: {}, url: {} } })).toBe(true);
    expect(elicitsForm({ elicitation: { url: {} } })).toBe(false);
    expect(elicitsForm({ sampling: {} })).toBe(false);
    expect(elicitsForm(undefined)).toBe(false);
  });

  it('show the decision as the editor does, the client\'s and the editor\'s names escaped, and ask only for an offered answer and a reason', () => {
    const form = decisionForm(prompt);
    expect(form.message).toBe('vimrelay: evil⟨U+202E⟩client asks to run run_command (exec) in desk^[]0;x^G.\n\n:!rm ^G -rf');
    expect(form.requestedSchema).toEqual({
      type: 'object',
      properties: {
        answer: { type: 'string', title: 'Allow this once?', oneOf: [{ const: 'allow', title: 'Allow once' }, { const: 'deny', title: 'Deny' }] },
        reason: { type: 'string', title: expect.any(String), maxLength: DECISION_LIMITS.maxReasonChars },
      },
      required: ['answer'],
    });
  });

  it('say so when the text is too long to show, offering only the negative answer', () => {
    const review = decisionForm({ ...prompt, kind: 'review', sections: [{ title: 'a.txt', lines: null, chars: 200_000 }], offers: ['reject'] });
    expect(review.message).toContain('--- a.txt\n(200000 characters, too long to show here: only reject is offered. The editor shows it whole.)');
    expect(review.requestedSchema.properties.answer.oneOf).toEqual([{ const: 'reject', title: 'Reject' }]);
  });
});

describe('a reply to a form', () => {
  it('is the answer chosen, with a trimmed reason for a deny and none for an allow', () => {
    expect(formReply({ action: 'accept', content: { answer: 'allow', reason: 'ignored' } }, prompt)).toEqual({ kind: 'answer', answer: { kind: 'allow' } });
    expect(formReply({ action: 'accept', content: { answer: 'deny', reason: '  not now ' } }, prompt)).toEqual({ kind: 'answer', answer: { kind: 'deny', reason: 'not now' } });
    expect(formReply({ action: 'accept', content: { answer: 'deny', reason: '  ' } }, prompt)).toEqual({ kind: 'answer', answer: { kind: 'deny' } });
  });

  it('declined is a deny (reject for a review); cancelled answers nothing', () => {
    expect(formReply({ action: 'decline' }, prompt)).toEqual({ kind: 'answer', answer: { kind: 'deny' } });
    expect(formReply({ action: 'decline' }, { kind: 'review', offers: ['accept', 'reject'] })).toEqual({ kind: 'answer', answer: { kind: 'reject' } });
    expect(formReply({ action: 'cancel' }, prompt)).toEqual({ kind: 'dismissed' });
  });

  it('is invalid when it chooses what is not offered, gives a reason too long, or is no elicitation result', () => {
    expect(formReply({ action: 'accept', content: { answer: 'allow' } }, { ...prompt, offers: ['deny'] })).toEqual({ kind: 'invalid' });
    expect(formReply({ action: 'accept', content: { answer: 'accept' } }, prompt)).toEqual({ kind: 'invalid' });
    expect(formReply({ action: 'accept', content: { answer: 'deny', reason: 'x'.repeat(DECISION_LIMITS.maxReasonChars + 1) } }, prompt)).toEqual({ kind: 'invalid' });
    expect(formReply({ action: 'accept' }, prompt)).toEqual({ kind: 'invalid' });
    expect(formReply({ action: 'approve', content: { answer: 'allow' } }, prompt)).toEqual({ kind: 'invalid' });
    expect(formReply(undefined, prompt)).toEqual({ kind: 'invalid' });
  });
});
