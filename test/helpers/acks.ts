/**
 * Reading a tool call's ack in a test: the result of a call that must have succeeded, with
 * the error (code and message) in the failure message when it did not.
 */
import assert from 'node:assert/strict';
import type { Packet } from './xagent-client';

/** What `invoke` resolves with: a `tool.invoke` ack. */
export type Ack = Packet;
/** A tool's result as a test reads it: loosely typed on purpose, the assertions check it. */
export type Json = Record<string, any>;

/** The result of a call that must have succeeded. */
export function result(ack: Pick<Packet, 'error' | 'payload'>): Json {
  assert.equal(ack.error, undefined, JSON.stringify(ack.error));
  return ack.payload?.result as Json;
}
