/**
 * The person's own input while they hold a phone (take over, issue #26): a tap, a swipe or
 * one of a few keys from the phone view, run on the phone's control queue like the agent's
 * calls (so it never interleaves with one) and recorded in the audit as the person's. Only
 * these fixed shapes reach the phone (`input tap|swipe|keyevent` with numbers), never a shell
 * line; points must lie on the screen (out_of_bounds). Refused (invalid_arguments) while the
 * person has not taken the phone over: the agent has it then.
 */
import { z } from 'zod';
import { BridgeError } from '../errors';
import { pressKey, swipe, tap, type ScreenSize } from '../android/input';
import type { DeviceShell } from '../devices/device-shell';
import type { DeviceQueue } from '../queue/device-queue';

/** The queue channel of the person's input (not an agent's channel: Stop and the card do not count it). */
export const PERSON_CHANNEL = 'person';

/** The keys the phone view offers: Back, Home, Recents. */
export const PERSON_KEYS = ['back', 'home', 'app_switch'] as const;

const coord = z.number().int().min(0).max(100_000);
export const personInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('tap'), x: coord, y: coord }),
  z.strictObject({
    kind: z.literal('swipe'),
    x1: coord,
    y1: coord,
    x2: coord,
    y2: coord,
    duration_ms: z.number().int().min(50).max(3000).optional(),
  }),
  z.strictObject({ kind: z.literal('key'), key: z.enum(PERSON_KEYS) }),
]);
export type PersonInput = z.infer<typeof personInputSchema>;

export interface PersonInputDeps {
  queue: Pick<DeviceQueue, 'submit'>;
  isTaken: (deviceId: string) => boolean;
  screenSize: (deviceId: string, shell: DeviceShell) => Promise<ScreenSize | null>;
  audit: (deviceId: string, input: PersonInput, code: string | null, durationMs: number) => void;
  commandTimeoutMs: number;
  clock: () => number;
}

/** Parses the body of POST /admin/api/devices/:id/input (BridgeError invalid_arguments when it is not one of the shapes). */
export function parsePersonInput(body: unknown): PersonInput {
  const parsed = personInputSchema.safeParse(body);
  if (!parsed.success)
    throw new BridgeError(
      'invalid_arguments',
      `input is {kind: "tap", x, y}, {kind: "swipe", x1, y1, x2, y2, duration_ms?} or {kind: "key", key: ${PERSON_KEYS.join(' | ')}}`,
    );
  return parsed.data;
}

/** Runs the person's input on the phone, in its control queue; audited either way. */
export async function runPersonInput(
  deps: PersonInputDeps,
  deviceId: string,
  shell: DeviceShell,
  input: PersonInput,
): Promise<void> {
  if (!deps.isTaken(deviceId))
    throw new BridgeError('invalid_arguments', 'take the phone over first: the agent has it now');
  const started = deps.clock();
  try {
    await deps.queue.submit(deviceId, 'control', PERSON_CHANNEL, async (signal) => {
      const options = { timeoutMs: deps.commandTimeoutMs, signal };
      if (input.kind === 'key') return pressKey(shell, input.key, options);
      const screen = (await deps.screenSize(deviceId, shell)) ?? undefined;
      const withScreen = screen ? { ...options, screen } : options;
      if (input.kind === 'tap') return tap(shell, input.x, input.y, withScreen);
      return swipe(
        shell,
        { x: input.x1, y: input.y1 },
        { x: input.x2, y: input.y2 },
        input.duration_ms ?? 300,
        withScreen,
      );
    });
    deps.audit(deviceId, input, null, deps.clock() - started);
  } catch (error) {
    deps.audit(deviceId, input, error instanceof BridgeError ? error.code : 'internal_error', deps.clock() - started);
    throw error;
  }
}
