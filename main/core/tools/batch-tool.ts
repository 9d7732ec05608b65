/**
 * android_batch: several control steps back to back in one queue slot. Each step is another
 * control tool's call, validated at the edge by that tool's own schema and judged by the
 * safety gate as that tool (a later typing step is looked at again before it runs).
 */
import { z } from 'zod';
import { BridgeError } from '../errors';
import { withObserve } from './targets';
import { SCREEN_CONTROL_RESULT as RESULT, defineTool, observeFlag, type ToolDefinition } from './tool-definition';

/** The batch tool over the control tools that may be its steps. */
export function makeBatchTool(steps: readonly ToolDefinition<unknown>[]): ToolDefinition<unknown> {
  const batchable = (id: string): ToolDefinition<unknown> => {
    const tool = steps.find((t) => t.id === id);
    if (!tool) throw new BridgeError('invalid_arguments', `${id} cannot be a batch step`);
    return tool;
  };
  return defineTool({
    id: 'android_batch',
    title: 'Run several control steps',
    description:
      'Run up to 20 control steps back to back in one queue slot (tap, long_press, swipe, type_text, press_key, launch_app, stop_app, open_url). Stops at the first error and reports each step. An element ref works in the first step only.',
    kind: 'control',
    sideEffect: true,
    facts: { policy: 'batch', screenInput: true, usesDisplay: true, timeline: 'batch' },
    args: z.strictObject({
      steps: z
        .array(
          z
            .strictObject({
              tool: z.enum(steps.map((t) => t.id)),
              arguments: z.record(z.string(), z.unknown()),
            })
            // Each step's arguments pass its own tool's schema at the edge, before the safety
            // gate judges them and before any step runs: a typo never leaves half a batch done.
            .superRefine((step, ctx) => {
              const parsed = batchable(step.tool).args.safeParse(step.arguments);
              if (parsed.success) return;
              for (const issue of parsed.error.issues)
                ctx.addIssue({
                  code: 'custom',
                  path: ['arguments', ...issue.path],
                  message: `${step.tool}: ${issue.message}`,
                });
            }),
        )
        .min(1)
        .max(20)
        // Every step acts on the phone, and refs expire with any action: a ref after the first step could never hold.
        .superRefine((steps, ctx) => {
          for (const [i, step] of steps.entries()) {
            if (i > 0 && step.arguments.ref !== undefined) {
              ctx.addIssue({
                code: 'custom',
                path: [i, 'arguments', 'ref'],
                message:
                  'a ref works only in the first step (each step acts on the phone, and refs expire with any action); target later steps by element or x and y',
              });
            }
          }
        }),
      observe: observeFlag,
    }),
    output: RESULT,
    // Each step's own check, before the gate may hold the batch: one step that cannot run
    // refuses the whole batch at once. A later step's `index` refers to a tree an earlier
    // step may read anew, so it is left to that step.
    check: async (ctx, args) => {
      for (const [i, step] of args.steps.entries()) {
        const tool = batchable(step.tool);
        const index = (step.arguments.element as { index?: unknown } | undefined)?.index;
        if (!tool.check || (i > 0 && index !== undefined)) continue;
        try {
          await tool.check(ctx, tool.args.parse(step.arguments));
        } catch (error) {
          if (!(error instanceof BridgeError)) throw error;
          throw new BridgeError(error.code, `step ${i + 1} (${step.tool}): ${error.message}`, error.details);
        }
      }
    },
    run: async (ctx, args) => {
      // The steps passed their tools' schemas at the edge (see the schema); parsing again gives each its typed arguments.
      const planned = args.steps.map((step) => {
        const tool = batchable(step.tool);
        return { tool, args: tool.args.parse(step.arguments) };
      });
      const results: Array<Record<string, unknown>> = [];
      for (const [i, step] of planned.entries()) {
        ctx.progress('running', `step ${i + 1} of ${planned.length}: ${step.tool.id}`, i / planned.length);
        try {
          if (i > 0) {
            // The step before acted: what was read before it is no longer the screen (its own `observe` read is).
            ctx.refs.acted();
            await ctx.checkStep?.({ index: i, toolId: step.tool.id, args: step.args as Record<string, unknown> });
          }
          results.push({ tool: step.tool.id, ok: true, result: await step.tool.run(ctx, step.args) });
        } catch (error) {
          const code = error instanceof BridgeError ? error.code : 'internal_error';
          const message = error instanceof BridgeError ? error.message : 'internal error';
          results.push({ tool: step.tool.id, ok: false, error: { code, message } });
          return withObserve(ctx, args.observe, { status: 'stopped_on_error', completed: i, steps: results });
        }
      }
      return withObserve(ctx, args.observe, { status: 'done', completed: planned.length, steps: results });
    },
  });
}
