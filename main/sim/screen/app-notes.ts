/**
 * com.example.notes: one multi-line note field and a Save button. The saved note survives
 * force-stop (it is restored into the field when the app starts again); saving shows
 * "Saved" beside the button and a "Note saved" toast (LENGTH_SHORT, 2 s).
 */
import type { AppDef } from './app-types';
import { APP_BACKGROUND_RGB, HINT_RGB, NOTES_HEADER_RGB } from './colors';
import { appPage, button, editText, textView } from './app-widgets';
import { rect } from './ui-node';

export const NOTES_PKG = 'com.example.notes';
/** The toast Save shows. */
export const NOTE_SAVED_TOAST = 'Note saved';

export const notesApp: AppDef = {
  pkg: NOTES_PKG,
  label: 'Notes',
  system: false,
  launchable: true,
  header: NOTES_HEADER_RGB,
  background: APP_BACKGROUND_RGB,
  launchScreen: 'main',
  screens: {
    main: {
      activity: 'com.example.notes.MainActivity',
      exported: true,
      onCreate(ctx) {
        const saved = ctx.data.str('saved_note');
        if (saved) ctx.setField('note_text', saved);
      },
      build(ctx) {
        const L = ctx.layout;
        const m = L.margin;
        const fieldTop = L.body.top + m;
        const fieldBottom = fieldTop + L.dp(240);
        const buttonTop = fieldBottom + m;
        const buttonBottom = buttonTop + L.dp(48);
        const body = [
          editText(ctx, rect(m, fieldTop, L.width - m, fieldBottom), {
            id: 'note_text',
            hint: 'Write a note',
            multiline: true,
          }),
          button(L, NOTES_PKG, rect(L.width - m - L.dp(120), buttonTop, L.width - m, buttonBottom), 'Save', {
            id: 'save_button',
            action: 'save',
            color: [0xe6, 0x8a, 0x00],
          }),
        ];
        const status = ctx.entry.state.str('status');
        if (status) {
          body.push(
            textView(L, NOTES_PKG, rect(m, buttonTop, L.width - m - L.dp(136), buttonBottom), status, {
              id: 'status',
              color: HINT_RGB,
            }),
          );
        }
        return appPage(L, NOTES_PKG, 'Notes', NOTES_HEADER_RGB, body);
      },
      onAction(action, ctx) {
        if (action !== 'save') return;
        ctx.data.set('saved_note', ctx.field('note_text').text);
        ctx.entry.state.set('status', 'Saved');
        ctx.toast(NOTE_SAVED_TOAST);
      },
    },
  },
};
