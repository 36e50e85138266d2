// Addresses of hosted form pages (SPEC §4.5): {app_url}/{agentSlug}/form/{publicId}/{formSlug}.
import { slugify } from '../../lib/slug.ts';

/** The slug of a form's name as it appears in its URL ("Renters intake" → "renters-intake"). */
export const formSlug = (name: string) => slugify(name) || 'form';

/** Path of a hosted form page, every segment escaped. */
export function hostedFormPath(agentSlug: string, publicId: string, formName: string): string {
  return `/${encodeURIComponent(agentSlug)}/form/${encodeURIComponent(publicId)}/${encodeURIComponent(formSlug(formName))}`;
}
