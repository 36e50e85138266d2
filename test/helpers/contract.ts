// The schema-vs-response check: every JSON answer a test receives from a route of the OpenAPI document is
// validated against the schema the document gives for its path, method and status, with additional
// properties forbidden wherever the document does not open an object on purpose (a loose object says
// `additionalProperties: {}`). An answer with a status the operation does not list is a mismatch too.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface ContractAnswer {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/** Close every object schema that does not say otherwise: `additionalProperties: false`. */
export function forbidAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forbidAdditionalProperties);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'properties' ? mapValues(v as Record<string, unknown>) : forbidAdditionalProperties(v);
  if (out.properties && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) out.additionalProperties = false;
  return out;
}

const mapValues = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, forbidAdditionalProperties(v)]));

/** A checker for answers against `doc` (the service's /openapi.json). */
export function contractChecker(doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }) {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'svc', components: { schemas: forbidAdditionalProperties(doc.components.schemas) } });
  const routes = Object.entries(doc.paths).map(([template, ops]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    ops,
  }));
  const compiled = new Map<string, ValidateFunction>();

  /** The mismatch of one answer, or undefined when it matches (or is not an answer of a documented route). */
  return function check(a: ContractAnswer): string | undefined {
    const pathname = a.path.split('?')[0];
    // Concrete paths first: /v2/forms/links must not be taken for /v2/forms/{id}.
    const candidates = routes.filter((r) => r.pattern.test(pathname) && r.ops[a.method.toLowerCase()]);
    const route = candidates.sort((x, y) => (x.template.match(/\{/g)?.length ?? 0) - (y.template.match(/\{/g)?.length ?? 0))[0];
    if (!route) return undefined;
    const op = route.ops[a.method.toLowerCase()];
    const where = `${a.method} ${route.template} ${a.status}`;
    const response = op.responses[String(a.status)];
    if (!response) return `${where}: status not documented (documented: ${Object.keys(op.responses).join(', ')})`;
    const type = (a.contentType ?? '').split(';')[0].trim();
    if (!type.endsWith('json')) return undefined; // files, HTML pages, empty 204s
    const content = response.content?.[type];
    if (!content?.schema) return `${where}: ${type} answer, but the document gives no ${type} schema`;
    const key = `${where} ${type}`;
    let validate = compiled.get(key);
    if (!validate) {
      const schema = JSON.parse(JSON.stringify(forbidAdditionalProperties(content.schema)).replaceAll('"#/components/', '"svc#/components/'));
      validate = ajv.compile(schema as object);
      compiled.set(key, validate);
    }
    if (validate(a.body)) return undefined;
    return `${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
  };
}
