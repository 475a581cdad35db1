import { AbTest } from './ab-test.ts';
import { AbTestMember } from './ab-test-member.ts';
import { Account } from './account.ts';
import { App } from './app.ts';
import { ArtistLink } from './artist-link.ts';
import { Campaign } from './campaign.ts';
import { CampaignShard } from './campaign-shard.ts';
import { Connection } from './connection.ts';
import { ConsoleSession } from './console-session.ts';
import { Delivery } from './delivery.ts';
import { DeliveryAttempt } from './delivery-attempt.ts';
import { Device } from './device.ts';
import { Endpoint } from './endpoint.ts';
import { Experience } from './experience.ts';
import { ExperienceRun } from './experience-run.ts';
import { ExperienceVersion } from './experience-version.ts';
import { IdempotencyKey } from './idempotency-key.ts';
import { InboundEvent } from './inbound-event.ts';
import { Job } from './job.ts';
import { Notification } from './notification.ts';
import { OutboundEvent } from './outbound-event.ts';
import { PushPace } from './push-pace.ts';
import { PushSend } from './push-send.ts';
import { RateLimitBucket } from './rate-limit-bucket.ts';
import { RecordingFile } from './recording-file.ts';
import { Segment } from './segment.ts';
import { Slot } from './slot.ts';
import { Stock } from './stock.ts';
import { Visitor } from './visitor.ts';

export {
  AbTest,
  AbTestMember,
  Account,
  App,
  ArtistLink,
  Campaign,
  CampaignShard,
  Connection,
  ConsoleSession,
  Delivery,
  DeliveryAttempt,
  Device,
  Endpoint,
  Experience,
  ExperienceRun,
  ExperienceVersion,
  IdempotencyKey,
  InboundEvent,
  Job,
  Notification,
  OutboundEvent,
  PushPace,
  PushSend,
  RateLimitBucket,
  RecordingFile,
  Segment,
  Slot,
  Stock,
  Visitor,
};
export const entities = [
  Account,
  App,
  Notification,
  Endpoint,
  OutboundEvent,
  Delivery,
  DeliveryAttempt,
  Job,
  RecordingFile,
  ArtistLink,
  Stock,
  Slot,
  Connection,
  Visitor,
  InboundEvent,
  RateLimitBucket,
  IdempotencyKey,
  Experience,
  ExperienceVersion,
  ExperienceRun,
  AbTest,
  AbTestMember,
  PushSend,
  Device,
  Segment,
  Campaign,
  CampaignShard,
  PushPace,
  ConsoleSession,
];
