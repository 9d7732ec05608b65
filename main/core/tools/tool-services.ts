/**
 * What a tool receives when it runs (ToolContext): its phone, shell, cancel and deadline, the
 * screen size, the channel's last tree and what its element refs are checked with, and the
 * services of the file and media tools (the file cache behind signed download URLs, uploaded
 * files of its own channel only) and of typing a lab secret (its value for this phone only).
 */
import { publicHref } from '../config/network-options';
import { BridgeError } from '../errors';
import type { FileCache } from '../files/file-cache';
import type { UrlSigner } from '../files/signed-url';
import type { PhoneMemory } from './phone-memory';
import type { PhoneShells } from './phone-shells';
import type { SecretSource } from './secret-text';
import { redactLogLines } from './log-redaction';
import type { ToolCall } from './tool-call';
import type { PersonAskService, StoredFileInfo, ToolContext } from './tool-definition';
import { ScreenSources } from '../screen/screen-sources';
import { AppLabelCache, type AppLabelReader } from './app-labels';

export interface ToolServicesOptions {
  files: FileCache;
  signer: UrlSigner;
  memory: PhoneMemory;
  shells: PhoneShells;
  /** Default deadline for one adb operation. */
  commandTimeoutMs: number;
  /** How long a download URL handed to xAgent stays valid (capped by the file's own expiry). */
  downloadUrlTtlMs: number;
  /** --public-url: download URLs become absolute under it (a proxy's path prefix survives). */
  publicUrl: string | undefined;
  /** The lab's named secrets (absent: none can be typed). */
  secrets?: SecretSource;
  /** Asks to the person at the computer (takeover/person-asks.ts); absent: nobody can be asked. */
  asks?: PersonAskBackend;
  /** The end of the phone's last take-over the agent could not watch (takeover/takeover.ts); absent: none. */
  logHiddenUntil?: (deviceId: string) => number | null;
  /** Each phone's pictures of its screen (screen/); absent: screencap only, as on a bridge without streams. */
  screens?: Pick<ScreenSources, 'of'>;
  /** Reads a phone's app names (phone-programs/); absent: apps are named by their package. */
  appLabels?: AppLabelReader;
}

/** The bridge's side of a person ask: the wait itself, the approval timeout that bounds it, and whether the phone is held. */
export interface PersonAskBackend {
  maxTimeoutMs(): number;
  ask(request: {
    deviceId: string;
    channelId: string;
    reason: string;
    timeoutMs: number;
    signal: AbortSignal;
    progress: (status: string, message: string, fraction?: number) => void;
  }): Promise<{ note: string | undefined; heldMs: number; waitedMs: number }>;
}

export class ToolServicesFactory {
  private readonly screens: Pick<ScreenSources, 'of'>;
  /** Each phone's app names, kept between calls. */
  readonly labels: AppLabelCache;

  constructor(private readonly o: ToolServicesOptions) {
    this.screens = o.screens ?? new ScreenSources();
    this.labels = new AppLabelCache(o.appLabels);
  }

  /** The context `call.tool.run` gets. */
  contextFor(call: ToolCall): ToolContext {
    const { channelId, device, shell, signal } = call;
    const { files, memory } = this.o;
    const timeoutMs = this.o.commandTimeoutMs;
    // The gate read the screen before the call; once a batch step acted, that read is the past.
    const actionsAtStart = memory.actions(device.deviceId);
    return {
      channelId,
      device,
      shell,
      signal,
      timeoutMs,
      progress: (status, message, fraction) => call.progress(status, message, fraction),
      screenSize: async (accepts) => {
        const size = await this.o.shells.screenSize(device.deviceId, shell, { timeoutMs, signal }, accepts);
        if (!size) throw new BridgeError('command_failed', 'could not read the screen size');
        return size;
      },
      lastTree: () => memory.lastTree(channelId),
      rememberTree: (nodes, signature, actions) =>
        memory.rememberTree(channelId, device.deviceId, nodes, signature, actions),
      refs: {
        actions: () => memory.actions(device.deviceId),
        acted: () => memory.acted(device.deviceId),
        checkedTree: () =>
          memory.actions(device.deviceId) === actionsAtStart ? (call.verdict?.treeRead ?? null) : null,
        heldForApproval: () => call.verdict?.approvalId !== null && call.verdict?.approvalId !== undefined,
      },
      services: {
        lastCaptures: memory.lastCaptures,
        storeFile: async (input) => this.signed(await files.put({ ...input, channelId })),
        findUnchangedRef: (fileRef) => {
          const file = files.get(fileRef);
          return file && file.channelId === channelId ? this.signed(file) : undefined;
        },
        uploadedFile: (fileRef) => {
          const file = files.get(fileRef);
          if (!file || file.kind !== 'upload')
            throw new BridgeError('file_not_found', 'no uploaded file with that file_ref (it may have expired)');
          if (file.channelId !== channelId)
            throw new BridgeError('permission_denied', 'that file was uploaded for another channel');
          const path = files.path(fileRef);
          if (!path) throw new BridgeError('file_not_found', 'the uploaded file is gone');
          return { path, filename: file.filename, byteSize: file.byteSize };
        },
        unicodeIme: () => memory.unicodeIme(device.deviceId, shell, { timeoutMs, signal }),
        appLabel: (pkg) => this.labels.label(device.deviceId, shell, pkg),
        appLabels: () => this.labels.all(device.deviceId, shell, signal),
        secretText: (name) => {
          if (!this.o.secrets) throw new BridgeError('secret_not_found', 'this bridge keeps no secrets');
          return this.o.secrets.reveal(name, device.deviceId);
        },
        screen: this.screens.of(device.deviceId),
        redactLog: (lines) =>
          redactLogLines(lines, { secrets: this.o.secrets?.values() ?? [], typed: memory.typedTexts(channelId) }),
        logHiddenUntil: () => this.o.logHiddenUntil?.(device.deviceId) ?? null,
        ...(this.o.asks ? { askPerson: this.askPerson(this.o.asks, call) } : {}),
      },
    };
  }

  private askPerson(asks: PersonAskBackend, call: ToolCall): PersonAskService {
    return {
      maxTimeoutMs: () => asks.maxTimeoutMs(),
      ask: ({ reason, timeoutMs }) =>
        asks.ask({
          deviceId: call.device.deviceId,
          channelId: call.channelId,
          reason,
          timeoutMs,
          signal: call.signal,
          progress: (status, message, fraction) => call.progress(status, message, fraction),
        }),
    };
  }

  private signed(file: {
    fileRef: string;
    mimeType: string;
    byteSize: number;
    expiresAt: number;
    sha256: string;
  }): StoredFileInfo {
    const url = this.o.signer.sign(file.fileRef, this.o.downloadUrlTtlMs, file.expiresAt);
    return {
      file_ref: file.fileRef,
      // Absolute under --public-url; else relative, resolved by xAgent against its base URL.
      download_url: publicHref(this.o.publicUrl, url.path),
      mime_type: file.mimeType,
      byte_size: file.byteSize,
      expires_at: url.expiresAt,
      sha256: file.sha256,
    };
  }
}
