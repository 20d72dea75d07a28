/**
 * Examples for the OpenAPI document, made from the response schemas themselves so they can never
 * disagree with them: a schema's own `examples` (`.meta({ examples })`) when it has one, otherwise a
 * value built from its JSON Schema, with plausible values for GitLab's common field names.
 */
type Json = Record<string, unknown>;

const SHA = '6104942438c14ec7bd21c6cd5bd995272b3faff6';
const WHEN = '2026-01-15T09:30:00.000Z';

/** A plausible value for a string field, by its name. */
function stringFor(name: string, format?: unknown): string {
  if (format === 'date-time') return WHEN;
  if (format === 'date') return '2026-01-15';
  if (/sha$/.test(name)) return SHA;
  if (/url$/.test(name) || name === 'self') return `https://gitlab.example.com/${name === 'avatar_url' ? 'uploads/avatar.png' : 'group/project'}`;
  if (/email/.test(name)) return 'user@example.com';
  if (name === 'username') return 'root';
  if (name === 'name') return 'Administrator';
  if (name === 'state') return 'opened';
  if (/path/.test(name)) return 'group/project';
  if (/title|description|body|message/.test(name)) return 'Lorem ipsum';
  return name ? name.replace(/_/g, ' ') : 'string';
}

export function exampleOf(schema: unknown, components: Record<string, unknown>, name = '', depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 20) return null;
  const s = schema as Json;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (typeof s.$ref === 'string') {
    const id = s.$ref.replace('#/components/schemas/', '');
    return exampleOf(components[id], components, name, depth + 1);
  }
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (alternatives) {
    const chosen = alternatives.find((a) => (a as Json).type !== 'null') ?? alternatives[0];
    return exampleOf(chosen, components, name, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [key, value] of Object.entries((s.properties ?? {}) as Json)) out[key] = exampleOf(value, components, key, depth + 1);
      return out;
    }
    case 'array':
      // `items: { not: {} }` (z.never()): a list that is always empty.
      return s.items && (s.items as Json).not === undefined ? [exampleOf(s.items, components, name, depth + 1)] : [];
    case 'integer':
      return /count|_level|limit|weight/.test(name) ? 0 : 1;
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'string':
      return stringFor(name, s.format);
    case 'null':
      return null;
    default:
      return null;
  }
}
