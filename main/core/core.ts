/**
 * What createCore (create-core.ts) hands the code that embeds the bridge — the CLI, the
 * desktop app, the simulator: one start(), one idempotent stop(), the URLs and keys, and
 * the services they read.
 */
import type { BuildInfo } from './build-info';
import type { CoreOptions } from './config/core-options';
import type { Logger } from './logging/logger';
import type { ApiKeyRotation } from './secrets/system-api-key';
import type { ConnectorRuntime } from './runtime/connector-runtime';
import type { DeviceRegistry } from './devices/device-registry';
import type { AdbServerLink } from './devices/adb-server-link';
import type { BindingService } from './bindings/binding-service';
import type { TlsSummary } from './server/network-endpoint';
import type { FileCache } from './files/file-cache';
import type { EventHub } from './events/event-hub';
import type { AdminRouter } from './admin/admin-router';
import type { AdminState } from '../contract/admin-api';
import type { ToolRuntime } from './tools/tool-runtime';
import type { HelperManager } from './helper/helper-manager';
import type { ActionTimeline } from './phone-view/action-timeline';
import type { LiveFrames } from './phone-view/live-frames';
import type { LiveLimits } from './config/live-limits';

export interface Core {
  readonly options: CoreOptions;
  readonly build: BuildInfo;
  /** Starts every service and listens; a second start throws. */
  start(): Promise<{ url: string; host: string; port: number }>;
  /** Releases everything the core holds, in reverse start order; idempotent, and fine before start or after a failed one. */
  stop(): Promise<void>;
  /** Where the bridge itself answers: http(s)://host:port ('' before start). */
  url(): string;
  /** The base URL xAgent is given: --public-url behind a proxy, else url(). */
  publicUrl(): string;
  /** The certificate served over https/wss (fingerprint, files, names), or null without TLS. */
  tls(): TlsSummary | null;
  /** Connections the server holds now on every plane (docs/REFERENCE.md "Documented limits": connection caps). */
  openConnections(): number;
  apiKey(): string;
  adminToken(): string;
  /** Replaces the API key: data planes opened with the old one are closed (4401), uploads under it refused. */
  rotateApiKey(): string;
  /** Told after each rotation of the API key; returns the way to stop listening. */
  onApiKeyRotated(listener: (rotation: ApiKeyRotation) => void): () => void;
  /** Problems found at start (e.g. a corrupt state file kept aside), shown in the UI. */
  warnings(): string[];
  readonly registry: DeviceRegistry;
  readonly runtime: ConnectorRuntime;
  readonly bindings: BindingService;
  readonly tools: ToolRuntime;
  /** The fast lane's helper per phone (docs/REFERENCE.md "Fast lane"). */
  readonly helpers: HelperManager;
  /** The phone view's timeline and live frames (docs/REFERENCE.md "The phone view"). */
  readonly phoneView: { timeline: ActionTimeline; frames: LiveFrames };
  readonly hub: EventHub;
  readonly files: FileCache;
  readonly logger: Logger;
  readonly adbLinks: AdbServerLink[];
  readonly admin: AdminRouter;
  /** The limits people may change while the bridge runs (Settings → Limits, PATCH settings). */
  readonly limits: LiveLimits;
  adminState(): AdminState;
}
