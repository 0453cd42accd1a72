import type { Settings } from '../config/settings.js';
import { MailroomError, usageError } from '../errors.js';
import { meantForSandbox } from '../transport/sandbox-admin.js';

/**
 * The workspace whose emails and deliveries the sandbox commands show: the one meant for a sandbox
 * (--workspace, MAILROOM_WORKSPACE, a profile named on purpose), else none (the sandbox's first).
 * `sandbox workspace create` makes others.
 */
export function sandboxWorkspace(settings: Pick<Settings, 'workspace' | 'profile'>): string | undefined {
  const ws = meantForSandbox(settings.workspace, settings.profile) ? settings.workspace.value : undefined;
  if (ws === undefined || ws === '') return undefined;
  if (!/^wrk_[A-Za-z0-9_-]+$/.test(ws)) throw usageError(`workspace "${ws}" is not a workspace id: expected wrk_...`);
  return ws;
}

/** A 404 from a sandbox's list or wait asked for a workspace: that workspace is not there. */
export function unknownWorkspace(root: string, workspace: string | undefined): MailroomError {
  return new MailroomError('rejected', `no workspace ${workspace ?? '(the first)'} in the sandbox at ${root}`, {
    hints: ['workspaces last until the sandbox stops (unless it runs with --data); make one with: mailroom sandbox workspace create'],
  });
}
