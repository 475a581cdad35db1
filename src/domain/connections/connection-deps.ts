import type { EntityManager } from '@mikro-orm/postgresql';
import type { AllowList, Resolve } from '../../security/ip-policy.ts';
import type { SecretBox } from '../../security/secret-box.ts';

export interface ConnectionDeps {
  em: EntityManager;
  secrets: SecretBox;
  /** Checks an outbound URL against the address policy. */
  outbound: { allow: AllowList; resolve: Resolve };
}
