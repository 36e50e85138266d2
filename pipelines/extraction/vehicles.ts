// Vehicles and drivers on auto declarations: VINs (exact, or loose in a VIN column), year/make/model, and the
// driver schedule.
import type { PageText, Line } from '../documents/layout.ts';
import type { Emit } from './kinds/types.ts';
import { cellsBelow } from './layout_query.ts';
import { cleanValue, splitPersonName } from './normalise.ts';

const VIN = /\b([A-HJ-NPR-Z0-9]{17})\b/; // no I, O or Q in a VIN
/** A VIN as some printed pages show it (anonymised samples: an O or I inside, 16 or 18 characters). Only read in a VIN context. */
const LOOSE_VIN = /(?<![A-Z0-9])([A-Z0-9]{16,18})(?![A-Z0-9])/g;
const VIN_HEADER = /^(?:vin|v\.i\.n\.?|vehicle\s+id(?:entification)?\s+(?:number|no\.?|#)(?:\s*\(vin\))?|identification\s+number(?:\s*\(vin\))?)$/i;
const YEAR_MAKE = /^(?:\d{1,2}\s+)?(19[5-9]\d|20[0-4]\d)\s+[A-Z][A-Za-z-]+/;
const looseVinShape = (s: string) => (s.match(/\d/g) ?? []).length >= 4 && (s.match(/[A-Z]/g) ?? []).length >= 2 && !/^\d+[A-Z]?$/.test(s);

/**
 * The VIN on a line: a well-formed 17-character VIN anywhere, or a looser one (16–18 characters, any letter) where the
 * page says it is a VIN: after a "VIN" label, in the column under a VIN header, or on a line that starts with a year and make.
 */
function vinOnLine(line: Line, vinColumns: number[]): string | undefined {
  const up = line.text.toUpperCase();
  const strict = VIN.exec(up);
  if (strict && /\d/.test(strict[1]) && /[A-Z]/.test(strict[1])) return strict[1];
  const labelled = /\bVIN\b\s*(?:#|no\.?|number)?\s*:?\s*([A-Z0-9]{16,18})(?![A-Z0-9])/.exec(up);
  if (labelled && looseVinShape(labelled[1])) return labelled[1];
  for (const c of line.cells) {
    const inColumn = vinColumns.some((x) => Math.abs(c.x - x) <= 15);
    if (!inColumn && !YEAR_MAKE.test(line.text)) continue;
    for (const m of c.text.toUpperCase().matchAll(LOOSE_VIN)) if (looseVinShape(m[1])) return m[1];
  }
  return undefined;
}

/** Year, make and model from the start of a vehicle line ("2011 CHEV CRUZE LT/CRUZE", "1 2003 Toyota SequoiaSR5"). */
function yearMakeModel(s: string, oneCell = true, anchored = true): { year: number; words: string[] } | undefined {
  const m = (anchored ? YEAR_MAKE : /\b(19[5-9]\d|20[0-4]\d)\b/).exec(s);
  if (!m) return undefined;
  const tail = s.slice(s.indexOf(m[1], m.index) + 4);
  const rest = oneCell ? tail.split(/\s{2,}/)[0] : tail;
  const words = rest
    .replace(/^[\s,:-]+/, '')
    .split(/\s+/)
    .filter((w) => w && !/^vin:?$/i.test(w));
  return { year: Number(m[1]), words };
}

/** Common makes as printed on declarations (full names and the usual 4–5 letter abbreviations). */
const MAKES =
  /^(acura|alfa|audi|bmw|buick|buic|cadillac|cadi|chevrolet|chev|chevy|chry|chrysler|dodg|dodge|fiat|ford|gmc|genesis|hond|honda|hyun|hyundai|infi|infiniti|isuzu|jagu|jaguar|jeep|kia|land|lexs|lexus|linc|lincoln|mazd|mazda|mercedes|merz|mercury|mini|mits|mitsubishi|niss|nissan|pont|pontiac|porsche|ram|saturn|scion|subaru|suba|suzuki|tesla|toyo|toyot|toyota|volk|volkswagen|vw|volv|volvo|harley|yamaha)$/i;

export function vehicles(pages: PageText[], emit: Emit) {
  let n = 0;
  const seen = new Set<string>();
  for (const page of pages) {
    // The x of each VIN column header on the page.
    const vinColumns = page.lines.flatMap((l) => l.cells.filter((c) => VIN_HEADER.test(c.text.trim())).map((c) => c.x));
    for (const line of page.lines) {
      const vin = vinOnLine(line, vinColumns);
      if (!vin || seen.has(vin)) continue;
      seen.add(vin);
      const at = line.text.toUpperCase().indexOf(vin);
      let ymm = yearMakeModel(line.text.slice(0, at), false, false); // year, make and model may be columns of the row
      let text = line.text;
      // The VIN on a line of its own: year, make and model are on one of the two lines above it.
      const li = page.lines.indexOf(line);
      for (let k = 1; !ymm && k <= 2 && li - k >= 0; k++) {
        const above = page.lines[li - k];
        if (vinOnLine(above, vinColumns)) break;
        const ym = /\b(19[5-9]\d|20[0-4]\d)\s+[A-Z][A-Za-z-]+/.exec(above.text);
        if (ym) {
          ymm = yearMakeModel(above.text.slice(ym.index)); // the vehicle's cell, not the coverage beside it
          text = page.lines
            .slice(li - k, li + 1)
            .map((l) => l.text)
            .join('\n');
        }
      }
      const words = ymm?.words ?? [];
      const conf = page.source === 'ocr' ? 0.75 : 0.9;
      const base = { page: page.page, text, confidence: conf, source: page.source === 'ocr' ? 'ocr' : 'rules' } as const;
      emit({ pointer: `/vehicles/${n}/year`, value: ymm ? ymm.year : null, ...base });
      emit({ pointer: `/vehicles/${n}/make`, value: words[0] ?? null, ...base });
      emit({ pointer: `/vehicles/${n}/model`, value: words.length > 1 ? words.slice(1).join(' ') : null, ...base });
      emit({ pointer: `/vehicles/${n}/vin`, value: vin, ...base, confidence: VIN.test(vin) ? conf : conf * 0.85 });
      n++;
    }
  }
  if (n > 0) return;
  // No VIN printed (redacted): vehicle lines that start with a year and a known make, on the first pages.
  for (const page of pages.slice(0, 3)) {
    for (const line of page.lines) {
      const ymm = yearMakeModel(line.cells[0]?.text ?? '');
      if (!ymm || !ymm.words[0] || !MAKES.test(ymm.words[0]) || ymm.words.length > 6) continue;
      const base = {
        page: page.page,
        text: line.text,
        confidence: page.source === 'ocr' ? 0.6 : 0.7,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
      } as const;
      emit({ pointer: `/vehicles/${n}/year`, value: ymm.year, ...base });
      emit({ pointer: `/vehicles/${n}/make`, value: ymm.words[0], ...base });
      emit({ pointer: `/vehicles/${n}/model`, value: ymm.words.length > 1 ? ymm.words.slice(1).join(' ') : null, ...base });
      emit({ pointer: `/vehicles/${n}/vin`, value: null, ...base });
      n++;
    }
  }
}

const PERSON = /^[A-Z][a-zA-Z'’.-]+(?:\s+[A-Z][a-zA-Z'’.-]*){1,3}$/;

export function drivers(pages: PageText[], emit: Emit) {
  let n = 0;
  for (const page of pages) {
    for (const line of page.lines) {
      const head = line.cells[0];
      if (!head || !/^(drivers?|driver name|operators?|listed drivers?|household drivers?)$/i.test(head.text.trim())) continue;
      for (const b of cellsBelow(page, line, head, 2.2, 10)) {
        const name = cleanValue(b.cell.text.replace(/^\d+[.)]?\s+/, ''));
        if (!PERSON.test(name) || /vehicle|coverage|premium|total|lienholder|mortgagee/i.test(name)) break;
        const p = splitPersonName(name);
        const base = {
          page: page.page,
          text: b.line.text,
          confidence: page.source === 'ocr' ? 0.7 : 0.85,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
        } as const;
        emit({ pointer: `/drivers/${n}/name`, value: name, ...base });
        emit({ pointer: `/drivers/${n}/first_name`, value: p?.first_name ?? null, ...base });
        emit({ pointer: `/drivers/${n}/last_name`, value: p?.last_name ?? null, ...base });
        n++;
      }
      return;
    }
  }
}
