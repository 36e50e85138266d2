// A generated declarations page whose carrier is printed only in a logo image in its header band.
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

/** A declarations page whose carrier appears only in a logo image in the header; the body is a text layer. */
export async function logoPdf(brand: string): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="220"><rect width="900" height="220" fill="white"/>
    <circle cx="90" cy="110" r="70" fill="#1a3a8a"/>
    <text x="190" y="110" font-family="sans-serif" font-weight="bold" font-size="84" fill="#1a3a8a">${brand}</text>
    <text x="200" y="185" font-family="sans-serif" font-size="52" fill="#c0102a">INSURANCE</text></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawImage(await doc.embedPng(png), { x: 400, y: 792 - 20 - 44, width: 180, height: 44 });
  page.drawText('Auto Insurance Declarations', { x: 40, y: 792 - 50, size: 16, font });
  const body = [
    'Policy Number: 77-AB-120934',
    'Policy Period: 03/01/2024 to 09/01/2024',
    'Named Insured: Dana Whitfield',
    '12 Orchard Lane, Springfield IL 62704',
    'Bodily Injury Liability $100,000 each person $300,000 each accident',
    'Property Damage Liability $100,000 each accident',
  ];
  body.forEach((l, i) => page.drawText(l, { x: 40, y: 792 - 180 - i * 18, size: 10, font }));
  return doc.save();
}
