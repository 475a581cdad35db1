import type { Account } from '../persistence/entities/account.ts';

/** What the middleware puts on `ctx.state`, typed, so that no handler reads Koa's untyped state. */
declare module 'koa' {
  interface DefaultState {
    /** Set first by request-id.ts, echoed as X-Request-Id and logged. */
    requestId: string;
    /** The caller's account once authenticated; undefined on public and admin routes. */
    account?: Account | undefined;
  }
}
