import { describe, expect, it } from 'vitest';
import type { ExperienceContext } from '../../../src/sandbox-safe/experiences/context-fields.ts';
import { findTemplateProblems, renderObjectTemplate, renderTemplate } from '../../../src/sandbox-safe/experiences/render-template.ts';

const context: ExperienceContext = {
  event: { eventType: 'app.opened', attributes: { screen: 'home', count: 3, ok: true, nothing: null, tags: ['a', 'b'], where: { city: 'Berlin' } } },
  trigger: { eventType: 'signup', attributes: { plan: 'pro' } },
  visitor: { clientUserId: 'u-1', attributes: { plan: 'pro', age: 41 } },
};

describe('renderTemplate', () => {
  it.each([
    // a string that is exactly one template becomes the value, whatever its type
    ['{{visitor.attributes.plan}}', 'pro'],
    ['{{ visitor.attributes.age }}', 41],
    ['{{event.attributes.ok}}', true],
    ['{{event.attributes.tags}}', ['a', 'b']],
    ['{{event.attributes.where}}', { city: 'Berlin' }],
    ['{{event.attributes.nothing}}', null],
    ['{{event.attributes.missing}}', null],
    ['{{visitor.clientUserId}}', 'u-1'],
    ['{{trigger.eventType}}', 'signup'],
    ['{{event.eventType}}', 'app.opened'],
    ['{{trigger.attributes}}', { plan: 'pro' }],
    // templates inside text become text
    ['plan: {{visitor.attributes.plan}}', 'plan: pro'],
    ['{{visitor.attributes.plan}}/{{visitor.attributes.age}}', 'pro/41'],
    [' {{visitor.attributes.plan}}', ' pro'],
    ['ok={{event.attributes.ok}}', 'ok=true'],
    ['tags={{event.attributes.tags}}', 'tags=["a","b"]'],
    ['at {{event.attributes.where}}', 'at {"city":"Berlin"}'],
    ['x={{event.attributes.missing}}', 'x=null'],
    ['x={{event.attributes.nothing}}', 'x=null'],
    ['{{trigger.attributes.plan}}-{{ event.attributes.screen }}-{{event.attributes.count}}', 'pro-home-3'],
    // no template, or none that closes
    ['plain text', 'plain text'],
    ['{{ not closed', '{{ not closed'],
    ['', ''],
    // non-strings are kept
    [42, 42],
    [false, false],
    [null, null],
  ])('%o renders as %o', (template, rendered) => {
    expect(renderTemplate(template, context)).toEqual(rendered);
  });

  it('walks arrays and objects and leaves object keys alone', () => {
    const template = {
      '{{visitor.attributes.plan}}': '{{visitor.attributes.plan}}',
      list: ['{{event.attributes.count}}', 'n={{event.attributes.count}}', { deep: ['{{visitor.clientUserId}}'] }],
      fixed: 7,
    };
    expect(renderTemplate(template, context)).toEqual({
      '{{visitor.attributes.plan}}': 'pro',
      list: [3, 'n=3', { deep: ['u-1'] }],
      fixed: 7,
    });
    expect(template.list[0]).toBe('{{event.attributes.count}}');
  });

  it('keeps a "__proto__" key as an ordinary key', () => {
    const rendered = renderObjectTemplate(JSON.parse('{"__proto__": "{{visitor.attributes.plan}}"}'), context);
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(JSON.stringify(rendered)).toBe('{"__proto__":"pro"}');
  });

  it('renders missing fields as null when there is no visitor or event', () => {
    expect(renderObjectTemplate({ id: '{{visitor.clientUserId}}', text: 'hi {{visitor.attributes.name}}' }, { visitor: null })).toEqual({ id: null, text: 'hi null' });
  });
});

describe('findTemplateProblems', () => {
  it('names each unknown field with the place of its string', () => {
    const problems = findTemplateProblems({ a: 'ok {{visitor.attributes.plan}}', b: ['{{visitor.plan}}', { c: 'x {{ }} {{event.name}}' }], '{{key.ignored}}': 1 });
    expect(problems.map(({ path, message }) => ({ path, template: /\{\{.*?\}\}/.exec(message)?.[0] }))).toEqual([
      { path: ['b', 0], template: '{{visitor.plan}}' },
      { path: ['b', 1, 'c'], template: '{{ }}' },
      { path: ['b', 1, 'c'], template: '{{event.name}}' },
    ]);
  });
});
