import { randomUUID } from 'node:crypto';
import { isMailroomError } from '../errors.js';
import { renderReactElement, renderReactEmail } from '../render/react-email.js';
import { canonicalSendAt, checkSchedule } from '../input/time.js';
import { parseZonedDateTime } from '../schema/datetime.js';
import { describeIssues, parseEmailRequest, type EmailRequest } from '../schema/index.js';
import type { EmailInput } from '../types.js';
import { ValidationError } from './public-errors.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** What JSX and React.createElement make: an object React marks with its `$$typeof` symbol. */
const isReactElement = (v: unknown): boolean => isRecord(v) && typeof v.$$typeof === 'symbol';

/**
 * An EmailInput as the wire request: React rendered (its text unless given), `sendAt` as the API
 * takes it, an idempotency key always, and checked against the same schema and schedule rules as
 * `mailroom send`, so bad input is refused before anything is sent.
 */
export async function prepareEmail(input: EmailInput, label: string): Promise<EmailRequest> {
  if (!isRecord(input)) throw new ValidationError(`${label}: an email must be an object, got ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}`);
  const { react, reactFile, props, ...body } = input as Record<string, unknown>;
  if (react !== undefined || reactFile !== undefined) {
    if (react !== undefined && reactFile !== undefined) throw new ValidationError(`${label}: give react or reactFile, not both`);
    if (body.html !== undefined || body.template !== undefined) throw new ValidationError(`${label}: a React email has no html or template of its own`);
    let rendered;
    if (reactFile !== undefined) {
      if (typeof reactFile !== 'string') throw new ValidationError(`${label}: reactFile must be a path`);
      if (props !== undefined && !isRecord(props)) throw new ValidationError(`${label}: props must be an object`);
      rendered = await renderReactEmail(reactFile, props ?? {}, process.cwd(), `${label}: reactFile`);
    } else {
      // The official SDK sends a string `react` as the HTML itself; rendered here it would be the
      // text of an element, escaped (the email would show `&lt;p&gt;`): refused, so nothing goes out wrong.
      if (!isReactElement(react)) {
        const got = typeof react === 'string' ? 'a string' : react === null ? 'null' : typeof react === 'object' ? 'an object' : `a ${typeof react}`;
        throw new ValidationError(`${label}: react must be a React element (JSX, or React.createElement), got ${got}; for HTML you have already, give html`);
      }
      rendered = await renderReactElement(react, `${label}: react`);
    }
    body.html = rendered.html;
    body.text ??= rendered.text;
  } else if (props !== undefined) {
    throw new ValidationError(`${label}: props go with reactFile`);
  }
  if (body.sendAt instanceof Date) {
    if (Number.isNaN(body.sendAt.getTime())) throw new ValidationError(`${label}: sendAt is an invalid Date`);
    body.sendAt = body.sendAt.toISOString();
  } else if (body.sendAt !== undefined) {
    body.sendAt = canonicalSendAt(body.sendAt);
  }
  body.idempotencyKey ??= randomUUID();
  const parsed = parseEmailRequest(body);
  if (!parsed.ok) throw new ValidationError(`${label}: invalid ${parsed.kind} email: ${describeIssues(parsed.issues)}`);
  if (parsed.email.sendAt !== undefined) {
    try {
      checkSchedule(parseZonedDateTime(parsed.email.sendAt)!, new Date(), 'sendAt');
    } catch (err) {
      if (isMailroomError(err)) throw new ValidationError(`${label}: ${err.message}`);
      throw err;
    }
  }
  return parsed.email;
}
