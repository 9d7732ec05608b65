/**
 * Reads what Android's package manager reads first from an APK: the zip's central directory,
 * then `AndroidManifest.xml` in its compiled (binary XML) form — the package name, version
 * code and name, and any <instrumentation> it declares. Written from the public formats
 * (PKWARE APPNOTE for the zip; AOSP `ResourceTypes.h` for ResChunk_header, ResStringPool and
 * ResXMLTree_attrExt). Anything that does not parse gives undefined, never an exception: the
 * simulated `pm install` then keeps its old behaviour for made-up test APKs.
 */
import { inflateRawSync } from 'node:zlib';

export interface ApkInstrumentation {
  /** Class name as declared (may start with '.'). */
  name: string;
  targetPackage: string;
}

export interface ApkManifest {
  package: string;
  versionCode: number;
  versionName: string | undefined;
  instrumentation: ApkInstrumentation[];
  /** `<uses-sdk android:minSdkVersion>`; undefined when the manifest has none. */
  minSdk: number | undefined;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const MANIFEST_NAME = 'AndroidManifest.xml';
/** The manifest is small; a bigger one is not something we should inflate. */
const MAX_MANIFEST_BYTES = 8 * 1024 * 1024;

/** The stored or deflated bytes of one entry of a zip, or undefined. */
export function readZipEntry(zip: Buffer, wanted: string): Buffer | undefined {
  if (zip.length < 22) return undefined;
  const stop = Math.max(0, zip.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = zip.length - 22; i >= stop; i--) {
    if (zip.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const entries = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_SIGNATURE) return undefined;
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== wanted) continue;
    if (size > MAX_MANIFEST_BYTES || localOffset + 30 > zip.length || zip.readUInt32LE(localOffset) !== LOCAL_SIGNATURE)
      return undefined;
    const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (data.length !== compressedSize) return undefined;
    if (method === 0) return data;
    if (method !== 8) return undefined;
    try {
      return inflateRawSync(data, { maxOutputLength: MAX_MANIFEST_BYTES });
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const RES_STRING_POOL_TYPE = 0x0001;
const RES_XML_TYPE = 0x0003;
const RES_XML_START_ELEMENT_TYPE = 0x0102;
const RES_XML_RESOURCE_MAP_TYPE = 0x0180;
const UTF8_FLAG = 0x100;
const TYPE_STRING = 0x03;
const TYPE_INT_DEC = 0x10;
const TYPE_INT_HEX = 0x11;
const NO_INDEX = 0xffffffff;

/** android.R.attr ids, for manifests whose attribute names were stripped. */
const ATTR_IDS: Record<number, string> = {
  0x0101021b: 'versionCode',
  0x0101021c: 'versionName',
  0x01010003: 'name',
  0x01010021: 'targetPackage',
  0x0101020c: 'minSdkVersion',
};

function readStringPool(xml: Buffer, start: number): string[] {
  const count = xml.readUInt32LE(start + 8);
  const flags = xml.readUInt32LE(start + 16);
  const stringsStart = start + xml.readUInt32LE(start + 20);
  const headerSize = xml.readUInt16LE(start + 2);
  const utf8 = (flags & UTF8_FLAG) !== 0;
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    let at = stringsStart + xml.readUInt32LE(start + headerSize + i * 4);
    if (utf8) {
      // UTF-16 length (1 or 2 bytes), then UTF-8 byte length (1 or 2 bytes), then the bytes.
      at += (xml.readUInt8(at) & 0x80) !== 0 ? 2 : 1;
      let bytes = xml.readUInt8(at);
      if ((bytes & 0x80) !== 0) {
        bytes = ((bytes & 0x7f) << 8) | xml.readUInt8(at + 1);
        at += 2;
      } else at += 1;
      strings.push(xml.toString('utf8', at, at + bytes));
    } else {
      let units = xml.readUInt16LE(at);
      if ((units & 0x8000) !== 0) {
        units = ((units & 0x7fff) << 16) | xml.readUInt16LE(at + 2);
        at += 4;
      } else at += 2;
      strings.push(xml.toString('utf16le', at, at + units * 2));
    }
  }
  return strings;
}

interface XmlElement {
  name: string;
  attrs: Map<string, string | number>;
}

/** The start elements of a compiled XML document, in order, with their typed attributes. */
function readElements(xml: Buffer): XmlElement[] | undefined {
  if (xml.length < 8 || xml.readUInt16LE(0) !== RES_XML_TYPE) return undefined;
  let strings: string[] = [];
  let resourceIds: number[] = [];
  const elements: XmlElement[] = [];
  let at = xml.readUInt16LE(2);
  while (at + 8 <= xml.length) {
    const type = xml.readUInt16LE(at);
    const headerSize = xml.readUInt16LE(at + 2);
    const size = xml.readUInt32LE(at + 4);
    if (size < 8 || at + size > xml.length) return undefined;
    if (type === RES_STRING_POOL_TYPE) strings = readStringPool(xml, at);
    else if (type === RES_XML_RESOURCE_MAP_TYPE) {
      resourceIds = [];
      for (let p = at + headerSize; p + 4 <= at + size; p += 4) resourceIds.push(xml.readUInt32LE(p));
    } else if (type === RES_XML_START_ELEMENT_TYPE) {
      const ext = at + headerSize;
      const name = strings[xml.readUInt32LE(ext + 4)] ?? '';
      const attributeStart = xml.readUInt16LE(ext + 8);
      const attributeSize = xml.readUInt16LE(ext + 10);
      const attributeCount = xml.readUInt16LE(ext + 12);
      const attrs = new Map<string, string | number>();
      for (let i = 0; i < attributeCount; i++) {
        const a = ext + attributeStart + i * attributeSize;
        const nameIndex = xml.readUInt32LE(a + 4);
        const rawValue = xml.readUInt32LE(a + 8);
        const dataType = xml.readUInt8(a + 15);
        const data = xml.readUInt32LE(a + 16);
        const attrName = strings[nameIndex] || ATTR_IDS[resourceIds[nameIndex] ?? 0] || '';
        if (dataType === TYPE_STRING) attrs.set(attrName, strings[data] ?? '');
        else if (dataType === TYPE_INT_DEC || dataType === TYPE_INT_HEX) attrs.set(attrName, data | 0);
        else if (rawValue !== NO_INDEX) attrs.set(attrName, strings[rawValue] ?? '');
      }
      elements.push({ name, attrs });
    }
    at += size;
  }
  return elements;
}

/** Package, version and instrumentation of an APK; undefined when it has no readable manifest. */
export function readApkManifest(apk: Buffer): ApkManifest | undefined {
  try {
    const xml = readZipEntry(apk, MANIFEST_NAME);
    if (!xml) return undefined;
    const elements = readElements(xml);
    const manifest = elements?.find((e) => e.name === 'manifest');
    const pkg = manifest?.attrs.get('package');
    if (!manifest || typeof pkg !== 'string' || !/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/.test(pkg)) return undefined;
    const versionCode = manifest.attrs.get('versionCode');
    const versionName = manifest.attrs.get('versionName');
    const instrumentation = (elements ?? [])
      .filter((e) => e.name === 'instrumentation')
      .flatMap((e) => {
        const name = e.attrs.get('name');
        const target = e.attrs.get('targetPackage');
        return typeof name === 'string' && typeof target === 'string' ? [{ name, targetPackage: target }] : [];
      });
    const minSdk = (elements ?? []).find((e) => e.name === 'uses-sdk')?.attrs.get('minSdkVersion');
    return {
      minSdk: typeof minSdk === 'number' ? minSdk : undefined,
      package: pkg,
      versionCode: typeof versionCode === 'number' ? versionCode : 0,
      versionName: versionName === undefined ? undefined : String(versionName),
      instrumentation,
    };
  } catch {
    // A truncated or hostile file: reads past the end throw RangeError. Not an APK we know.
    return undefined;
  }
}
