/**
 * What each sealed secret is sealed for (the secret box's context, docs/adr/0002-stored-secrets-are-sealed-with-secrets-key.md): the kind of row, its id, and which
 * of its secrets. A rotated secret keeps its context when it becomes the previous one, since it stays the same row's
 * secret of the same kind.
 */
export const secretContexts = {
  endpointSigning: (endpointId: string) => `endpoint:${endpointId}:signing`,
  connectionSigning: (connectionId: string) => `connection:${connectionId}:signing`,
  connectionOutboundCredential: (connectionId: string) => `connection:${connectionId}:outbound-credential`,
  /** An artist link's token, which the account may be shown again (docs/recordings.md, "The artist's link"). */
  artistLinkToken: (linkId: string) => `artist-link:${linkId}:token`,
  /** An Idempotency-Key's stored answer, which may hold a secret shown once (a new endpoint's, a new account's key). */
  idempotentAnswer: (scope: string, key: string) => `idempotency:${scope}:${key}`,
};
