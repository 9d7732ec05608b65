/**
 * Admin routes of the safety layer (main/contract/admin-api.ts): answering approvals, the
 * audit trail (JSON, or JSON lines with `?format=jsonl` for export) and the approvers' kept
 * screenshots, and the per-phone policies. Pending approvals reach GET state through
 * createCore (`safety.gate.list()`).
 */
import { createReadStream } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { BridgeError } from '../errors';
import type { AuditFilter } from '../safety/audit-log';
import type { ApprovalAnswer } from '../safety/approval-gate';
import type { SafetyService } from '../safety/safety-service';
import type { AdminRouter } from './admin-router';
import type { EventHub } from './event-hub';

export const AUDIT_DEFAULT_LIMIT = 200;
export const AUDIT_MAX_LIMIT = 5000;
const ANSWERS: readonly ApprovalAnswer[] = ['approve', 'approve_for_lease', 'deny'];

function auditQuery(url: URL): { filter: AuditFilter; limit: number; format: 'json' | 'jsonl' } {
  const text = (name: string): string | undefined => {
    const value = url.searchParams.get(name);
    if (value === null || value === '') return undefined;
    if (value.length > 256) throw new BridgeError('invalid_arguments', `${name} is too long`);
    return value;
  };
  const rawLimit = text('limit');
  const limit = rawLimit === undefined ? AUDIT_DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT) throw new BridgeError('invalid_arguments', `limit must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
  const format = text('format') ?? 'json';
  if (format !== 'json' && format !== 'jsonl') throw new BridgeError('invalid_arguments', 'format must be json or jsonl');
  return { filter: { deviceId: text('device_id'), channelId: text('connector_channel_id') }, limit, format };
}

async function streamJsonLines(res: ServerResponse, safety: SafetyRouteDeps['safety'], filter: AuditFilter): Promise<void> {
  res.writeHead(200, {
    'Content-Type': 'application/x-ndjson; charset=utf-8',
    'Content-Disposition': 'attachment; filename="audit.jsonl"',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  for await (const line of safety.audit.exportLines(filter)) {
    if (!res.write(line)) await new Promise<void>((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/** What the safety routes use; createCore passes the pieces in. */
export interface SafetyRouteDeps {
  safety: Pick<SafetyService, 'gate' | 'audit' | 'policies'>;
  hub: Pick<EventHub, 'publish'>;
}

export function registerSafetyRoutes(router: AdminRouter, deps: SafetyRouteDeps): void {
  const { safety, hub } = deps;

  router.add('POST', '/admin/api/approvals/:approval_id', async ({ params, body }) => {
    const b = await body();
    const decision = b.decision;
    if (typeof decision !== 'string' || !ANSWERS.includes(decision as ApprovalAnswer)) {
      throw new BridgeError('invalid_arguments', 'decision must be approve, approve_for_lease or deny');
    }
    safety.gate.answer(params.approval_id ?? '', decision as ApprovalAnswer);
    return { status: decision === 'deny' ? 'denied' : 'approved' };
  });

  // Over HTTP the raw route answers (JSON, or JSON lines for ?format=jsonl); the desktop app's
  // in-process calls skip raw routes and reach the JSON one below.
  router.add(
    'GET',
    '/admin/api/audit',
    async ({ url, res }) => {
      const q = auditQuery(url);
      if (q.format === 'jsonl') return streamJsonLines(res, safety, q.filter);
      const text = JSON.stringify({ entries: await safety.audit.read(q.filter, q.limit) });
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      res.end(text);
    },
    true,
  );
  router.add('GET', '/admin/api/audit', async ({ url }) => {
    const q = auditQuery(url);
    return { entries: await safety.audit.read(q.filter, q.limit) };
  });

  router.add(
    'GET',
    '/admin/api/audit/screens/:name',
    ({ params, res }) => {
      const path = safety.audit.screenshotPath(params.name ?? '');
      if (!path) throw new BridgeError('file_not_found', 'no such audit screenshot');
      const stream = createReadStream(path);
      stream.once('error', () => {
        if (!res.headersSent) res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(res.headersSent ? undefined : JSON.stringify({ error: { code: 'file_not_found', message: 'no such audit screenshot' } }));
      });
      stream.once('open', () => {
        res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
        stream.pipe(res);
      });
    },
    true,
  );

  router.add('GET', '/admin/api/policies', () => safety.policies.get());
  router.add('PUT', '/admin/api/policies', async ({ body }) => {
    const updated = safety.policies.put(await body());
    hub.publish('state');
    return updated;
  });
}
