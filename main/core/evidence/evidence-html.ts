/**
 * A lease's evidence as one HTML page a person opens offline: no script runs in it (a CSP
 * meta tag forbids every script; the logcat folds with <details>), pictures are inline data:
 * URLs, and the evidence itself rides along as JSON in a non-executable data block.
 *
 * Everything in a bundle came from a phone or an agent and is untrusted: every text goes
 * through `escapeHtml`, attribute values too, and the JSON block escapes `<` so no `</script>`
 * inside it can end it. A kept picture reaches a data: URL only as one of the image types
 * the bridge writes, in plain base64.
 */
import type { AdminTurnover } from '../../contract/admin-api';
import type { EvidenceBundle, EvidenceCall, EvidenceImage } from '../../contract/evidence';
import { toolLabel } from '../../contract/approval-wording';
import { auditSentence } from '../../contract/audit-wording';
import { formatStamp, hasMessage, translator, type Locale, type Translate } from '../../contract/i18n';
import { toolWords } from '../../contract/tools';

const CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
/** The picture types screenshots come in (android_screenshot's formats); nothing else reaches a data: URL. */
const PICTURE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
/** Characters of one argument value shown in the timeline. */
const ARG_CHARS = 200;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside <script type="application/json">: no `<` (so no `</script>` or `<!--`), no line separators. */
export function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The page for one bundle, in `locale`. */
export function buildEvidenceHtml(bundle: EvidenceBundle, locale: Locale = 'en'): string {
  const t = translator(locale);
  const e = escapeHtml;
  const when = (ms: number): string => formatUtc(ms);
  const lease = bundle.lease;
  const title = t('evidence.page.title', { phone: lease.phone_name || lease.device_id });
  const endKey = `evidence.end.${lease.end_reason}`;
  const flowKey = `evidence.flow.${lease.bound_via}`;
  const header = `<header>
<h1>${e(title)}</h1>
<p class="intro">${e(t('evidence.page.intro'))}</p>
<dl class="lease">
${row(t('evidence.lease.phone'), `${lease.phone_name} (${lease.device_id})`)}
${row(t('evidence.lease.channel'), lease.connector_channel_id)}
${row(t('evidence.lease.boundVia'), hasMessage(flowKey) ? t(flowKey) : lease.bound_via)}
${lease.holder ? row(t('bindings.fact.holder'), holderText(lease.holder, t)) : ''}
${row(t('evidence.lease.started'), when(lease.started_at))}
${row(t('evidence.lease.ended'), when(lease.ended_at))}
${row(t('evidence.lease.endReason'), hasMessage(endKey) ? t(endKey) : lease.end_reason)}
${row(t('evidence.lease.calls'), String(bundle.calls.length))}
</dl>
</header>`;

  const timeline = listSection(
    'timeline',
    t,
    bundle.calls,
    (c) => callRow(c, t),
    (rows) =>
      `${bundle.calls_truncated ? `<p class="note">${e(t('evidence.timeline.truncated', { count: bundle.calls.length }))}</p>` : ''}<ol class="timeline">${rows}</ol>`,
  );

  const holds = listSection(
    'holds',
    t,
    bundle.person_holds ?? [],
    (h) =>
      `<li data-watch="${h.agent_may_watch ? 'true' : 'false'}"><time>${e(when(h.since))}</time> – ${
        h.until === null ? e(t('evidence.holds.stillHeld')) : `<time>${e(when(h.until))}</time>`
      } · ${e(h.by)} · ${e(t(h.agent_may_watch ? 'evidence.holds.watched' : 'evidence.holds.hidden'))}</li>`,
    (rows) => `<ul>${rows}</ul>`,
  );

  const approvals = listSection(
    'approvals',
    t,
    bundle.approvals,
    (a) => `<figure class="approval">
<figcaption><time>${e(when(a.time))}</time> · ${e(toolName(a.tool_id, t))} · ${e(decisionText(a.decision, t))} · ${e(t('evidence.call.decidedBy', { who: whoText(a.decided_by, t) }))} · <code>${e(a.approval_id)}</code></figcaption>
${a.screenshot ? img(a.screenshot, t('evidence.approvals.title')) : `<p class="note">${e(t('evidence.approvals.noScreenshot'))}</p>`}
</figure>`,
  );

  const screenshots = listSection(
    'screenshots',
    t,
    bundle.screenshots,
    (s) => `<figure class="shot">
<figcaption><time>${e(when(s.time))}</time> · ${e(toolName(s.tool_id, t))} · <code>${e(s.file_ref)}</code></figcaption>
${s.image ? img(s.image, s.file_ref) : `<p class="note">${e(t(s.missing === 'bundle_full' ? 'evidence.screenshots.bundleFull' : 'evidence.screenshots.evicted'))}</p>`}
</figure>`,
    (shots) => `<div class="shots">${shots}</div>`,
  );

  const crashes = listSection(
    'crashes',
    t,
    bundle.crashes,
    (
      c,
    ) => `<div class="crash"><p><strong>${e(c.package)}</strong> · ${e(c.kind)} · ${e(c.at)} · ${e(toolName(c.tool_id, t))}</p>
<pre>${e(c.first_lines.join('\n'))}</pre></div>`,
  );

  const recordings = listSection(
    'recordings',
    t,
    bundle.recordings,
    (r) =>
      `<li><time>${e(when(r.time))}</time> · <code>${e(r.file_ref)}</code> ${e(r.filename)} · ${e(formatBytes(r.byte_size))} · ${e(
        r.in_cache && r.expires_at !== null
          ? t('evidence.recordings.inCache', { time: when(r.expires_at) })
          : t('evidence.recordings.gone'),
      )}</li>`,
    (rows) => `<p class="note">${e(t('evidence.recordings.note'))}</p><ul>${rows}</ul>`,
  );

  const turnover = section('turnover', t('evidence.turnover.title'), turnoverBody(bundle, t));

  const log = bundle.logcat;
  const logcat = section(
    'logcat',
    t('evidence.logcat.title'),
    !log || log.lines.length === 0
      ? empty(t('evidence.logcat.none'))
      : `${log.dropped_lines > 0 ? `<p class="note">${e(t('evidence.logcat.dropped', { count: log.dropped_lines }))}</p>` : ''}<details><summary>${e(t('evidence.logcat.summary', { count: log.lines.length }))}</summary><pre class="log">${e(log.lines.join('\n'))}</pre></details>`,
  );

  const data = section(
    'data',
    t('evidence.data.title'),
    `<p class="note">${e(t('evidence.data.note'))}</p>
<script type="application/json" id="evidence-json">${jsonForScriptBlock(withoutPictures(bundle))}</script>`,
  );

  return `<!doctype html>
<html lang="${e(locale)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${e(CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${header}
<main>
${timeline}
${holds}
${approvals}
${screenshots}
${crashes}
${recordings}
${turnover}
${logcat}
${data}
</main>
<footer>${e(t('evidence.generated', { time: when(bundle.generated_at) }))}</footer>
</body>
</html>
`;
}

function callRow(c: EvidenceCall, t: Translate): string {
  const e = escapeHtml;
  // The person's and the bridge's own lines read as sentences: they decide nothing and their
  // English reasons repeat the sentence; a tap keeps its point, the others say all in the
  // sentence (a hand-back's note) or in their own section (the reset).
  const sentence = auditSentence(t, c);
  const shown = sentence === null || c.tool_id.startsWith('person_') ? c.arguments : {};
  const who = e(t('evidence.call.decidedBy', { who: whoText(c.decided_by, t) }));
  const decided = sentence === null ? `${e(decisionText(c.decision, t))}, ${who}` : who;
  const reasons = sentence === null || c.error_code ? c.reasons : [];
  const args = Object.entries(shown)
    .map(([key, value]) => `<span class="arg"><span class="key">${e(key)}</span> ${e(argText(value))}</span>`)
    .join(' ');
  const errorKey = c.error_code ? `errors.${c.error_code}` : '';
  const outcome = c.outcome === 'ok' ? t('evidence.call.ok') : t('evidence.call.error');
  return `<li class="call ${c.outcome === 'ok' ? 'ok' : 'error'}">
<time>${e(formatUtc(c.time))}</time>
<span class="tool${sentence !== null && Object.keys(shown).length === 0 ? ' wide' : ''}">${e(sentence ?? `${toolName(c.tool_id, t)}${targetWords(c, t)}`)}</span>
<span class="args">${args}</span>
<span class="outcome">${e(outcome)} · ${e(formatMs(c.duration_ms))} · ${decided}${c.approval_id ? ` · ${e(t('evidence.call.approval', { id: c.approval_id }))}` : ''}</span>
${c.error_code ? `<p class="error"><code>${e(c.error_code)}</code> ${hasMessage(errorKey) ? e(t(errorKey)) : ''}</p>` : ''}
${reasons.length > 0 ? `<ul class="reasons">${reasons.map((r) => `<li>${e(r)}</li>`).join('')}</ul>` : ''}
</li>`;
}

function turnoverBody(bundle: EvidenceBundle, t: Translate): string {
  const e = escapeHtml;
  const r: AdminTurnover | null = bundle.turnover;
  if (!r) return empty(t(bundle.turnover_expected ? 'evidence.turnover.pending' : 'evidence.turnover.none'));
  const list = (items: string[]): string => (items.length === 0 ? '—' : items.join(', '));
  const yesNo = (v: boolean): string => t(v ? 'evidence.turnover.yes' : 'evidence.turnover.no');
  const stateKey = `evidence.turnover.state.${r.state}`;
  const sentence = auditSentence(t, {
    tool_id: 'turnover',
    arguments: { ...r },
    error_code: r.state === 'failed' ? 'turnover_failed' : null,
    reasons: r.problems,
  });
  return `<p class="sentence">${e(sentence ?? '')}</p>
<dl class="turnover">
${row(t('evidence.lease.started'), formatUtc(r.started_at))}
${row(t('evidence.turnover.result'), `${hasMessage(stateKey) ? t(stateKey) : r.state}${r.duration_ms !== null ? ` · ${formatMs(r.duration_ms)}` : ''}`)}
${row(t('evidence.turnover.stoppedApps'), list(r.stopped_apps))}
${row(t('evidence.turnover.removedApps'), list(r.removed_apps))}
${row(t('evidence.turnover.deletedFiles'), list(r.deleted_files))}
${row(t('evidence.turnover.clearedApps'), list(r.cleared_apps))}
${row(t('evidence.turnover.restoredPermissions'), list(r.restored_permissions))}
${row(t('evidence.turnover.clipboard'), yesNo(r.clipboard_cleared))}
${row(t('evidence.turnover.home'), yesNo(r.home_pressed))}
</dl>
${r.problems.length > 0 ? `<p><strong>${e(t('evidence.turnover.problems'))}</strong></p><ul class="problems">${r.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul>` : ''}`;
}

/** Who asked for the phone, as the Bindings screen says it. */
function holderText(holder: NonNullable<EvidenceBundle['lease']['holder']>, t: Translate): string {
  const parts = [holder.requester ?? t('bindings.holder.noName')];
  if (holder.claimed_as) parts.push(t('bindings.holder.claimedAs', { name: holder.claimed_as }));
  if (holder.client_address) parts.push(t('bindings.holder.from', { address: holder.client_address }));
  return parts.join(' · ');
}

/** A decision in words (the Activity screen's), else as the audit wrote it. */
function decisionText(decision: string, t: Translate): string {
  const key = `activity.decision.${decision}`;
  return hasMessage(key) ? t(key) : decision;
}

/** Who decided, in words: the page's own word for the person (read by others than them), else the Activity screen's. */
function whoText(by: string, t: Translate): string {
  const own = `evidence.by.${by}`;
  if (hasMessage(own)) return t(own);
  const activity = `activity.by.${by}`;
  return hasMessage(activity) ? t(activity) : by;
}

/** The tool's name in words (the console's), else its id. */
function toolName(toolId: string, t: Translate): string {
  return toolLabel(t, toolId);
}

/**
 * What the call acted on as the person saw it, kept in its audit line at the call: " on “Save”"
 * for a tap aimed by a ref (whose argument is only `@yl3`), " Notes" for an app opened by its
 * package. Empty when the line kept no words.
 */
function targetWords(c: EvidenceCall, t: Translate): string {
  const label = c.target_label;
  if (!label) return '';
  switch (toolWords(c.tool_id)?.shape) {
    case 'target':
      return ` ${t('actions.on', { label })}`;
    case 'typed':
      return ` ${t('actions.into', { label })}`;
    case 'app':
      return ` ${t('actions.app', { name: label })}`;
    default:
      return '';
  }
}

function argText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > ARG_CHARS ? `${text.slice(0, ARG_CHARS)}…` : text;
}

function row(label: string, value: string): string {
  return `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`;
}

/**
 * The section of one list in the bundle: each item's HTML, one a line, inside `wrap`; the
 * section's "none" line when the list is empty. Its title and that line are
 * evidence.<id>.title and evidence.<id>.empty.
 */
function listSection<T>(
  id: 'timeline' | 'holds' | 'approvals' | 'screenshots' | 'crashes' | 'recordings',
  t: Translate,
  items: readonly T[],
  html: (item: T) => string,
  wrap: (lines: string) => string = (lines) => lines,
): string {
  const body = items.length === 0 ? empty(t(`evidence.${id}.empty`)) : wrap(items.map(html).join('\n'));
  return section(id, t(`evidence.${id}.title`), body);
}

function empty(text: string): string {
  return `<p class="empty">${escapeHtml(text)}</p>`;
}

function img(image: EvidenceImage, alt: string): string {
  // Only the types the bridge writes: anything else in a doctored bundle is not shown.
  if (!PICTURE_TYPES.has(image.mime_type)) return '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(image.base64)) return '';
  return `<img alt="${escapeHtml(alt)}" src="data:${image.mime_type};base64,${image.base64}">`;
}

function withoutPictures(bundle: EvidenceBundle): EvidenceBundle {
  return {
    ...bundle,
    approvals: bundle.approvals.map((a) => ({
      ...a,
      screenshot: a.screenshot ? { ...a.screenshot, base64: '' } : null,
    })),
    screenshots: bundle.screenshots.map((s) => ({ ...s, image: s.image ? { ...s.image, base64: '' } : null })),
  };
}

/** UTC, so the page reads the same wherever it is opened; the console's list of bundles writes the same form. */
function formatUtc(ms: number): string {
  return formatStamp(ms, 'utc');
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--line:#d5dae0;--bg:#fff;--ok:#1a7f37;--err:#c62828;--card:#f5f7fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ed;--muted:#9aa4b0;--line:#3a414a;--bg:#15181c;--ok:#4cc36b;--err:#ef6b6b;--card:#1e2228}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px;font:14px/1.5 system-ui,-apple-system,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.intro,.note,.empty,footer{color:var(--muted)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:12px 0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
ol.timeline{list-style:none;padding:0;margin:0}
li.call{display:grid;grid-template-columns:190px 180px 1fr;gap:2px 12px;padding:6px 8px;border-left:3px solid var(--ok);background:var(--card);margin:4px 0;border-radius:4px}
li.call.error{border-left-color:var(--err)}
li.call time{color:var(--muted);font-variant-numeric:tabular-nums;white-space:nowrap}
li.call .tool{font-weight:600}li.call .tool.wide{grid-column:2/4}
p.sentence{font-weight:600}
li.call .args{overflow-wrap:anywhere}
li.call .outcome,li.call .error,li.call .reasons{grid-column:2/4;margin:0;color:var(--muted)}
li.call .error{color:var(--err)}
.arg{margin-right:10px}.arg .key{color:var(--muted)}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);padding:8px;border-radius:4px}
pre.log{max-height:none}
.shots{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:8px 0}figure.shot{width:260px}figure img{max-width:100%;border:1px solid var(--line);border-radius:4px}
figure.approval img{max-width:360px}
figcaption{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
details summary{cursor:pointer}
footer{margin-top:32px;font-size:12px}
@media (max-width:700px){li.call{grid-template-columns:1fr}li.call .outcome,li.call .error,li.call .reasons,li.call .tool.wide{grid-column:1}}
`;
