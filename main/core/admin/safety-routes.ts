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
import type { AdminRequest } from '../../contract/admin-operations';
import { sendJson } from '../server/http-util';
import { queryOf, type AdminRouter, type Untrusted } from './admin-router';
import type { EventHub } from '../events/event-hub';

export const AUDIT_DEFAULT_LIMIT = 200;
export const AUDIT_MAX_LIMIT = 5000;
const ANSWERS: readonly ApprovalAnswer[] = ['approve', 'approve_for_lease', 'deny'];

type AuditQuery = Untrusted<AdminRequest<'getAudit'>>;

/** The audit query, from the query string or IPC. */
function auditQuery(query: AuditQuery): { filter: AuditFilter; limit: number; format: 'json' | 'jsonl' } {
  const text = (name: keyof AuditQuery): string | undefined => {
    const raw = query[name];
    if (raw === undefined || raw === null || raw === '') return undefined;
    const value = typeof raw === 'number' ? String(raw) : raw;
    if (typeof value !== 'string') throw new BridgeError('invalid_arguments', `${name} must be text`);
    if (value.length > 256) throw new BridgeError('invalid_arguments', `${name} is too long`);
    return value;
  };
  const rawLimit = text('limit');
  const limit = rawLimit === undefined ? AUDIT_DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT)
    throw new BridgeError('invalid_arguments', `limit must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
  const format = text('format') ?? 'json';
  if (format !== 'json' && format !== 'jsonl')
    throw new BridgeError('invalid_arguments', 'format must be json or jsonl');
  return { filter: { deviceId: text('device_id'), channelId: text('connector_channel_id') }, limit, format };
}

async function streamJsonLines(
  res: ServerResponse,
  safety: SafetyRouteDeps['safety'],
  filter: AuditFilter,
): Promise<void> {
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

  router.add('POST /admin/api/approvals/:approval_id', async ({ params, request }) => {
    const b = await request();
    const decision = b.decision;
    if (typeof decision !== 'string' || !ANSWERS.includes(decision as ApprovalAnswer)) {
      throw new BridgeError('invalid_arguments', 'decision must be approve, approve_for_lease or deny');
    }
    safety.gate.answer(params.approval_id, decision as ApprovalAnswer);
    return { status: decision === 'deny' ? 'denied' : 'approved' };
  });

  // Over HTTP, ?format=jsonl exports every matching entry as JSON lines instead.
  router.add(
    'GET /admin/api/audit',
    async ({ request }) => {
      const q = auditQuery(await request());
      return { entries: await safety.audit.read(q.filter, q.limit) };
    },
    {
      http: async ({ res, url }, answer) => {
        const q = auditQuery(queryOf(url));
        if (q.format === 'jsonl') return streamJsonLines(res, safety, q.filter);
        sendJson(res, 200, await answer());
      },
    },
  );

  router.addHttpOnly('GET /admin/api/audit/screens/:name', ({ params, res }) => {
    const path = safety.audit.screenshotPath(params.name);
    if (!path) throw new BridgeError('file_not_found', 'no such audit screenshot');
    const stream = createReadStream(path);
    stream.once('error', () => {
      if (!res.headersSent) res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(
        res.headersSent
          ? undefined
          : JSON.stringify({ error: { code: 'file_not_found', message: 'no such audit screenshot' } }),
      );
    });
    stream.once('open', () => {
      res.writeHead(200, {
        'Content-Type': 'image/jpeg',
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      stream.pipe(res);
    });
  });

  router.add('GET /admin/api/policies', () => safety.policies.get());
  router.add('PUT /admin/api/policies', async ({ request }) => {
    const updated = safety.policies.put(await request());
    hub.publish('state');
    return updated;
  });
}
