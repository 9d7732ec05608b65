/**
 * The tool that hands a step to the person at the computer (takeover/person-asks.ts): what
 * the agent must not do itself — a login, a captcha, a PIN, a consent screen. It waits,
 * pushing progress, until the person takes the phone over and hands it back.
 */
import { z } from 'zod';
import { BridgeError } from '../errors';
import { defineTool, type ToolDefinition } from './tool-definition';

/** The reason is one short sentence, shown on the person's card as the agent's own words. */
export const ASK_REASON_MAX_CHARS = 200;

const askPersonTool = defineTool({
  id: 'android_ask_person',
  title: 'Ask the person to take over',
  description:
    'Ask the person at the computer to take the phone over for a step you must not do yourself: a login, a captcha, a PIN or password you were not given, a consent or payment screen. The app shows your reason; the call waits (sending progress) until the person hands the phone back and returns their optional note. While they hold the phone your control calls answer human_in_control, and you cannot watch: screenshots, UI trees, recordings, waits and the log answer human_in_control too (a recording running when they take it stops), unless the person lets the agent watch; other observation calls still work. Read the screen again after the hand-back. Errors: person_declined (with their reason), approval_timeout (nobody answered within timeout_s), ask_pending (an ask already waits on this phone), canceled. A take-over approves nothing: high-risk calls afterwards still need their approval.',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none' },
  args: z.strictObject({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(ASK_REASON_MAX_CHARS)
      .describe('One short sentence: what the person should do, e.g. "log in to the test account".'),
    timeout_s: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .describe(
        "How long to wait for the person to take the phone over (seconds); at most the bridge's approval timeout, which is also the default. Once they hold the phone the call waits for the hand-back.",
      ),
  }),
  output: {
    type: 'object',
    required: ['status', 'note', 'held_ms', 'waited_ms'],
    properties: {
      status: { const: 'handed_back' },
      note: { type: ['string', 'null'], description: "The person's note for the agent, or null." },
      held_ms: { type: 'integer', description: 'How long the person held the phone.' },
      waited_ms: { type: 'integer', description: 'How long the ask waited before the person took the phone over.' },
    },
  },
  run: async (ctx, args) => {
    const asks = ctx.services.askPerson;
    if (!asks) throw new BridgeError('tool_unavailable', 'this bridge has nobody to ask');
    const maxMs = asks.maxTimeoutMs();
    const timeoutMs = args.timeout_s === undefined ? maxMs : args.timeout_s * 1000;
    if (timeoutMs > maxMs)
      throw new BridgeError(
        'invalid_arguments',
        `timeout_s must be at most the bridge's approval timeout, ${Math.floor(maxMs / 1000)} s`,
      );
    const answered = await asks.ask({ reason: args.reason, timeoutMs });
    return {
      status: 'handed_back',
      note: answered.note ?? null,
      held_ms: answered.heldMs,
      waited_ms: answered.waitedMs,
    };
  },
});

export const PERSON_TOOLS: ToolDefinition<unknown>[] = [askPersonTool];
