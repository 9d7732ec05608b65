/**
 * Admin routes of the leases' evidence bundles (evidence/): the list, newest first (one
 * phone's with `device_id`), and one bundle as the HTML page a person opens offline or as its
 * JSON. Both are downloads (Content-Disposition: attachment, nosniff): the page is untrusted
 * phone and agent data, and even escaped it is never shown inside the console's origin.
 */
import { EVIDENCE_ID_RE, type EvidenceBundle, type EvidenceList } from '../../contract/evidence';
import { LOCALES, type Locale } from '../../contract/i18n';
import { BridgeError } from '../errors';
import { buildEvidenceHtml } from '../evidence/evidence-html';
import type { EvidenceStore } from '../evidence/evidence-store';
import type { AdminRouter } from './admin-router';

export interface EvidenceRouteDeps {
  evidence: Pick<EvidenceStore, 'list' | 'read'>;
}

/** The file name a bundle is saved under: the phone's id and the lease's start, nothing else from the data. */
function fileName(bundle: EvidenceBundle, ext: 'html' | 'json'): string {
  const device = bundle.lease.device_id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  const started = new Date(bundle.lease.started_at)
    .toISOString()
    .replace(/[:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `evidence-${device}-${started}.${ext}`;
}

export function registerEvidenceRoutes(router: AdminRouter, deps: EvidenceRouteDeps): void {
  router.add('GET /admin/api/evidence', async ({ request }): Promise<EvidenceList> => {
    const deviceId = (await request()).device_id;
    if (deviceId !== undefined && typeof deviceId !== 'string')
      throw new BridgeError('invalid_arguments', 'device_id must be a phone id');
    return { evidence: deps.evidence.list(deviceId) };
  });

  const bundleOf = async (leaseId: string): Promise<EvidenceBundle> => {
    const bundle = EVIDENCE_ID_RE.test(leaseId) ? await deps.evidence.read(leaseId) : undefined;
    if (!bundle)
      throw new BridgeError('file_not_found', 'no evidence kept for that lease (unknown, or past the evidence limits)');
    return bundle;
  };
  const formatOf = (raw: unknown): 'html' | 'json' => {
    if (raw === undefined || raw === 'html') return 'html';
    if (raw === 'json') return 'json';
    throw new BridgeError('invalid_arguments', 'format must be html or json');
  };
  const localeOf = (raw: unknown): Locale => {
    if (raw === undefined) return 'en';
    const locale = LOCALES.find((l) => l === raw);
    if (locale) return locale;
    throw new BridgeError('invalid_arguments', 'locale must be en or zh-CN');
  };

  router.add(
    'GET /admin/api/evidence/:lease_id',
    async ({ params, request }) => {
      const query = await request();
      const format = formatOf(query.format);
      const locale = localeOf(query.locale);
      const bundle = await bundleOf(params.lease_id);
      const text = format === 'json' ? JSON.stringify(bundle, null, 1) : buildEvidenceHtml(bundle, locale);
      return { format, filename: fileName(bundle, format), bytes: new Uint8Array(Buffer.from(text, 'utf8')) };
    },
    {
      http: async ({ res }, answer) => {
        const file = await answer();
        res.writeHead(200, {
          'Content-Type': file.format === 'json' ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
          'Content-Length': file.bytes.length,
          'Content-Disposition': `attachment; filename="${file.filename}"`,
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
          'Cache-Control': 'no-store',
        });
        res.end(file.bytes);
      },
    },
  );
}
