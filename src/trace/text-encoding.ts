/**
 * Text in the Unicode encodings a byte-order mark names: UTF-16 (what PowerShell's `>` writes, and
 * Windows' "Unicode" in Notepad) and UTF-32, little- or big-endian. UTF-8's mark is dropped where
 * text is read (read-input.ts). Without a mark, bytes are read as UTF-8.
 */

/** An encoding told by its byte-order mark, with the mark's length. */
interface MarkedEncoding {
  name: 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';
  markLength: number;
}

/** The encoding a byte-order mark at the start of `bytes` names (UTF-32's before UTF-16's). */
export function encodingOfMark(bytes: Uint8Array): MarkedEncoding | undefined {
  const [b0, b1, b2, b3] = bytes;
  if (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0)
    return { name: 'utf-32le', markLength: 4 };
  if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff)
    return { name: 'utf-32be', markLength: 4 };
  if (b0 === 0xff && b1 === 0xfe) return { name: 'utf-16le', markLength: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { name: 'utf-16be', markLength: 2 };
  return undefined;
}

/** Code points decoded per String.fromCodePoint call (its arguments go on the stack). */
const CHUNK = 8192;

/** UTF-32 text: each four bytes a code point; one that is not a character becomes U+FFFD. */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  const points: number[] = [];
  for (let at = 0; at + 4 <= bytes.byteLength; at += 4) {
    const point = view.getUint32(at, littleEndian);
    points.push(point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff) ? 0xfffd : point);
    if (points.length === CHUNK) parts.push(String.fromCodePoint(...points.splice(0)));
  }
  parts.push(String.fromCodePoint(...points));
  return parts.join('');
}

/** The text of bytes that open with a UTF-16 or UTF-32 byte-order mark (the mark dropped). */
export function decodeMarkedText(bytes: Uint8Array, encoding: MarkedEncoding): string {
  const body = bytes.subarray(encoding.markLength);
  if (encoding.name === 'utf-32le' || encoding.name === 'utf-32be')
    return decodeUtf32(body, encoding.name === 'utf-32le');
  return new TextDecoder(encoding.name).decode(body);
}
