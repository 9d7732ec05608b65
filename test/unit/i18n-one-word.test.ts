/**
 * One concept, one word: the Chinese catalogue says "approve once", "approve for this lease",
 * "deny" and "running" the same way everywhere (the Approvals card, the phone view, the phone
 * card, bindings, Activity, the tray), so a person never wonders whether 批准一次 and 允许一次
 * are two different things. Fails when a second spelling of a concept appears anywhere.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogue } from '../../main/contract/i18n';

const zhMessages: Array<[string, string]> = Object.entries(catalogue).flatMap(([area, messages]) =>
  Object.entries(messages['zh-CN'] as Record<string, string>).map(([key, text]): [string, string] => [
    `${area}.${key}`,
    text,
  ]),
);

/** Each concept with the spellings it has had; the first is the one the catalogue uses. */
const CONCEPTS: ReadonlyArray<{ concept: string; spellings: readonly string[] }> = [
  { concept: 'approve once', spellings: ['批准一次', '允许一次', '同意一次'] },
  {
    concept: 'approve for the rest of the lease',
    spellings: ['本租约内批准', '在此租约内批准', '在本租约内批准', '本租约内允许', '在本租约内允许', '在此租约内允许'],
  },
  { concept: 'approved for the lease (Activity)', spellings: ['本租约内已批准', '本租约内已允许'] },
  { concept: 'an action or the helper is running', spellings: ['运行中', '执行中'] },
];

describe('the Chinese catalogue: one word per concept', () => {
  for (const { concept, spellings } of CONCEPTS) {
    test(`“${concept}” is always ${spellings[0]}`, () => {
      const used = spellings.filter((spelling) => zhMessages.some(([, text]) => text.includes(spelling)));
      const where = (spelling: string): string[] =>
        zhMessages.filter(([, text]) => text.includes(spelling)).map(([key]) => key);
      assert.ok(
        used.length <= 1,
        `both spellings in use: ${used.map((s) => `${s} (${where(s).join(', ')})`).join('; ')}`,
      );
      assert.deepEqual(used, [spellings[0]], `${spellings[0]} is the word in use`);
    });
  }

  test('the three answers to an approval are the same words wherever one is answered', () => {
    const approvals = catalogue.approvals['zh-CN'];
    assert.deepEqual(
      [approvals.approveOnce, approvals.approveLease, approvals.deny],
      ['批准一次', '本租约内批准', '拒绝'],
    );
    // The phone view answers with the Approvals area's words, not copies of its own.
    const phoneView = Object.keys(catalogue['phone-view'].en);
    for (const copy of ['approval.once', 'approval.lease', 'approval.deny']) assert.ok(!phoneView.includes(copy), copy);
  });
});
