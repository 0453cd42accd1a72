declare const __MAILROOM_VERSION__: string | undefined;

/** Injected by the bundler; tests running from source fall back to a dev marker. */
export const VERSION: string = typeof __MAILROOM_VERSION__ === 'string' ? __MAILROOM_VERSION__ : '0.0.0-dev';
