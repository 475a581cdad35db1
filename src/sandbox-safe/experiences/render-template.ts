import { fieldRule, isField, readField, type ExperienceContext, type JsonObject } from './context-fields.ts';

// Templates in a webhook node's `result` and a provider node's `properties`. Pure TypeScript (no zod, no Node
// APIs): the experience workflow imports it at run time.
//
// Rules (docs/spec-decisions.md, "Conditions and templates"):
// - A template is `{{field}}`, spaces inside the braces allowed (`{{ visitor.attributes.plan }}`); the field names
//   are those of conditions (context-fields.ts). An unknown field is refused when the definition is validated.
// - A string that is exactly one template becomes the field's value, whatever its JSON type; null when missing.
// - Templates inside other text are replaced by text: strings as they are, numbers and booleans as JSON, objects and
//   arrays as JSON, and a missing or null value as `null`.
// - Arrays and objects are walked; object keys are never templated. Other values are kept as they are.
// - There is no escape: "{{" that does not close with "}}" is plain text.

const templatePattern = /\{\{\s*([^{}]*?)\s*\}\}/g;
const wholeTemplatePattern = /^\{\{\s*([^{}]*?)\s*\}\}$/;

function asText(value: unknown): string {
  if (value == null) return 'null';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function renderString(text: string, context: ExperienceContext): unknown {
  const whole = wholeTemplatePattern.exec(text);
  if (whole) return readField(context, whole[1]!) ?? null;
  return text.replace(templatePattern, (_, field: string) => asText(readField(context, field)));
}

/** The value with every template replaced; a new value, the input is not changed. */
export function renderTemplate(value: unknown, context: ExperienceContext): unknown {
  if (typeof value === 'string') return renderString(value, context);
  if (Array.isArray(value)) return value.map((item) => renderTemplate(item, context));
  if (typeof value === 'object' && value !== null) return renderObjectTemplate(value as JsonObject, context);
  return value;
}

/** renderTemplate for a JSON object (a `result` or `properties`), typed as one. */
export function renderObjectTemplate(object: JsonObject, context: ExperienceContext): JsonObject {
  // fromEntries defines own properties: a key "__proto__" stays an ordinary key instead of replacing the prototype.
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, renderTemplate(item, context)]));
}

export interface TemplateProblem {
  /** Where the string is, relative to the value checked. */
  path: (string | number)[];
  message: string;
}

/** Every template in the value whose field is unknown, with where it is. */
export function findTemplateProblems(value: unknown, path: (string | number)[] = []): TemplateProblem[] {
  if (typeof value === 'string') {
    return [...value.matchAll(templatePattern)]
      .filter((match) => !isField(match[1]!))
      .map((match) => ({ path, message: `the template ${match[0]} names an unknown field: a template field ${fieldRule}` }));
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findTemplateProblems(item, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => findTemplateProblems(item, [...path, key]));
  }
  return [];
}
