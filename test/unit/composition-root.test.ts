/**
 * The composition root reads as a table of contents (issue #38): main/core/create-core.ts stays
 * under 250 lines, and no closure in it holds more than one expression — a reaction of several
 * steps belongs to the room that reacts (its wire.ts), not to the root. Parsed with the
 * TypeScript compiler, so a multi-statement arrow or function expression anywhere in the file
 * fails, with its line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');
const FILE = join(ROOT, 'main/core/create-core.ts');
const MAX_LINES = 250;

/** Every arrow function and function expression whose body is a block of more than one statement. */
function longClosures(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
      ts.isBlock(node.body) &&
      node.body.statements.length > 1
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`line ${line + 1}: ${node.body.statements.length} statements`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`create-core.ts is under ${MAX_LINES} lines`, () => {
  const text = readFileSync(FILE, 'utf8');
  // Counted as `wc -l` does: the newline that ends the last line opens no line of its own.
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  assert.ok(lines < MAX_LINES, `create-core.ts has ${lines} lines; move wiring into the room's wire.ts`);
});

test('no closure in create-core.ts is longer than one expression', () => {
  const source = ts.createSourceFile(FILE, readFileSync(FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  assert.deepEqual(longClosures(source), [], 'a reaction of several steps belongs in its room (wire.ts)');
});

test('the check itself finds a block closure of two statements and passes one expression', () => {
  const sample = ts.createSourceFile(
    'sample.ts',
    'const a = () => 1;\nconst b = () => { one(); two(); };\nconst c = function () { return 1; };\n',
    ts.ScriptTarget.Latest,
    true,
  );
  assert.deepEqual(longClosures(sample), ['line 2: 2 statements']);
});
