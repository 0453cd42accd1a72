import { STATUS_CODES } from 'node:http';

/** The public API's error body: `statusCode`, `error` (the HTTP reason), `message`, plus extras. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [extra: string]: unknown;
}

export function errorBody(statusCode: number, message: string, extra: Record<string, unknown> = {}): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, ...extra };
}

/** Thrown by route handlers; the server's error handler answers with its body. */
export class HttpError extends Error {
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  constructor(statusCode: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.body = errorBody(statusCode, message, extra);
    this.headers = headers;
  }

  get statusCode(): number {
    return this.body.statusCode;
  }
}
