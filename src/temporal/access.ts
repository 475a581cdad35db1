import { readFileSync } from 'node:fs';

/**
 * How the service authenticates to a Temporal cluster that is not an open one on a private network: Temporal Cloud
 * with an API key (over TLS), or mTLS with a client certificate (Cloud, or a self-hosted cluster). Both connections of
 * a process, the API's client and the worker's NativeConnection, take these options as they are.
 */
export interface TemporalAccess {
  apiKey?: string;
  tls?: boolean | { clientCertPair: { crt: Buffer; key: Buffer } };
}

export interface TemporalAccessConfig {
  TEMPORAL_API_KEY?: string | undefined;
  TEMPORAL_TLS?: boolean | undefined;
  TEMPORAL_TLS_CERT_FILE?: string | undefined;
  TEMPORAL_TLS_KEY_FILE?: string | undefined;
}

/** The access options from the parsed settings; the certificate files are read once, at start. */
export function temporalAccessFrom(config: TemporalAccessConfig): TemporalAccess {
  const certificate =
    config.TEMPORAL_TLS_CERT_FILE && config.TEMPORAL_TLS_KEY_FILE
      ? { clientCertPair: { crt: readFileSync(config.TEMPORAL_TLS_CERT_FILE), key: readFileSync(config.TEMPORAL_TLS_KEY_FILE) } }
      : undefined;
  // An API key travels only over TLS.
  const tls = certificate ?? (config.TEMPORAL_TLS || config.TEMPORAL_API_KEY !== undefined ? true : undefined);
  return {
    ...(config.TEMPORAL_API_KEY === undefined ? {} : { apiKey: config.TEMPORAL_API_KEY }),
    ...(tls === undefined ? {} : { tls }),
  };
}
