import type { DeliveryRetry } from '../../../workflows/deliver-batch.contract.ts';

/** How deliveries retry, and when an endpoint that keeps failing is disabled; from configuration. */
export interface DeliverySettings {
  retryInitialMs: number;
  retryBackoff: number;
  maxAttempts: number;
  /** How long one HTTP attempt may take, answer included. */
  timeoutMs: number;
  disableAfterHours: number;
}

export const retryOf = (settings: DeliverySettings): DeliveryRetry => ({
  initialMs: settings.retryInitialMs,
  backoff: settings.retryBackoff,
  maxAttempts: settings.maxAttempts,
  timeoutMs: settings.timeoutMs,
});
