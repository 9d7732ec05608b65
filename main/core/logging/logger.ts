/**
 * Logger that never writes a secret: every line passes through a redactor that knows the
 * live secrets (API key, admin token, signing secret, access codes) and masks them, and
 * known sensitive fields are dropped before formatting.
 */
import { replaceFragments } from '../secrets/secret-fragments';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SENSITIVE_KEYS = /^(authorization|api_?key|token|admin_?token|access_?code|password|secret|text|sig)$/i;

export interface LoggerOptions {
  level?: LogLevel;
  /** Returns the secrets that must never appear in output; called per line. */
  secrets?: () => readonly string[];
  write?: (line: string) => void;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Long pieces of a secret too (a field after a Backspace, a keystroke log): secret-fragments.ts.
  const longFirst = [...secrets].filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  for (const secret of longFirst) out = out.split(secret).join('[redacted]');
  for (const secret of longFirst) out = replaceFragments(out, secret, '[redacted]');
  return out.replace(/([?&]sig=)[A-Za-z0-9_-]+/g, '$1[redacted]').replace(/(Bearer\s+)\S+/gi, '$1[redacted]');
}

function scrubFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = SENSITIVE_KEYS.test(key) ? '[redacted]' : value;
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secrets = options.secrets ?? (() => []);
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < min) return;
    let extra = '';
    if (fields && Object.keys(fields).length > 0) {
      try {
        extra = ` ${JSON.stringify(scrubFields(fields))}`;
      } catch {
        extra = ' {"fields":"unserializable"}';
      }
    }
    write(redact(`${new Date().toISOString()} ${level} ${message}${extra}`, secrets()));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLogger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
