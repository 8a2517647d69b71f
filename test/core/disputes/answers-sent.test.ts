import { describe, expect, it } from 'vitest';
import { answersSent, emptyEvidence } from '../../../src/core/records/dispute-record.js';
import { disputeReference } from '../../../src/core/disputes/rules.js';

describe('the answers a dispute records as sent', () => {
  const evidence = { ...emptyEvidence(), uncategorized_text: 'proof' };

  it('when a dispute was written before answers were listed (one `sending`), then that answer is read as the first evidence, under the reference it was sent with', () => {
    const [only, ...rest] = answersSent({ sending: { act: 'evidence', at: 5, evidence } });
    expect(rest).toEqual([]);
    expect(only).toEqual({ act: 'evidence', at: 5, n: 1, evidence });
    expect(disputeReference.evidence('T-D01', only!.n)).toBe('T-D01-evidence');
    expect(answersSent({ sending: { act: 'accept', at: 7 } })).toEqual([{ act: 'accept', at: 7 }]);
  });

  it('when answers are listed, then the list is read as it is (a former `sending` beside it is not), and nothing sent reads as none', () => {
    const sent = [
      { act: 'evidence' as const, at: 1, n: 1, evidence },
      { act: 'accept' as const, at: 2 },
    ];
    expect(answersSent({ sent, sending: { act: 'accept', at: 0 } })).toEqual(sent);
    expect(answersSent({})).toEqual([]);
  });

  it('when other evidence is sent, then each text has its own reference, the first keeping the one evidence always had', () => {
    expect([1, 2, 3].map((n) => disputeReference.evidence('T-D01', n))).toEqual(['T-D01-evidence', 'T-D01-evidence-2', 'T-D01-evidence-3']);
    expect(disputeReference.evidence('T-D01')).toBe('T-D01-evidence');
  });
});
