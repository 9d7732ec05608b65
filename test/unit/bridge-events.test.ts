/**
 * The rooms' event bus (events/bridge-events.ts): listeners run in their stage, in the order
 * they subscribed; one that throws does not keep the others from reacting; a stop removes
 * exactly its own subscription.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeEvents, auditSink } from '../../main/core/events/bridge-events';

const leaseEnd = { channelId: 'ch', deviceId: 'd1', reason: 'logout' as const, flowId: 'desktop_approval' };

test('listeners run by stage, then in the order they subscribed', () => {
  const events = new BridgeEvents(() => assert.fail('no listener throws'));
  const heard: string[] = [];
  events.on('leaseEnded', () => heard.push('handover'), 'last');
  events.on('leaseEnded', () => heard.push('tools'));
  events.on('leaseEnded', () => heard.push('evidence'), 'first');
  events.on('leaseEnded', () => heard.push('helper'));
  events.emit('leaseEnded', leaseEnd);
  assert.deepEqual(heard, ['evidence', 'tools', 'helper', 'handover']);
});

test('a listener that throws is reported and the next one still reacts', () => {
  const errors: [unknown, string][] = [];
  const events = new BridgeEvents((error, name) => errors.push([error, name]));
  const heard: string[] = [];
  events.on('deviceChanged', () => {
    throw new Error('room bug');
  });
  events.on('deviceChanged', ({ deviceId }) => heard.push(deviceId));
  events.emit('deviceChanged', { deviceId: 'd1', ready: true });
  assert.deepEqual(heard, ['d1']);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.[1], 'deviceChanged');
  assert.match(String(errors[0]?.[0]), /room bug/);
});

test('a stop removes its own subscription only, and twice is harmless', () => {
  const events = new BridgeEvents(() => undefined);
  const heard: number[] = [];
  const listener = (): void => {
    heard.push(1);
  };
  const first = events.on('handoverChanged', listener);
  events.on('handoverChanged', listener);
  assert.equal(events.listenerCount('handoverChanged'), 2);
  first();
  first();
  assert.equal(events.listenerCount('handoverChanged'), 1);
  events.emit('handoverChanged', { deviceId: 'd1', finished: null });
  assert.deepEqual(heard, [1]);
});

test('a listener added while a fact is told hears the next one', () => {
  const events = new BridgeEvents(() => undefined);
  const heard: string[] = [];
  events.on('limitsChanged', () => {
    events.on('limitsChanged', () => heard.push('late'));
    heard.push('early');
  });
  events.emit('limitsChanged', { changed: { queue_max_depth: 3 } });
  assert.deepEqual(heard, ['early']);
});

test('the audit sink tells the bus a bridgeAction', () => {
  const events = new BridgeEvents(() => undefined);
  const lines: string[] = [];
  events.on('bridgeAction', (line) => lines.push(`${line.deviceId}:${line.action}`));
  auditSink(events)({ deviceId: 'd1', action: 'take_over', code: null, reasons: [] });
  assert.deepEqual(lines, ['d1:take_over']);
});
