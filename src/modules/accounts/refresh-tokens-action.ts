// `social:refresh-tokens`: refreshes connected social accounts' tokens through the configured
// providers. No provider ships with the platform; with none registered the action completes and its
// result says there was nothing to refresh. Connected accounts are the accounts module's: the handler
// lives here, and scheduled actions import no module.
import { z } from 'zod';
import type { ActionHandler, HandlerContext } from '../scheduled-actions/interfaces.js';

/** A source of connected accounts whose tokens expire (one per social network). */
export interface TokenRefreshProvider {
  name: string;
  /** Refreshes what is due; throwing fails the attempt (the queue retries it). */
  refresh(ctx: Pick<HandlerContext, 'signal' | 'system' | 'now' | 'log'>): Promise<{ refreshed: number }>;
}

const providers = new Map<string, TokenRefreshProvider>();

/** Adds a provider (idempotent by name). */
export function registerTokenRefreshProvider(provider: TokenRefreshProvider): void {
  providers.set(provider.name, provider);
}

export const socialRefreshTokensPayload = z.strictObject({});

export const socialRefreshTokens: ActionHandler<z.output<typeof socialRefreshTokensPayload>> = {
  actionType: 'social:refresh-tokens',
  payload: socialRefreshTokensPayload,
  async run(_payload, ctx) {
    if (providers.size === 0) return { message: 'No social token providers are configured: nothing to refresh', providers: [], refreshed: 0 };
    const done: { provider: string; refreshed: number }[] = [];
    for (const provider of providers.values()) {
      ctx.signal.throwIfAborted();
      done.push({ provider: provider.name, ...(await provider.refresh(ctx)) });
    }
    return { providers: done, refreshed: done.reduce((n, p) => n + p.refreshed, 0) };
  },
};

declare module '../scheduled-actions/handlers/built-in.js' {
  interface ActionPayloads {
    'social:refresh-tokens': Record<string, never>;
  }
}
