import { readSegments } from '../field-path.ts';

// The fields that conditions and templates read. This module is pure TypeScript (no zod, no Node APIs): the
// experience workflow imports it at run time.
//
// Grammar (decided here, recorded in docs/spec-decisions.md, "Conditions and templates"):
// - `event.eventType`, `trigger.eventType`, `visitor.clientUserId`;
// - `event.attributes`, `trigger.attributes`, `visitor.attributes`, alone (the whole object) or followed by a dot
//   path: `visitor.attributes.address.country`. A numeric step indexes an array (`event.attributes.items.0.sku`),
//   as in the connections' mapping paths. A step is any run of characters other than ".", whitespace, "{", "}",
//   "[" and "]": attribute names such as "$email" or "plan-name" work, `items[0]` is refused (write `items.0`).
// - `event` is the event being judged (the trigger itself for trigger conditions, the candidate event for goals
//   and waitForEvent, the latest event elsewhere); `trigger` is the event that started the run.

export type JsonObject = Record<string, unknown>;

export interface ExperienceEvent {
  eventType: string;
  attributes: JsonObject;
}

export interface ExperienceVisitor {
  clientUserId: string | null;
  attributes: JsonObject;
}

/** What a condition or template reads. Plain JSON, so a workflow can keep it in its state. */
export interface ExperienceContext {
  event?: ExperienceEvent | undefined;
  trigger?: ExperienceEvent | undefined;
  visitor?: ExperienceVisitor | null | undefined;
}

export type FieldRef =
  | { source: 'event' | 'trigger'; property: 'eventType' }
  | { source: 'visitor'; property: 'clientUserId' }
  | { source: 'event' | 'trigger' | 'visitor'; property: 'attributes'; path: string[] };

export const fieldMaxLength = 300;

/** The rule, worded for error messages. */
export const fieldRule =
  'must be event.eventType, trigger.eventType, visitor.clientUserId, or event.attributes, trigger.attributes or visitor.attributes followed by an optional dot path';

const fieldPattern = /^(?:(event|trigger)\.eventType|visitor\.clientUserId|(event|trigger|visitor)\.attributes((?:\.[^.\s{}[\]]+)*))$/;

/** The field's parts, or undefined when it is not a field. */
export function parseField(field: string): FieldRef | undefined {
  if (field.length > fieldMaxLength) return undefined;
  const match = fieldPattern.exec(field);
  if (!match) return undefined;
  const [, eventTypeSource, attributesSource, path] = match;
  if (eventTypeSource) return { source: eventTypeSource as 'event' | 'trigger', property: 'eventType' };
  if (attributesSource) {
    return { source: attributesSource as 'event' | 'trigger' | 'visitor', property: 'attributes', path: path ? path.slice(1).split('.') : [] };
  }
  return { source: 'visitor', property: 'clientUserId' };
}

export const isField = (field: string) => parseField(field) !== undefined;

/**
 * The field's value in the context: undefined when it is missing (no such event or visitor, no such attribute);
 * null when it is there and null. An unknown field name reads as missing (definitions are validated beforehand).
 */
export function readField(context: ExperienceContext, field: string): unknown {
  const ref = parseField(field);
  if (!ref) return undefined;
  const source = context[ref.source];
  if (source == null) return undefined;
  if (ref.property === 'attributes') return readSegments(source.attributes, ref.path);
  return ref.property === 'eventType' ? (source as ExperienceEvent).eventType : (source as ExperienceVisitor).clientUserId;
}
