/**
 * Every word the UI shows comes from the catalogue (main/contract/i18n): this test reads every
 * component under renderer/src with the TypeScript compiler and fails on
 *   - JSX text with letters (Latin or CJK), outside <code>/<kbd>/<pre>, and
 *   - string literals with letters shown through JSX: children expressions such as
 *     {busy ? 'Saving…' : 'Save'} and the user-visible attributes (title, placeholder,
 *     aria-label, alt, label, prompt, confirmLabel),
 * except a short allow-list of words that are not language (ADB, USB, xAgent …). It also
 * fails when a t('…') key (in .tsx and .ts) is not in the catalogue.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { catalogue, hasMessage } from '../../main/contract/i18n';

const ROOT = join(__dirname, '..', '..');
const RENDERER = join(ROOT, 'renderer', 'src');

/** Not language: names of things, protocols and formats, shown as they are in every language. */
const ALLOWED = new Set(['ADB', 'USB', 'LAN', 'xAgent', 'TLS', 'HTTP', 'HTTPS', 'JSON', 'API', 'Android', 'SHA-256']);
/** Example values in placeholders: package names, host names. */
const CODE_LIKE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+(\n[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+)*$/;
const LETTER = /[\p{L}]/u;
const VISIBLE_ATTRIBUTES = new Set([
  'title',
  'placeholder',
  'aria-label',
  'alt',
  'label',
  'prompt',
  'confirmLabel',
  'aria-description',
]);
const CODE_ELEMENTS = new Set(['code', 'kbd', 'pre', 'samp']);

function sourceFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full, ext));
    else if (name.endsWith(ext)) out.push(full);
  }
  return out.sort();
}

function isLinguistic(text: string): boolean {
  const trimmed = text.trim();
  if (!LETTER.test(trimmed)) return false;
  if (ALLOWED.has(trimmed) || CODE_LIKE.test(trimmed)) return false;
  return true;
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

function tagName(node: ts.JsxElement | ts.JsxSelfClosingElement): string {
  const tag = ts.isJsxElement(node) ? node.openingElement.tagName : node.tagName;
  return tag.getText();
}

/** The string literals an expression would put on screen (call arguments are not: t('key')). */
function shownStrings(expression: ts.Expression, out: ts.Node[]): void {
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) out.push(expression);
  else if (ts.isTemplateExpression(expression)) {
    out.push(expression.head);
    for (const span of expression.templateSpans) {
      out.push(span.literal);
      shownStrings(span.expression, out);
    }
  } else if (ts.isConditionalExpression(expression)) {
    shownStrings(expression.whenTrue, out);
    shownStrings(expression.whenFalse, out);
  } else if (ts.isBinaryExpression(expression)) {
    shownStrings(expression.left, out);
    shownStrings(expression.right, out);
  } else if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression))
    shownStrings(expression.expression, out);
}

function literalText(node: ts.Node): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) return node.text;
  return node.getText();
}

/** Inline strings in one .tsx source. */
export function inlineStrings(fileName: string, text: string): Finding[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const findings: Finding[] = [];
  const report = (node: ts.Node, shown: string): void => {
    findings.push({
      file: fileName,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      text: shown.trim().slice(0, 80),
    });
  };
  const checkExpression = (expression: ts.Expression): void => {
    const strings: ts.Node[] = [];
    shownStrings(expression, strings);
    for (const node of strings) {
      const shown = literalText(node);
      if (isLinguistic(shown)) report(node, shown);
    }
  };
  const visit = (node: ts.Node, inCode: boolean): void => {
    let code = inCode;
    if ((ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node)) && CODE_ELEMENTS.has(tagName(node))) code = true;
    if (ts.isJsxText(node) && !code && isLinguistic(node.text)) report(node, node.text);
    if (ts.isJsxExpression(node) && node.expression && !code) {
      const parent = node.parent;
      const child = ts.isJsxElement(parent) || ts.isJsxFragment(parent);
      const attribute = ts.isJsxAttribute(parent) && VISIBLE_ATTRIBUTES.has(parent.name.getText());
      if (child || attribute) checkExpression(node.expression);
    }
    if (
      ts.isJsxAttribute(node) &&
      VISIBLE_ATTRIBUTES.has(node.name.getText()) &&
      node.initializer &&
      ts.isStringLiteral(node.initializer)
    ) {
      if (isLinguistic(node.initializer.text)) report(node.initializer, node.initializer.text);
    }
    ts.forEachChild(node, (childNode) => visit(childNode, code));
  };
  visit(source, false);
  return findings;
}

/** t('key') and t(`prefix.${x}`) calls whose key (or prefix) is not in the catalogue. */
export function unknownKeys(fileName: string, text: string): Finding[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const allKeys = Object.entries(catalogue).flatMap(([area, messages]) =>
    Object.keys(messages.en).map((key) => `${area}.${key}`),
  );
  const findings: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 't') {
      const arg = node.arguments[0];
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) && !hasMessage(arg.text)) {
        findings.push({ file: fileName, line, text: arg.text });
      }
      if (arg && ts.isTemplateExpression(arg) && !allKeys.some((key) => key.startsWith(arg.head.text))) {
        findings.push({ file: fileName, line, text: `${arg.head.text}…` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

const show = (findings: Finding[]): string =>
  findings.map((f) => `${relative(ROOT, f.file)}:${f.line}  ${JSON.stringify(f.text)}`).join('\n');

void describe('no inline strings in components', () => {
  void test('every .tsx under renderer/src takes its words from the catalogue', () => {
    const files = sourceFiles(RENDERER, '.tsx');
    assert.ok(files.length > 20, `expected the renderer's components, found ${files.length} files`);
    const findings = files.flatMap((file) => inlineStrings(file, readFileSync(file, 'utf8')));
    assert.equal(
      findings.length,
      0,
      `write these through useT() and the catalogue (main/contract/i18n/messages):\n${show(findings)}`,
    );
  });

  void test('every t() key used in renderer/src is in the catalogue', () => {
    const files = [...sourceFiles(RENDERER, '.tsx'), ...sourceFiles(RENDERER, '.ts')];
    const findings = files.flatMap((file) => unknownKeys(file, readFileSync(file, 'utf8')));
    assert.equal(findings.length, 0, `keys missing from the catalogue:\n${show(findings)}`);
  });

  void test('the scanner itself catches text, attributes and shown literals, and lets names, code and keys through', () => {
    const sample = `
      export function X(p: { busy: boolean }) {
        const { t } = useT();
        return (
          <div title="Hover text" data-testid="not-visible">
            Plain words
            <span aria-label={\`Count \${p.busy}\`}>{p.busy ? 'Saving…' : t('common.save')}</span>
            <b>设备</b>
            <code>adb start-server</code>
            <span>ADB</span> · 42 · {'USB'}
            <input placeholder="com.example.bank" />
            {t('common.cancel')}{t('common.noSuchKey')}
          </div>
        );
      }`;
    const found = inlineStrings('sample.tsx', sample).map((f) => f.text);
    assert.deepEqual(found.sort(), ['Count', 'Hover text', 'Plain words', 'Saving…', '设备'].sort());
    assert.deepEqual(
      unknownKeys('sample.tsx', sample).map((f) => f.text),
      ['common.noSuchKey'],
    );
  });
});
