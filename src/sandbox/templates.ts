import type { TemplateConfig } from './config.js';
import type { Scalar } from './state.js';

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

function fill(source: string, variables: Record<string, Scalar>, escape: boolean): string {
  return source.replace(PLACEHOLDER, (_m, name: string) => {
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value === undefined || value === null) return '';
    return escape ? escapeHtml(String(value)) : String(value);
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
export function renderTemplate(template: TemplateConfig, variables: Record<string, Scalar> = {}): RenderedTemplate {
  return {
    ...(template.from === undefined ? {} : { from: template.from }),
    subject: fill(template.subject, variables, false),
    html: fill(template.html, variables, true),
  };
}
