/** The in-process sandbox started by the global `--sandbox` flag for the current command. */
export interface SandboxSession {
  baseUrl: string;
  apiKey: string;
  workspaceId: string;
}

let active: SandboxSession | undefined;

export function setSandboxSession(session: SandboxSession | undefined): void {
  active = session;
}

export function sandboxSession(): SandboxSession | undefined {
  return active;
}
