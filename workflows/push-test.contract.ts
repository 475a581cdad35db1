import { AccountId, AppId, EntityId, EntityType, NotificationId } from '../src/sandbox-safe/search-attributes.ts';

/** The contract of a test send's run, `push-test:<testId>`: a message sent now to a few chosen devices. */
export const pushTestWorkflowType = 'pushTest';

export interface PushTestInput {
  version: 1;
  testId: string;
  accountId: string;
  appId: string;
  notificationId: string;
  /** The `push_sends` rows (source `test`) the API wrote, one per device. */
  sendIds: string[];
}

export interface PushTestResult {
  sent: number;
  failed: number;
  unregistered: number;
}

export type PushTestWorkflow = (input: PushTestInput) => Promise<PushTestResult>;

export const pushTestWorkflowId = (testId: string) => `push-test:${testId}`;

export const pushTestSearchAttributes = (input: PushTestInput) => [
  { key: AccountId, value: input.accountId },
  { key: AppId, value: input.appId },
  { key: EntityType, value: 'push-test' },
  { key: EntityId, value: input.testId },
  { key: NotificationId, value: [input.notificationId] },
];
