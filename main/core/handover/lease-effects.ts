/**
 * What a lease left on its phone, for the turnover at its end (turnover.ts): apps it
 * installed and launched, files it pushed, runtime permissions it changed (with the state
 * before), whether it set the clipboard. Told about every finished call by the call pipeline,
 * as the audit trail is (batch steps included), and kept in state.json so a bridge restarted
 * mid-lease still knows what to put back.
 */
import type { StateStore } from '../store/state-store';
import { toolFacts } from '../tools/catalogue';
import type { CallOutcome, CallRecordSink, ToolCall } from '../tools/tool-call';

export interface PermissionChange {
  package: string;
  permission: string;
  /** What the phone reported before the lease first changed it. */
  grantedBefore: boolean;
}

export interface LeaseEffectsRecord {
  deviceId: string;
  /** How the lease began (its turnover policy depends on it). */
  flowId: string;
  installed: string[];
  /** The Android user each app was installed for (absent: the phone's default, every user). */
  installedUsers: Record<string, number>;
  /**
   * The user's third-party apps when the lease began (null: not read), and that user: the
   * reset removes what is new at the end however it came (the store, a browser download).
   */
  appsAtStart: string[] | null;
  appsUser: number | null;
  launched: string[];
  pushed: string[];
  permissions: PermissionChange[];
  clipboardSet: boolean;
}

/** A lease that installs or pushes more than this is still bounded in state.json. */
const MAX_ITEMS = 500;

const empty = (deviceId: string, flowId: string): LeaseEffectsRecord => ({
  deviceId,
  flowId,
  installed: [],
  installedUsers: {},
  appsAtStart: null,
  appsUser: null,
  launched: [],
  pushed: [],
  permissions: [],
  clipboardSet: false,
});

const addOnce = (list: string[], value: unknown): void => {
  if (typeof value === 'string' && value.length > 0 && !list.includes(value) && list.length < MAX_ITEMS)
    list.push(value);
};

export class LeaseEffects implements CallRecordSink {
  constructor(
    private readonly store: StateStore,
    /** How the channel's live lease began (desktop_approval, device_claim). */
    private readonly flowOf: (channelId: string) => string | undefined,
  ) {}

  record(call: ToolCall, outcome: CallOutcome): void {
    const steps = this.stepsOf(call.tool.id, call.args, outcome);
    if (steps.length === 0) return;
    // Changed in place and written off the event loop: a launch is frequent, and a synchronous
    // fsync would stall every phone's traffic (see JsonFileStore.flushInBackground).
    const all = this.store.get().leaseEffects;
    const effects = all[call.channelId] ?? empty(call.device.deviceId, this.flowOf(call.channelId) ?? 'unknown');
    let changed = false;
    for (const step of steps) changed = this.note(effects, step) || changed;
    if (!changed) return;
    all[call.channelId] = effects;
    this.writeSoon();
  }

  /** The user's third-party apps as the lease on `channelId` began (turnover.ts reads them at its start). */
  noteAppsAtStart(channelId: string, deviceId: string, apps: readonly string[], user: number | null): void {
    const flowId = this.flowOf(channelId);
    // The lease already ended (the read came late): nothing of it is reset any more.
    if (flowId === undefined) return;
    const all = this.store.get().leaseEffects;
    const effects = all[channelId] ?? empty(deviceId, flowId);
    if (effects.deviceId !== deviceId) return;
    effects.appsAtStart = [...apps];
    effects.appsUser = user;
    all[channelId] = effects;
    this.writeSoon();
  }

  /** The effects of a channel's lease, removed from the store (the turnover takes them). */
  take(channelId: string): LeaseEffectsRecord | null {
    const all = this.store.get().leaseEffects;
    const effects = all[channelId] ?? null;
    if (effects) {
      delete all[channelId];
      this.writeSoon();
    }
    return effects;
  }

  /** Effects of leases that ended while the bridge was down or stopping (their turnover still owed). */
  orphans(leaseActive: (channelId: string) => boolean): Array<[string, LeaseEffectsRecord]> {
    return Object.entries(this.store.get().leaseEffects).filter(([channelId]) => !leaseActive(channelId));
  }

  /** Gives effects back (a turnover the bridge's stop interrupted runs at the next start). */
  restore(channelId: string, effects: LeaseEffectsRecord): void {
    this.store.get().leaseEffects[channelId] = effects;
    this.writeSoon();
  }

  /** A failed write is retried with the next change or the store's next write; the state in memory stays right. */
  private writeSoon(): void {
    this.store.flushInBackground().catch(() => undefined);
  }

  /** A call and, for a batch, each step that ran: the tool, its arguments and its result when it succeeded. */
  private stepsOf(
    toolId: string,
    args: Readonly<Record<string, unknown>>,
    outcome: CallOutcome,
  ): Array<{ tool: string; args: Readonly<Record<string, unknown>>; result: Record<string, unknown> }> {
    const result = outcome.result;
    if (outcome.outcome !== 'ok' || !result) return [];
    if (toolFacts(toolId).policy !== 'batch') return [{ tool: toolId, args, result }];
    const planned = Array.isArray(args.steps) ? (args.steps as Array<Record<string, unknown>>) : [];
    const ran = Array.isArray(result.steps) ? (result.steps as Array<Record<string, unknown>>) : [];
    return ran.flatMap((step, i) =>
      step.ok === true && typeof step.tool === 'string'
        ? [
            {
              tool: step.tool,
              args: (planned[i]?.arguments as Record<string, unknown> | undefined) ?? {},
              result: (step.result as Record<string, unknown> | undefined) ?? {},
            },
          ]
        : [],
    );
  }

  /** True when the step left something the turnover must put back. */
  private note(
    effects: LeaseEffectsRecord,
    step: { tool: string; args: Readonly<Record<string, unknown>>; result: Record<string, unknown> },
  ): boolean {
    const { args, result } = step;
    // By what the tool does (its facts), not by its name.
    switch (toolFacts(step.tool).policy) {
      case 'install':
        for (const pkg of Array.isArray(result.new_packages) ? (result.new_packages as unknown[]) : []) {
          addOnce(effects.installed, pkg);
          // The turnover uninstalls for that user only: the app may be the person's own in another one.
          if (typeof pkg === 'string' && effects.installed.includes(pkg) && Number.isSafeInteger(result.user))
            effects.installedUsers[pkg] = result.user as number;
        }
        return true;
      case 'launch':
        addOnce(effects.launched, args.package);
        return true;
      case 'push':
        addOnce(effects.pushed, result.path);
        return true;
      case 'grant':
      case 'revoke': {
        if (result.changed !== true || typeof result.package !== 'string' || typeof result.permission !== 'string')
          return false;
        const known = effects.permissions.find(
          (p) => p.package === result.package && p.permission === result.permission,
        );
        // The first change is the one to undo: later ones within the lease only move away from it.
        if (!known && effects.permissions.length < MAX_ITEMS)
          effects.permissions.push({
            package: result.package,
            permission: result.permission,
            grantedBefore: result.granted !== true,
          });
        return true;
      }
      case 'clipboard_write':
        effects.clipboardSet = true;
        return true;
      default:
        return false;
    }
  }
}
