/**
 * scrcpy-server 3.3.1's control socket, both ways: the messages the bridge sends
 * (server/…/control/ControlMessageReader.java reads them) and the ones the server sends back
 * (DeviceMessageWriter.java). Big-endian throughout, as Java's DataInputStream reads.
 *
 * Written here rather than taken from `@yume-chan/scrcpy`: that package is ESM-only, which the
 * bridge's CommonJS main process on Node 20 / Electron cannot `require`, and the part needed is
 * small (seven message shapes). Its option classes were read to cross-check the layouts.
 *
 * The one rule: with `video=false` the server has no display mapping, so a touch's x and y are
 * the phone's own pixels on display 0, and the screen size the message carries is not checked
 * (Controller.getEventPointAndDisplayId: "No display, use the raw coordinates").
 */

/** ControlMessage.TYPE_*: the ones the bridge sends. */
export const CONTROL_TYPE = {
  injectKeycode: 0,
  injectText: 1,
  injectTouch: 2,
  injectScroll: 3,
  backOrScreenOn: 4,
  getClipboard: 8,
  setClipboard: 9,
  startApp: 16,
} as const;

/** DeviceMessage.TYPE_*. */
export const DEVICE_TYPE = { clipboard: 0, ackClipboard: 1, uhidOutput: 2 } as const;

/** MotionEvent / KeyEvent actions. */
export const ACTION = { down: 0, up: 1, move: 2 } as const;

/** control_msg.h: a finger that is not the mouse (-2, POINTER_ID_GENERIC_FINGER). */
export const POINTER_GENERIC_FINGER = -2n;
/** 256 KiB: the largest message the server reads; a clipboard text gets that less its 14 header bytes. */
export const MESSAGE_MAX_BYTES = 1 << 18;
export const CLIPBOARD_TEXT_MAX_BYTES = MESSAGE_MAX_BYTES - 14;
/** What scrcpy's own client sends at most per INJECT_TEXT (SC_CONTROL_MSG_INJECT_TEXT_MAX_LENGTH). */
export const INJECT_TEXT_MAX_BYTES = 300;
/** START_APP's name has a one-byte length. */
export const START_APP_NAME_MAX_BYTES = 255;

export type ControlMessage =
  | { type: 'key'; action: number; keycode: number; repeat: number; metaState: number }
  | {
      type: 'touch';
      action: number;
      pointerId: bigint;
      x: number;
      y: number;
      screenWidth: number;
      screenHeight: number;
      /** 0..1. */
      pressure: number;
      actionButton: number;
      buttons: number;
    }
  | {
      type: 'scroll';
      x: number;
      y: number;
      screenWidth: number;
      screenHeight: number;
      h: number;
      v: number;
      buttons: number;
    }
  | { type: 'text'; text: string }
  | { type: 'getClipboard'; copyKey: number }
  | { type: 'setClipboard'; sequence: bigint; paste: boolean; text: string }
  | { type: 'startApp'; name: string };

export type DeviceMessage = { type: 'clipboard'; text: string } | { type: 'ackClipboard'; sequence: bigint };

/** Binary.floatToU16FixedPoint: 1.0 is 0xffff. */
function u16Fixed(value: number): number {
  const clamped = Math.min(1, Math.max(0, value));
  return clamped >= 1 ? 0xffff : Math.floor(clamped * 0x10000);
}

/** Binary.floatToI16FixedPoint over [-16, 16] (the reader multiplies by 16). */
function i16Fixed(value: number): number {
  const clamped = Math.min(1, Math.max(-1, value / 16));
  return clamped >= 1 ? 0x7fff : Math.trunc(clamped * 0x8000);
}

function position(
  buf: Buffer,
  at: number,
  m: { x: number; y: number; screenWidth: number; screenHeight: number },
): number {
  buf.writeInt32BE(Math.round(m.x), at);
  buf.writeInt32BE(Math.round(m.y), at + 4);
  buf.writeUInt16BE(Math.min(0xffff, Math.max(0, m.screenWidth)), at + 8);
  buf.writeUInt16BE(Math.min(0xffff, Math.max(0, m.screenHeight)), at + 10);
  return at + 12;
}

/** One control message as the server reads it; throws RangeError for a text longer than it accepts. */
export function encodeControlMessage(m: ControlMessage): Buffer {
  switch (m.type) {
    case 'key': {
      const buf = Buffer.alloc(14);
      buf.writeUInt8(CONTROL_TYPE.injectKeycode, 0);
      buf.writeUInt8(m.action, 1);
      buf.writeInt32BE(m.keycode, 2);
      buf.writeInt32BE(m.repeat, 6);
      buf.writeInt32BE(m.metaState, 10);
      return buf;
    }
    case 'touch': {
      const buf = Buffer.alloc(32);
      buf.writeUInt8(CONTROL_TYPE.injectTouch, 0);
      buf.writeUInt8(m.action, 1);
      buf.writeBigInt64BE(m.pointerId, 2);
      let at = position(buf, 10, m);
      buf.writeUInt16BE(u16Fixed(m.pressure), at);
      at += 2;
      buf.writeInt32BE(m.actionButton, at);
      buf.writeInt32BE(m.buttons, at + 4);
      return buf;
    }
    case 'scroll': {
      const buf = Buffer.alloc(21);
      buf.writeUInt8(CONTROL_TYPE.injectScroll, 0);
      const at = position(buf, 1, m);
      buf.writeInt16BE(i16Fixed(m.h), at);
      buf.writeInt16BE(i16Fixed(m.v), at + 2);
      buf.writeInt32BE(m.buttons, at + 4);
      return buf;
    }
    case 'text': {
      const text = Buffer.from(m.text, 'utf8');
      if (text.length > INJECT_TEXT_MAX_BYTES)
        throw new RangeError(`injected text is ${text.length} bytes; scrcpy sends at most ${INJECT_TEXT_MAX_BYTES}`);
      const head = Buffer.alloc(5);
      head.writeUInt8(CONTROL_TYPE.injectText, 0);
      head.writeUInt32BE(text.length, 1);
      return Buffer.concat([head, text]);
    }
    case 'getClipboard':
      return Buffer.from([CONTROL_TYPE.getClipboard, m.copyKey]);
    case 'setClipboard': {
      const text = Buffer.from(m.text, 'utf8');
      if (text.length > CLIPBOARD_TEXT_MAX_BYTES)
        throw new RangeError(
          `clipboard text is ${text.length} bytes; scrcpy-server takes at most ${CLIPBOARD_TEXT_MAX_BYTES}`,
        );
      const head = Buffer.alloc(14);
      head.writeUInt8(CONTROL_TYPE.setClipboard, 0);
      head.writeBigInt64BE(m.sequence, 1);
      head.writeUInt8(m.paste ? 1 : 0, 9);
      head.writeUInt32BE(text.length, 10);
      return Buffer.concat([head, text]);
    }
    case 'startApp': {
      const name = Buffer.from(m.name, 'utf8');
      if (name.length > START_APP_NAME_MAX_BYTES)
        throw new RangeError('an app name for scrcpy-server is at most 255 bytes');
      return Buffer.concat([Buffer.from([CONTROL_TYPE.startApp, name.length]), name]);
    }
  }
}

/**
 * Reads whole control messages from the front of `data` (the simulated server's side); returns
 * them and how many bytes they used. An unknown type is an error, as ControlProtocolException is.
 */
export function decodeControlMessages(data: Buffer): { messages: ControlMessage[]; used: number } {
  const messages: ControlMessage[] = [];
  let at = 0;
  for (;;) {
    const m = decodeOne(data, at);
    if (!m) return { messages, used: at };
    messages.push(m.message);
    at = m.next;
  }
}

function decodeOne(d: Buffer, at: number): { message: ControlMessage; next: number } | undefined {
  if (d.length <= at) return undefined;
  const type = d.readUInt8(at);
  const need = (n: number): boolean => d.length >= at + n;
  const pos = (p: number): { x: number; y: number; screenWidth: number; screenHeight: number } => ({
    x: d.readInt32BE(p),
    y: d.readInt32BE(p + 4),
    screenWidth: d.readUInt16BE(p + 8),
    screenHeight: d.readUInt16BE(p + 10),
  });
  switch (type) {
    case CONTROL_TYPE.injectKeycode:
      if (!need(14)) return undefined;
      return {
        message: {
          type: 'key',
          action: d.readUInt8(at + 1),
          keycode: d.readInt32BE(at + 2),
          repeat: d.readInt32BE(at + 6),
          metaState: d.readInt32BE(at + 10),
        },
        next: at + 14,
      };
    case CONTROL_TYPE.injectTouch: {
      if (!need(32)) return undefined;
      const raw = d.readUInt16BE(at + 22);
      return {
        message: {
          type: 'touch',
          action: d.readUInt8(at + 1),
          pointerId: d.readBigInt64BE(at + 2),
          ...pos(at + 10),
          pressure: raw === 0xffff ? 1 : raw / 0x10000,
          actionButton: d.readInt32BE(at + 24),
          buttons: d.readInt32BE(at + 28),
        },
        next: at + 32,
      };
    }
    case CONTROL_TYPE.injectScroll:
      if (!need(21)) return undefined;
      return {
        message: {
          type: 'scroll',
          ...pos(at + 1),
          h: (d.readInt16BE(at + 13) / 0x8000) * 16,
          v: (d.readInt16BE(at + 15) / 0x8000) * 16,
          buttons: d.readInt32BE(at + 17),
        },
        next: at + 21,
      };
    case CONTROL_TYPE.injectText: {
      if (!need(5)) return undefined;
      const length = d.readUInt32BE(at + 1);
      if (length > MESSAGE_MAX_BYTES) throw new Error(`text too long: ${length}`);
      if (!need(5 + length)) return undefined;
      return {
        message: { type: 'text', text: d.subarray(at + 5, at + 5 + length).toString('utf8') },
        next: at + 5 + length,
      };
    }
    case CONTROL_TYPE.getClipboard:
      if (!need(2)) return undefined;
      return { message: { type: 'getClipboard', copyKey: d.readUInt8(at + 1) }, next: at + 2 };
    case CONTROL_TYPE.setClipboard: {
      if (!need(14)) return undefined;
      const length = d.readUInt32BE(at + 10);
      if (length > CLIPBOARD_TEXT_MAX_BYTES) throw new Error(`clipboard text too long: ${length}`);
      if (!need(14 + length)) return undefined;
      return {
        message: {
          type: 'setClipboard',
          sequence: d.readBigInt64BE(at + 1),
          paste: d.readUInt8(at + 9) !== 0,
          text: d.subarray(at + 14, at + 14 + length).toString('utf8'),
        },
        next: at + 14 + length,
      };
    }
    case CONTROL_TYPE.startApp: {
      if (!need(2)) return undefined;
      const length = d.readUInt8(at + 1);
      if (!need(2 + length)) return undefined;
      return {
        message: { type: 'startApp', name: d.subarray(at + 2, at + 2 + length).toString('utf8') },
        next: at + 2 + length,
      };
    }
    default:
      throw new Error(`Unknown event type: ${type}`);
  }
}

export function encodeDeviceMessage(m: DeviceMessage): Buffer {
  if (m.type === 'ackClipboard') {
    const buf = Buffer.alloc(9);
    buf.writeUInt8(DEVICE_TYPE.ackClipboard, 0);
    buf.writeBigInt64BE(m.sequence, 1);
    return buf;
  }
  const text = Buffer.from(m.text, 'utf8');
  const head = Buffer.alloc(5);
  head.writeUInt8(DEVICE_TYPE.clipboard, 0);
  head.writeUInt32BE(text.length, 1);
  return Buffer.concat([head, text]);
}

/** Whole device messages from the front of `data`; UHID output is skipped (the bridge creates no UHID device). */
export function decodeDeviceMessages(data: Buffer): { messages: DeviceMessage[]; used: number } {
  const messages: DeviceMessage[] = [];
  let at = 0;
  for (;;) {
    if (data.length <= at) break;
    const type = data.readUInt8(at);
    if (type === DEVICE_TYPE.ackClipboard) {
      if (data.length < at + 9) break;
      messages.push({ type: 'ackClipboard', sequence: data.readBigInt64BE(at + 1) });
      at += 9;
    } else if (type === DEVICE_TYPE.clipboard) {
      if (data.length < at + 5) break;
      const length = data.readUInt32BE(at + 1);
      if (data.length < at + 5 + length) break;
      messages.push({ type: 'clipboard', text: data.subarray(at + 5, at + 5 + length).toString('utf8') });
      at += 5 + length;
    } else if (type === DEVICE_TYPE.uhidOutput) {
      if (data.length < at + 5) break;
      const length = data.readUInt16BE(at + 3);
      if (data.length < at + 5 + length) break;
      at += 5 + length;
    } else {
      throw new Error(`scrcpy-server sent an unknown message type ${type}`);
    }
  }
  return { messages, used: at };
}
