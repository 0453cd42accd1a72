import { usageError } from '../errors.js';
import { idProblem, type IdKind } from '../schema/ids.js';

/**
 * Every path mailroom requests, built here and only here. Each id in a path is checked for its
 * type's prefix and shape (letters, digits, _ and -) and percent-encoded, so no value can turn a
 * request into another one: `..` would make `DELETE /v1/webhooks/..` a `DELETE /v1/`, and an
 * empty key id would make an update the create path. Bad ids are refused before anything is sent.
 */
function id(kind: IdKind, value: unknown): string {
  const problem = idProblem(kind, value);
  if (problem !== undefined) throw usageError(problem);
  return encodeURIComponent(value as string);
}

export const paths = {
  emails: (): string => '/v1/emails',
  emailBatch: (): string => '/v1/emails/batch',
  keyCheck: (): string => '/v1/api-keys/check',
  keys: (workspaceId: string): string => `/v1/workspaces/${id('workspace', workspaceId)}/api-keys`,
  key: (workspaceId: string, keyId: string): string => `${paths.keys(workspaceId)}/${id('apiKey', keyId)}`,
  webhooks: (): string => '/v1/webhooks',
  webhook: (webhookId: string): string => `/v1/webhooks/${id('webhook', webhookId)}`,
  /** The sandbox's own endpoints (src/sandbox/server.ts), for `mailroom sandbox` and `webhooks listen --register`. */
  sandboxEmails: (query?: URLSearchParams): string => `/_sandbox/emails${query && query.toString() !== '' ? `?${query.toString()}` : ''}`,
  sandboxWait: (query: URLSearchParams): string => `/_sandbox/emails/wait?${query.toString()}`,
  sandboxEmail: (emailId: string): string => `/_sandbox/emails/${id('email', emailId)}`,
  sandboxEmailChecks: (emailId: string, failOn: string): string => `/_sandbox/emails/${id('email', emailId)}/checks?failOn=${encodeURIComponent(failOn)}`,
  sandboxDeliveries: (workspaceId?: string): string => `/_sandbox/deliveries${workspaceId === undefined ? '' : `?workspace=${id('workspace', workspaceId)}`}`,
  sandboxWorkspaces: (): string => '/_sandbox/workspaces',
  sandboxWorkspace: (workspaceId: string): string => `/_sandbox/workspaces/${id('workspace', workspaceId)}`,
  sandboxResend: (deliveryId: string): string => `/_sandbox/deliveries/${encodeURIComponent(deliveryId)}/resend`,
  sandboxEvents: (): string => '/_sandbox/events',
  /** The inbox page of one email (a browser URL under the sandbox's root). */
  sandboxInbox: (emailId: string): string => `/inbox/${id('email', emailId)}`,
};
