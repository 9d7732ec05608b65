/**
 * Editing one text field: insert at the cursor (replacing a full selection), delete a
 * code point before/after the cursor, move the cursor. Cursor positions are UTF-16
 * offsets like Android's Editable, but a deletion never splits a surrogate pair.
 */
import type { FieldState } from './app-types';

export function emptyField(): FieldState {
  return { text: '', cursor: 0, allSelected: false };
}

export function setText(field: FieldState, text: string): void {
  field.text = text;
  field.cursor = text.length;
  field.allSelected = false;
}

export function insertText(field: FieldState, text: string): void {
  if (field.allSelected) {
    field.text = '';
    field.cursor = 0;
    field.allSelected = false;
  }
  field.text = field.text.slice(0, field.cursor) + text + field.text.slice(field.cursor);
  field.cursor += text.length;
}

function codePointLengthBefore(text: string, index: number): number {
  const low = text.charCodeAt(index - 1);
  const high = text.charCodeAt(index - 2);
  return index >= 2 && low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
}

function codePointLengthAt(text: string, index: number): number {
  const cp = text.codePointAt(index) ?? 0;
  return cp > 0xffff ? 2 : 1;
}

export function deleteBackward(field: FieldState): void {
  if (field.allSelected) {
    setText(field, '');
    return;
  }
  if (field.cursor === 0) return;
  const n = codePointLengthBefore(field.text, field.cursor);
  field.text = field.text.slice(0, field.cursor - n) + field.text.slice(field.cursor);
  field.cursor -= n;
}

export function deleteForward(field: FieldState): void {
  if (field.allSelected) {
    setText(field, '');
    return;
  }
  if (field.cursor >= field.text.length) return;
  const n = codePointLengthAt(field.text, field.cursor);
  field.text = field.text.slice(0, field.cursor) + field.text.slice(field.cursor + n);
}

export function moveCursor(field: FieldState, to: 'left' | 'right' | 'home' | 'end'): void {
  field.allSelected = false;
  if (to === 'home') field.cursor = 0;
  else if (to === 'end') field.cursor = field.text.length;
  else if (to === 'left' && field.cursor > 0) field.cursor -= codePointLengthBefore(field.text, field.cursor);
  else if (to === 'right' && field.cursor < field.text.length)
    field.cursor += codePointLengthAt(field.text, field.cursor);
}

export function selectAll(field: FieldState): void {
  field.allSelected = field.text.length > 0;
  field.cursor = field.text.length;
}
