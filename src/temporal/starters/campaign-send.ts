import { WithStartWorkflowOperation } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import {
  campaignSendSearchAttributes,
  campaignSendWorkflowId,
  campaignSendWorkflowType,
  messageReady,
  scheduleCampaignSend,
  type CampaignRunState,
  type CampaignSendInput,
  type CampaignSendWorkflow,
  type ScheduleCampaign,
} from '../../../workflows/campaign-send.contract.ts';
import type { TemporalAccess } from '../temporal-access.ts';

/**
 * Schedules a message's send: starts its run if there is none (update-with-start) and sets playTime and segment; a
 * waiting run is moved. An ended run's id is never reused: a message is sent once.
 */
export function scheduleCampaignRun(temporal: TemporalAccess, input: CampaignSendInput & { title: string }, schedule: ScheduleCampaign): Promise<CampaignRunState> {
  const { title, ...args } = input;
  const startWorkflowOperation = new WithStartWorkflowOperation<CampaignSendWorkflow>(campaignSendWorkflowType, {
    workflowId: campaignSendWorkflowId(input.notificationId),
    taskQueue: temporal.taskQueue,
    args: [{ ...args, version: 1 }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: campaignSendSearchAttributes(input),
    staticSummary: `Send of “${title}”`,
    staticDetails: `App ${input.appId} · message ${input.notificationId}`,
  });
  return temporal.client.workflow.executeUpdateWithStart(scheduleCampaignSend, { args: [schedule], startWorkflowOperation });
}

export const campaignSendHandle = (temporal: Pick<TemporalAccess, 'client'>, notificationId: string) =>
  temporal.client.workflow.getHandle<CampaignSendWorkflow>(campaignSendWorkflowId(notificationId));

/** Tells the message's send run, if it has one, that the message is READY. */
export async function notifyMessageReady(temporal: Pick<TemporalAccess, 'client'>, notificationId: string): Promise<void> {
  try {
    await campaignSendHandle(temporal, notificationId).signal(messageReady);
  } catch (error) {
    // Not scheduled (or already ended): the run, when there is one, reads the message's state when it starts.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
