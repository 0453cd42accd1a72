import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import { isLoopback } from '../config/url.js';
import { HttpError } from './http-errors.js';
import { isApiPath } from './faults.js';

/**
 * The inspection endpoints, the control endpoints and the inbox have no auth, so they answer only
 * this machine, and never on behalf of a web page it has open:
 * - loopback callers only, even when `--host` exposes `/v1` to other machines;
 * - a local Host name only, so a page that rebinds its own domain name to 127.0.0.1 (DNS rebinding)
 *   cannot read the caught mail;
 * - anything but a read needs `Content-Type: application/json` (which a page cannot send to another
 *   origin without a CORS preflight, which the sandbox never grants) and either no `Origin` (curl,
 *   scripts, mailroom) or the sandbox's own (its inbox page).
 * The answers also ask browsers not to hand them to another site's page.
 */
export function guardLocalRequest(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('cross-origin-resource-policy', 'same-origin').header('x-content-type-options', 'nosniff');
  if (!isLoopbackAddress(request.socket.remoteAddress)) throw new HttpError(403, 'The sandbox inspection endpoints answer loopback callers only');
  if (!isLocalHostName(request.hostname)) throw new HttpError(403, `The sandbox inspection endpoints answer requests for localhost or an IP address only, not ${request.hostname}`);
  if (isRead(request.method)) return;
  const origin = request.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${request.headers.host ?? ''}`.toLowerCase()) {
    throw new HttpError(403, `The sandbox control endpoints refuse requests from another origin (${JSON.stringify(origin)}): only its own inbox page may send them`);
  }
  if (!isJson(request.headers['content-type'])) {
    throw new HttpError(415, `Unsupported Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')}: the sandbox control endpoints take application/json`);
  }
}

/**
 * Applies {@link guardLocalRequest} to every route outside `/v1`, including routes added later:
 * each is marked `inspection` as it is registered, so none can be left out by forgetting a flag.
 */
export function installLocalOnly(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url ?? route.path)) route.config = { ...route.config, inspection: true };
  });
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.inspection) guardLocalRequest(request, reply);
  });
}

function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && isLoopback(address);
}

export function isLocalHostName(hostname: string): boolean {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0;
}
