/** Where `mailroom sandbox` listens by default, and where the commands that talk to one look for it. */
export const SANDBOX_DEFAULT_PORT = 4025;
export const SANDBOX_DEFAULT_URL = `http://127.0.0.1:${SANDBOX_DEFAULT_PORT}`;
