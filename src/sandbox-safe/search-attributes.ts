import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The one place that declares the custom search attributes operators filter on in the Temporal UI, e.g.
 * `EntityType = "job" AND JobStatus = "ASSIGNED"`. The dev server registers exactly these; production registers them
 * with `temporal operator search-attribute create` (see docs/operations.md). Imported by workflow code, so this file
 * must stay free of Node APIs.
 */
export const AccountId = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
export const AppId = defineSearchAttributeKey('AppId', SearchAttributeType.KEYWORD);
export const EntityType = defineSearchAttributeKey('EntityType', SearchAttributeType.KEYWORD);
export const EntityId = defineSearchAttributeKey('EntityId', SearchAttributeType.KEYWORD);
/** The event type a run handles: the client's eventType on ingest runs. */
export const EventType = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);

/** A recording job's status, upserted on every transition: `JobStatus = "ASSIGNED"`. */
export const JobStatus = defineSearchAttributeKey('JobStatus', SearchAttributeType.KEYWORD);

/** The client's id for the person an ingested event is about. */
export const ClientUserId = defineSearchAttributeKey('ClientUserId', SearchAttributeType.KEYWORD);

/** The experience a run belongs to, and the version of it the run follows. */
export const ExperienceId = defineSearchAttributeKey('ExperienceId', SearchAttributeType.KEYWORD);
export const ExperienceVersion = defineSearchAttributeKey('ExperienceVersion', SearchAttributeType.INT);
/** An experience run's status (`running`, `completed`, …) and the node it is on, upserted as it moves. */
export const RunStatus = defineSearchAttributeKey('RunStatus', SearchAttributeType.KEYWORD);
export const CurrentNode = defineSearchAttributeKey('CurrentNode', SearchAttributeType.KEYWORD);

/**
 * An A/B test's state (`SCHEDULED`, `RUNNING`, …), upserted by its run. A keyword list holding the one state: Temporal's
 * SQL visibility (the dev server, Postgres) allows 10 Keyword attributes per namespace, and those are taken; a filter
 * reads the same, `AbTestState = "RUNNING"`.
 */
export const AbTestState = defineSearchAttributeKey('AbTestState', SearchAttributeType.KEYWORD_LIST);

/**
 * The deliveries a batched delivery run (`deliveries:<batchId>`) sends, so an operator finds one delivery's run with
 * `DeliveryId = "dlv_…"`. A keyword list for the same reason as AbTestState, and because a run sends several.
 */
export const DeliveryId = defineSearchAttributeKey('DeliveryId', SearchAttributeType.KEYWORD_LIST);

/**
 * The message a run sends: a campaign send run (`send:<notificationId>`) carries its own. A keyword list, as the
 * Keyword slots are all taken (see AbTestState): `NotificationId = "…"` reads the same.
 */
export const NotificationId = defineSearchAttributeKey('NotificationId', SearchAttributeType.KEYWORD_LIST);

/**
 * A campaign send's state (`SCHEDULED`, `SENDING`, `SENT`, …), upserted by its run. Text, because SQL visibility has
 * three keyword lists and this would be a fourth; each state is one word, so `SendState = "SENDING"` matches exactly it.
 */
export const SendState = defineSearchAttributeKey('SendState', SearchAttributeType.TEXT);

export const searchAttributes = [
  AccountId,
  AppId,
  EntityType,
  EntityId,
  EventType,
  JobStatus,
  ClientUserId,
  ExperienceId,
  ExperienceVersion,
  RunStatus,
  CurrentNode,
  AbTestState,
  DeliveryId,
  NotificationId,
  SendState,
];
