// The resident helper's MJPEG screenshot stream (device port 7810), through the REAL adb
// server: `adb forward` to tcp:7810, the server's exact HTTP/1.0 multipart header, JPEG parts
// at half size by default, mjpegScalingFactor taking effect on later frames, the stream
// closing when the helper is force-stopped, and the port refused while the helper is not
// running. Instant profile: only the server's own framerate cap paces the frames.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startHelperRig, type HelperRig, type Instrumentation } from './helper-kit';

const HEADER =
  'HTTP/1.0 200 OK\r\nServer: Android Screenshot Socket Server\r\nConnection: close\r\nMax-Age: 0\r\nExpires: 0\r\n' +
  'Cache-Control: no-cache, private\r\nPragma: no-cache\r\nContent-Type: multipart/x-mixed-replace; boundary=--BoundaryString\r\n\r\n';
const PART_HEAD = /^--BoundaryString\r\nContent-type: image\/jpg\r\nContent-Length: (\d+)\r\n\r\n/;

/** A client of the stream: checks the wire bytes as they come and hands out whole frames. */
class MjpegClient {
  private bytes = Buffer.alloc(0);
  header: string | undefined;
  readonly frames: Buffer[] = [];
  private readonly changed = new EventTarget();
  private taken = 0;
  readonly closed: Promise<void>;
  private ended = false;
  error: Error | undefined;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, chunk]);
      try {
        this.parse();
      } catch (error) {
        this.error = error instanceof Error ? error : new Error(String(error));
        socket.destroy();
      }
      this.changed.dispatchEvent(new Event('change'));
    });
    this.closed = once(socket, 'close').then(() => {
      this.ended = true;
      this.changed.dispatchEvent(new Event('change'));
    });
  }

  private parse(): void {
    if (this.header === undefined) {
      if (this.bytes.length < HEADER.length) return;
      this.header = this.bytes.subarray(0, HEADER.length).toString('latin1');
      assert.equal(this.header, HEADER);
      this.bytes = this.bytes.subarray(HEADER.length);
    }
    for (;;) {
      const text = this.bytes.subarray(0, 120).toString('latin1');
      const head = PART_HEAD.exec(text);
      if (!head) {
        // Not yet a whole part header: anything that already holds a blank line is a wire error.
        assert.ok(
          !text.includes('\r\n\r\n') && '--BoundaryString'.startsWith(text.slice(0, 16)),
          `bad part start ${JSON.stringify(text)}`,
        );
        return;
      }
      const length = Number(head[1]);
      const start = head[0].length;
      if (this.bytes.length < start + length + 4) return;
      assert.equal(
        this.bytes.subarray(start + length, start + length + 4).toString('latin1'),
        '\r\n\r\n',
        'each JPEG is followed by CRLF CRLF',
      );
      this.frames.push(Buffer.from(this.bytes.subarray(start, start + length)));
      this.bytes = this.bytes.subarray(start + length + 4);
    }
  }

  /** The next frame not handed out yet (waits for it); fails if the stream ends first. */
  async nextFrame(): Promise<Buffer> {
    const signal = AbortSignal.timeout(20_000);
    while (this.frames.length <= this.taken) {
      if (this.error) throw this.error;
      if (this.ended) throw new Error('the stream closed');
      await once(this.changed, 'change', { signal });
    }
    return this.frames[this.taken++] as Buffer;
  }

  async waitHeader(): Promise<string> {
    const signal = AbortSignal.timeout(20_000);
    while (this.header === undefined) {
      if (this.error) throw this.error;
      if (this.ended) throw new Error('the stream closed before its header');
      await once(this.changed, 'change', { signal });
    }
    return this.header;
  }

  close(): void {
    this.socket.destroy();
  }
}

async function open(port: number): Promise<MjpegClient> {
  const socket = connect(port, '127.0.0.1');
  const client = new MjpegClient(socket);
  await once(socket, 'connect');
  socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  return client;
}

async function jpegSize(frame: Buffer): Promise<string> {
  assert.deepEqual([...frame.subarray(0, 2)], [0xff, 0xd8], 'starts with the JPEG SOI marker');
  const meta = await sharp(frame).metadata();
  assert.equal(meta.format, 'jpeg');
  return `${meta.width}x${meta.height}`;
}

void describe('the helper MJPEG screenshot stream on device port 7810', () => {
  let h: HelperRig;
  const clients = new Set<MjpegClient>();
  let instrumentation: Instrumentation | undefined;
  let mjpegPort = 0;
  const openClient = async (): Promise<MjpegClient> => {
    const c = await open(mjpegPort);
    clients.add(c);
    return c;
  };
  before(async () => {
    h = await startHelperRig();
    await h.installHelper();
    const r = await h.adb('forward', 'tcp:0', 'tcp:7810');
    mjpegPort = Number(r.stdout.trim());
    assert.ok(Number.isInteger(mjpegPort) && mjpegPort > 0, r.stdout + r.stderr);
  });
  after(async () => {
    for (const c of clients) c.close();
    instrumentation?.child.kill('SIGKILL');
    await h?.close();
  });

  void test('before the helper starts, tcp:7810 is refused', async () => {
    assert.equal(h.phone.helper.state(), 'stopped');
    assert.equal(h.phone.openTcp?.(7810), undefined);
    const c = await openClient();
    await c.closed;
    assert.equal(c.header, undefined);
    assert.equal(c.frames.length, 0);
  });

  void test('a running helper streams its screen: exact header, JPEG parts at 50 %, settings apply, force-stop closes the stream', async () => {
    instrumentation = await h.startInstrumentation();
    const port = await h.forward();
    assert.equal((await h.waitReady(port)).status, 200);
    assert.ok(h.phone.openTcp?.(7810), 'port 7810 listens while the helper runs');
    h.phone.clearArgvLog();

    const c = await openClient();
    assert.equal(await c.waitHeader(), HEADER);
    for (let i = 0; i < 3; i++) assert.equal(await jpegSize(await c.nextFrame()), '540x1200');
    assert.deepEqual(
      h.phone.argvLog.filter((a) => a[0] === 'helper' && a[1] === 'MJPEG'),
      [['helper', 'MJPEG', '/']],
    );

    // A second client gets its own stream at the same time.
    const second = await openClient();
    assert.equal(await second.waitHeader(), HEADER);
    assert.equal(await jpegSize(await second.nextFrame()), '540x1200');
    assert.equal(h.phone.argvLog.filter((a) => a[0] === 'helper' && a[1] === 'MJPEG').length, 2);

    // mjpegScalingFactor 25: a frame already under way may keep the old size, later ones shrink.
    const id = await h.newSession(port);
    assert.equal(
      (await h.http(port, 'POST', `/session/${id}/appium/settings`, { settings: { mjpegScalingFactor: 25 } })).status,
      200,
    );
    let size = await jpegSize(await c.nextFrame());
    for (let i = 0; i < 3 && size !== '270x600'; i++) size = await jpegSize(await c.nextFrame());
    assert.equal(size, '270x600');
    assert.equal(await jpegSize(await c.nextFrame()), '270x600');

    // force-stop: the process dies and both streams' connections drop.
    const stop = await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    assert.equal(stop.code, 0);
    await Promise.all([c.closed, second.closed]);
    assert.equal(c.error, undefined);
    assert.equal(second.error, undefined);
    assert.equal(h.phone.helper.state(), 'stopped');
    assert.equal(h.phone.openTcp?.(7810), undefined);
    await instrumentation.exited;
    instrumentation = undefined;

    // Refused again once the helper is gone.
    const late = await openClient();
    await late.closed;
    assert.equal(late.header, undefined);
  });
});
