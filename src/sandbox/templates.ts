import type { TemplateConfig } from './config.js';

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** The variable a placeholder names: a top-level name as given, else a dotted path into nested values (`order.items.0.title`). */
function lookUp(variables: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(variables, name)) return variables[name];
  let value: unknown = variables;
  for (const step of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function fill(source: string, variables: Record<string, unknown>, escape: boolean): string {
  return source.replace(PLACEHOLDER, (_m, name: string) => {
    const value = lookUp(variables, name);
    if (value === undefined || value === null) return '';
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value as string | number | boolean);
    return escape ? escapeHtml(text) : text;
  });
}

export interface RenderedTemplate {
  from?: string;
  subject: string;
  html: string;
}

/**
 * `{{variable}}` substitution. Values are HTML-escaped in the body (as template engines do) but
 * not in the subject, which is plain text; a missing variable renders as nothing.
 */
export function renderTemplate(template: TemplateConfig, variables: Record<string, unknown> = {}): RenderedTemplate {
  return {
    ...(template.from === undefined ? {} : { from: template.from }),
    subject: fill(template.subject, variables, false),
    html: fill(template.html, variables, true),
  };
}
