import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../security/secret-box.ts';

export interface ConnectionDeps {
  em: EntityManager;
  secrets: SecretBox;
}
