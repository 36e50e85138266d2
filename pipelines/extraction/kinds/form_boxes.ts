// The named boxes of a one-page ACORD form (27/28 evidence of property, 75 binder): a value read under its
// box caption, cited with that caption as its rule, and the same box cited again under the other pointers it
// fills (the insurer box is also the policy's provider, the interest box also an interested party).
import type { PageText } from '../../documents/layout.ts';
import type { Candidate } from '../candidates.ts';
import { boxBelow, EMPTY_BOX, type BoxValue } from '../certificate.ts';
import { cellSource } from '../layout_query.ts';
import { statedRole } from '../parties.ts';
import type { Emit } from './types.ts';

export function formBoxes(page: PageText, emit: Emit, form: string) {
  const at = { page: page.page, confidence: page.source === 'ocr' ? 0.75 : 0.9 };
  const cite = (b: BoxValue, caption: string) => ({ ...at, text: b.text, source: cellSource(page, b.cell), rule: `${form} box: ${caption}` }) as const;
  return {
    at,
    /**
     * The box under `label` (its first line is the name, without a role written after it: "Acme Bank, Loss Payee"),
     * emitted at `pointer`, with that role; empty ("N/A") boxes are undefined.
     */
    box(pointer: string, label: RegExp, caption: string, anyColumn = false): (BoxValue & { role: string | null }) | undefined {
      const b = boxBelow(page, label, { anyColumn });
      if (!b || EMPTY_BOX.test(b.name)) return undefined;
      const { name, role } = statedRole(b.name);
      emit({ pointer, value: name, ...cite(b, caption) });
      return { ...b, name, role };
    },
    /** More values read from the same box, cited like it. */
    also(b: BoxValue, caption: string, values: Record<string, Candidate['value']>): void {
      for (const [pointer, value] of Object.entries(values)) emit({ pointer, value, ...cite(b, caption) });
    },
  };
}
