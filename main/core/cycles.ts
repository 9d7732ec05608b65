/**
 * The services the composition root makes after others that ask them questions (the one
 * place the bridge's construction cycles are named; lifecycle/later.ts says why a question,
 * unlike a fact, cannot go through the event bus):
 * - the runtime asks the bindings and the data plane whether a channel is in use;
 * - the bindings ask the tools (a channel's last call, the refusals behind a tool mark), the
 *   phone check (its marks), the hand-over (whether a phone may be bound) and the data plane
 *   (to push a Descriptor);
 * - the screen stream asks the live view whether anyone watches; the evidence asks the tools
 *   for a lease's log; the approval card asks the tools for an app's name; the metrics ask the
 *   admin API for the console's snapshot.
 */
import type { AdminApi } from './admin/register-admin-api';
import type { BindingService } from './bindings/binding-service';
import type { Handover } from './handover/handover';
import { Later } from './lifecycle/later';
import type { PhoneCheck } from './phone-check/phone-check';
import type { LiveFrames } from './phone-view/live-frames';
import type { DataPlane } from './server/data-plane';
import type { ToolRuntime } from './tools/tool-runtime';

export function serviceCycles(): {
  bindings: Later<BindingService>;
  plane: Later<DataPlane>;
  frames: Later<LiveFrames>;
  handover: Later<Handover>;
  tools: Later<ToolRuntime>;
  phoneCheck: Later<PhoneCheck>;
  adminApi: Later<AdminApi>;
} {
  return {
    bindings: new Later('the bindings'),
    plane: new Later('the data plane'),
    frames: new Later('the live view'),
    handover: new Later('the hand-over'),
    tools: new Later('the tools'),
    phoneCheck: new Later('the phone check'),
    adminApi: new Later('the admin API'),
  };
}
