/**
 * The words a call's target is remembered by (the audit line, the timeline, the evidence
 * bundle): a button's text or an app's name, never the text typed into a field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetLabelOf } from '../../main/core/tools/element-words';

test('a button is named by its text, an app by its launcher name', () => {
  assert.equal(targetLabelOf({ element: { text: 'Save', content_desc: '', class: 'android.widget.Button' } }), 'Save');
  assert.equal(targetLabelOf({ app_label: 'Wallet', package: 'com.example.wallet' }), 'Wallet');
  assert.equal(
    targetLabelOf({ element: { text: '', content_desc: 'Back', class: 'android.widget.ImageButton' } }),
    'Back',
  );
});

test("a text field's text is what someone typed: never taken, the field's description is", () => {
  const typed = 'Call Grandma back at 555-0143';
  assert.equal(targetLabelOf({ element: { text: typed, content_desc: '', class: 'android.widget.EditText' } }), null);
  assert.equal(
    targetLabelOf({
      element: { text: typed, content_desc: 'Note text', class: 'androidx.appcompat.widget.AppCompatEditText' },
    }),
    'Note text',
  );
  assert.equal(
    targetLabelOf({ element: { text: typed, content_desc: '', class: 'android.widget.AutoCompleteTextView' } }),
    null,
  );
});

test('long words are cut, empty ones name nothing', () => {
  const label = targetLabelOf({ element: { text: 'x'.repeat(200), class: 'android.widget.TextView' } });
  assert.equal(label?.length, 80);
  assert.equal(targetLabelOf({ element: { text: '  ', content_desc: '', class: 'android.widget.TextView' } }), null);
  assert.equal(targetLabelOf({ status: 'tapped' }), null);
});
