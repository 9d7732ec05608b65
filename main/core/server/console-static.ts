/**
 * Serves the built web console (dist/renderer) at /console/ with a strict CSP. Only files
 * in a fixed allow-list of names are served: no request path reaches the filesystem.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { sendError } from './http-util';

const FILES: Record<string, string> = {
  '/console/': 'index.html',
  '/console/index.html': 'index.html',
  '/console/app.js': 'app.js',
  '/console/app.css': 'app.css',
  '/console/icon.png': 'icon.png',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  png: 'image/png',
};

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function serveConsole(req: IncomingMessage, res: ServerResponse, url: URL, dir: string | undefined): void {
  if (url.pathname === '/console') {
    // Relative, so a reverse proxy's path prefix (/devices/console → /devices/console/) is kept.
    res.writeHead(308, { Location: 'console/' });
    res.end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'method_not_allowed', 'GET only');
  const name = FILES[url.pathname];
  if (!dir || !name)
    return sendError(
      res,
      404,
      'not_found',
      dir ? 'no such console file' : 'the web console is not built (npm run build)',
    );
  const path = join(dir, name);
  if (!existsSync(path)) return sendError(res, 404, 'not_found', 'the web console is not built (npm run build)');
  const body = readFileSync(path);
  res.writeHead(200, {
    'Content-Type': TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
