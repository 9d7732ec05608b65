// Node test reporter: collects failures and prints them once, at the very end of the run.
export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data;
    if (details?.type === 'suite') continue;
    const error = details?.error;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')
      .slice(0, 12)
      .join('\n');
    failed.push(`not ok: ${name}\n  at ${file ?? '?'}:${line ?? '?'}\n  ${message.replaceAll('\n', '\n  ')}`);
  }
  if (failed.length) yield `\n# ${failed.length} failing test(s):\n${failed.join('\n')}\n`;
}
