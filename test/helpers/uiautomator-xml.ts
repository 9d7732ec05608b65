/**
 * A node of a `uiautomator dump`, as the phone writes it: every attribute present, in the
 * dump's order, defaults for what a test does not set; children make it an open element.
 */
export function uiNodeXml(attrs: Record<string, string>, children = ''): string {
  const all = {
    index: '0',
    text: '',
    'resource-id': '',
    class: 'android.view.View',
    package: 'com.example',
    'content-desc': '',
    checkable: 'false',
    checked: 'false',
    clickable: 'false',
    enabled: 'true',
    focusable: 'false',
    focused: 'false',
    scrollable: 'false',
    'long-clickable': 'false',
    password: 'false',
    selected: 'false',
    bounds: '[0,0][100,100]',
    ...attrs,
  };
  const text = Object.entries(all)
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ');
  return children === '' ? `<node ${text} />` : `<node ${text}>${children}</node>`;
}
