// Reading a zip the service wrote (the ACORD archive), without a zip library: enough to list what it holds.

/** File names in a zip, from its central directory. */
export function zipEntries(zip: Buffer): string[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const nameLen = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    names.push(zip.subarray(at + 46, at + 46 + nameLen).toString('utf8'));
    at += 46 + nameLen + extra + comment;
  }
  return names;
}
